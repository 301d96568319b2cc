import type { SchemaModule } from '../schema';
import type { GraphQLContext } from '../context';
import { pageInput, type ConnectionArgs } from '../connection';
import { toConnection } from '../connection';
import { presentTemplate, presentVersion, type PresentedSignature, type PresentedTemplate, type PresentedVersion, type PresentedVersionSummary } from '../../presenters/templates';
import { TEMPLATE_COLUMNS, type TemplateFilter } from '../../repos/templates';
import { VERSION_SUMMARY_COLUMNS } from '../../repos/template-versions';
import { SelectedColumns } from '../columns';
import { userColumns } from './me';
import {
  approveVersion,
  createDraft,
  createTemplate,
  diffVersions,
  getTemplate,
  getVersion,
  listTemplates,
  publishVersion,
  rejectVersion,
  retireVersion,
  submitVersion,
  updateDraft,
  updateTemplate,
  type CreateTemplateInput,
} from '../../services/templates';

/**
 * Templates, their versions and content, signatures and diffs. Resolvers are
 * thin: the rules live in src/services/templates.ts; related rows come
 * through this request's loaders (ctx.loaders.template, .version, …).
 */
type Ctx = GraphQLContext;
type Id = { id: number };
type VersionId = { versionId: number };
type Signed = VersionId & { password?: string | null; code?: string | null };

/** What each Template field reads of a template row (`ctx.loaders.template(templateColumns.of(info))`). */
export const templateColumns = new SelectedColumns({
  all: TEMPLATE_COLUMNS,
  always: ['id'],
  byField: {
    id: [],
    title: ['title'],
    description: ['description'],
    tags: ['tags'],
    assetClass: ['asset_class_id'],
    organizations: [],
    owner: ['owner_id'],
    versions: [],
    latestVersion: [],
    publishedVersion: [],
    createdAt: ['created_at'],
    updatedAt: ['updated_at'],
  },
});

/** What each TemplateVersion field reads of a version row without its document (`ctx.loaders.version(versionColumns.of(info))`). */
export const versionColumns = new SelectedColumns({
  all: VERSION_SUMMARY_COLUMNS,
  always: ['id'],
  byField: {
    id: [],
    number: ['number'],
    state: ['state'],
    template: ['template_id'],
    content: [],
    contentHash: ['content_hash'],
    signatures: [],
    createdBy: ['created_by'],
    updatedBy: ['updated_by'],
    rejectReason: ['reject_reason'],
    createdAt: ['created_at'],
    updatedAt: ['updated_at'],
  },
});

const version = async (promise: Promise<Parameters<typeof presentVersion>[0]>) => presentVersion(await promise);
const template = async (promise: Promise<Parameters<typeof presentTemplate>[0]>) => presentTemplate(await promise);

export const templatesModule: SchemaModule = {
  typeDefs: /* GraphQL */ `
    enum VersionState {
      DRAFT
      IN_REVIEW
      APPROVED
      PUBLISHED
      RETIRED
    }

    enum FieldType {
      TEXT
      NUMBER
      PASS_FAIL
      CHOICE
      PHOTO
      SIGNATURE
      SENSOR
    }

    enum SignatureMeaning {
      APPROVED
      PUBLISHED
    }

    type Template {
      id: Int!
      title: String!
      description: String!
      tags: [String!]!
      assetClass: AssetClass
      organizations: [Organization!]!
      owner: User
      versions: [TemplateVersion!]!
      latestVersion: TemplateVersion!
      publishedVersion: TemplateVersion
      createdAt: DateTime!
      updatedAt: DateTime!
    }

    type TemplateVersion {
      id: Int!
      number: Int!
      state: VersionState!
      template: Template!
      content: Content!
      "SHA-256 of the canonical content: what signatures sign"
      contentHash: String!
      signatures: [Signature!]!
      createdBy: User
      updatedBy: User
      rejectReason: String
      createdAt: DateTime!
      updatedAt: DateTime!
    }

    type Content {
      sections: [Section!]!
    }

    type Section {
      id: String!
      title: String!
      steps: [Step!]!
    }

    type AnchorPose {
      position: [Float!]!
      rotation: [Float!]!
    }

    type StepModel {
      fileId: Int!
      anchorPose: AnchorPose
    }

    type Step {
      id: String!
      title: String!
      body: String!
      media: [Int!]!
      model: StepModel
      fields: [Field!]!
    }

    type Field {
      key: String!
      label: String!
      type: FieldType!
      required: Boolean!
      unit: String
      min: Float
      max: Float
      options: [String!]
      sensorId: Int
    }

    type Signature {
      signer: User!
      signerName: String!
      meaning: SignatureMeaning!
      signedAt: DateTime!
      contentHash: String!
    }

    type TemplateEdge {
      node: Template!
      cursor: String!
    }

    type TemplateConnection {
      edges: [TemplateEdge!]!
      pageInfo: PageInfo!
    }

    type StepRef {
      id: String!
      title: String!
    }

    type ChangedStep {
      id: String!
      title: String!
      "what changed: title, body, media, model, section, fields.<key> (added, removed or changed fields)"
      changedFields: [String!]!
    }

    type VersionDiff {
      added: [StepRef!]!
      removed: [StepRef!]!
      moved: [StepRef!]!
      changed: [ChangedStep!]!
      "open jobs (OPEN, IN_PROGRESS, PAUSED) still pinned to the older version"
      jobsOnOlderVersion: [Job!]!
    }

    input TemplateFilter {
      "matches title or description"
      search: String
      tag: String
      state: VersionState
      assetClassId: Int
    }

    input FieldInput {
      key: String!
      label: String
      type: FieldType!
      required: Boolean
      unit: String
      min: Float
      max: Float
      options: [String!]
      sensorId: Int
    }

    input AnchorPoseInput {
      position: [Float!]!
      rotation: [Float!]!
    }

    input StepModelInput {
      fileId: Int!
      anchorPose: AnchorPoseInput
    }

    input StepInput {
      "omitted: a new step"
      id: String
      title: String!
      body: String
      media: [Int!]
      model: StepModelInput
      fields: [FieldInput!]
    }

    input SectionInput {
      id: String
      title: String!
      steps: [StepInput!]
    }

    input ContentInput {
      sections: [SectionInput!]!
    }

    input CreateTemplateInput {
      title: String!
      description: String
      tags: [String!]
      content: ContentInput
      assetClassId: Int
      organizationIds: [Int!]
    }

    input UpdateTemplateInput {
      title: String
      description: String
      tags: [String!]
      assetClassId: Int
      organizationIds: [Int!]
    }

    extend type Query {
      templates(first: Int, after: String, filter: TemplateFilter): TemplateConnection!
      template(id: Int!): Template
      templateVersion(id: Int!): TemplateVersion
      versionDiff(fromVersionId: Int!, toVersionId: Int!): VersionDiff!
    }

    extend type Mutation {
      "creates the template and its version 1 as a DRAFT"
      createTemplate(input: CreateTemplateInput!): Template!
      updateTemplate(id: Int!, input: UpdateTemplateInput!): Template!
      "a new DRAFT, a copy of the latest version"
      createDraft(templateId: Int!): TemplateVersion!
      updateDraft(versionId: Int!, content: ContentInput!): TemplateVersion!
      submitVersion(versionId: Int!): TemplateVersion!
      rejectVersion(versionId: Int!, reason: String!): TemplateVersion!
      "an electronic signature: the signer's password, or a current TOTP code for a user with two-factor"
      approveVersion(versionId: Int!, password: String, code: String): TemplateVersion!
      "an electronic signature; retires the previously published version"
      publishVersion(versionId: Int!, password: String, code: String): TemplateVersion!
      retireVersion(versionId: Int!): TemplateVersion!
    }
  `,
  resolvers: {
    Query: {
      templates: async (_root, args: ConnectionArgs & { filter?: TemplateFilter | null }, ctx: Ctx) =>
        toConnection(await listTemplates(ctx.deps, ctx.actor, args.filter ?? {}, pageInput(args)), presentTemplate),
      template: (_root, args: Id, ctx: Ctx) => template(getTemplate(ctx.deps, ctx.actor, args.id)),
      templateVersion: (_root, args: Id, ctx: Ctx) => version(getVersion(ctx.deps, ctx.actor, args.id)),
      versionDiff: (_root, args: { fromVersionId: number; toVersionId: number }, ctx: Ctx) =>
        diffVersions(ctx.deps, ctx.actor, args.fromVersionId, args.toVersionId),
    },
    Mutation: {
      createTemplate: (_root, args: { input: CreateTemplateInput }, ctx: Ctx) => template(createTemplate(ctx.deps, ctx.actor, args.input)),
      updateTemplate: (_root, args: Id & { input: Omit<CreateTemplateInput, 'content'> }, ctx: Ctx) =>
        template(updateTemplate(ctx.deps, ctx.actor, args.id, args.input)),
      createDraft: (_root, args: { templateId: number }, ctx: Ctx) => version(createDraft(ctx.deps, ctx.actor, args.templateId)),
      updateDraft: (_root, args: VersionId & { content: unknown }, ctx: Ctx) => version(updateDraft(ctx.deps, ctx.actor, args.versionId, args.content)),
      submitVersion: (_root, args: VersionId, ctx: Ctx) => version(submitVersion(ctx.deps, ctx.actor, args.versionId)),
      rejectVersion: (_root, args: VersionId & { reason: string }, ctx: Ctx) => version(rejectVersion(ctx.deps, ctx.actor, args.versionId, args.reason)),
      approveVersion: (_root, args: Signed, ctx: Ctx) => version(approveVersion(ctx.deps, ctx.actor, args.versionId, args, ctx.meta)),
      publishVersion: (_root, args: Signed, ctx: Ctx) => version(publishVersion(ctx.deps, ctx.actor, args.versionId, args, ctx.meta)),
      retireVersion: (_root, args: VersionId, ctx: Ctx) => version(retireVersion(ctx.deps, ctx.actor, args.versionId)),
    },
    Template: {
      assetClass: (t: PresentedTemplate, _args, ctx: Ctx) => (t.assetClassId ? ctx.loaders.assetClass.load(t.assetClassId) : null),
      organizations: (t: PresentedTemplate, _args, ctx: Ctx) => ctx.loaders.organizationsByTemplate.load(t.id),
      owner: (t: PresentedTemplate, _args, ctx: Ctx, info) => (t.ownerId ? ctx.loaders.user(userColumns.of(info)).load(t.ownerId) : null),
      versions: (t: PresentedTemplate, _args, ctx: Ctx) => ctx.loaders.versionsByTemplate.load(t.id),
      // versions load oldest first: the latest is the last
      latestVersion: async (t: PresentedTemplate, _args, ctx: Ctx) => (await ctx.loaders.versionsByTemplate.load(t.id)).at(-1),
      publishedVersion: async (t: PresentedTemplate, _args, ctx: Ctx) =>
        (await ctx.loaders.versionsByTemplate.load(t.id)).find((v) => v.state === 'PUBLISHED') ?? null,
    },
    TemplateVersion: {
      // a version from the loader (a job's) comes without its document: loaded when asked for
      content: async (v: PresentedVersion | PresentedVersionSummary, _args, ctx: Ctx) =>
        'content' in v ? v.content : (await ctx.loaders.versionContent.load(v.id))?.content,
      template: (v: PresentedVersion, _args, ctx: Ctx, info) => ctx.loaders.template(templateColumns.of(info)).load(v.templateId),
      signatures: (v: PresentedVersion, _args, ctx: Ctx) => ctx.loaders.signaturesByVersion.load(v.id),
      createdBy: (v: PresentedVersion, _args, ctx: Ctx, info) => ctx.loaders.user(userColumns.of(info)).load(v.createdById),
      updatedBy: (v: PresentedVersion, _args, ctx: Ctx, info) => ctx.loaders.user(userColumns.of(info)).load(v.updatedById),
    },
    Signature: {
      // the signature copied the signer's name and email: it stays readable when the account is gone
      signer: async (s: PresentedSignature, _args, ctx: Ctx, info) =>
        (await ctx.loaders.user(userColumns.of(info)).load(s.signerId)) ?? {
          id: s.signerId,
          email: s.signerEmail,
          first_name: s.signerName,
          last_name: '',
          title: '',
          roles: [],
          license_type: '',
        },
    },
  },
};
