import type { SchemaModule } from '../module';
import type { GraphQLContext } from '../context';
import { CONNECTION_ARGS, connectionFromArray, connectionTypeDefs, pageInput, toConnection, type ConnectionArgs } from '../connection';
import { databaseIdOf, databaseIdsOf, optionalDatabaseIdOf, versionPartId } from '../ids';
import type { Content, Section, Step } from '#domain/content';
import { contentIn } from './translations';
import { AppError } from '#errors';
import {
  presentTemplate,
  presentVersion,
  type PresentedSignature,
  type PresentedTemplate,
  type PresentedVersion,
  type PresentedVersionSummary,
} from '#presenters/templates';
import { TEMPLATE_COLUMNS, type TemplateFilter } from '#repos/templates';
import { VERSION_SUMMARY_COLUMNS } from '#repos/template-versions';
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
} from '#services/templates';
import { FIELD_TYPES, VERSION_STATES } from '#domain/vocabulary';
import { enumSdl } from '../enum-sdl';

/**
 * Templates, their versions and content, signatures and diffs. Resolvers are
 * thin: the rules live in src/services/templates.ts; related rows come
 * through this request's loaders (ctx.loaders.template, .version, …).
 */
type Ctx = GraphQLContext;
type Id = { id: string };
type VersionInput = { input: { versionId: string; reason?: string; password?: string | null; code?: string | null } };
/** a version's section and step, with the version they are read from (their global ids include it) */
type VersionSection = Section & { versionId: number };
type VersionStep = Step & { versionId: number };

/** What each Template field reads of a template row (`ctx.loaders.template(templateColumns.of(info))`). */
export const templateColumns = new SelectedColumns({
  all: TEMPLATE_COLUMNS,
  always: ['id'],
  byField: {
    id: [],
    databaseId: [],
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
    databaseId: [],
    number: ['number'],
    state: ['state'],
    template: ['template_id'],
    content: [],
    contentHash: ['content_hash'],
    signatures: [],
    createdBy: ['created_by'],
    updatedBy: ['updated_by'],
    revision: ['revision'],
    rejectReason: ['reject_reason'],
    createdAt: ['created_at'],
    updatedAt: ['updated_at'],
    // the review module's (src/graphql/modules/reviews.ts)
    waitingSince: ['state', 'submitted_at', 'approved_at'],
    submittedAt: ['submitted_at'],
    approvedAt: ['approved_at'],
    publishedAt: ['published_at'],
    retiredAt: ['retired_at'],
    viewerActions: ['template_id', 'state', 'created_by', 'updated_by'],
    openJobsOnOlderVersions: ['template_id', 'number'],
  },
});

const version = async (promise: Promise<Parameters<typeof presentVersion>[0]>) => presentVersion(await promise);
const template = async (promise: Promise<Parameters<typeof presentTemplate>[0]>) => presentTemplate(await promise);

/** The version an input's `versionId` names. */
const versionIdOf = (input: { versionId: unknown }) => databaseIdOf(input.versionId, 'TemplateVersion', 'input.versionId');

/** A version payload: the version as it now is. */
const versionPayload = async (promise: Promise<Parameters<typeof presentVersion>[0]>) => ({ version: presentVersion(await promise) });

interface GraphQLContentInput {
  qualifications?: unknown;
  sections: ({ sectionId?: string | null; steps?: ({ stepId?: string | null } & Record<string, unknown>)[] | null } & Record<
    string,
    unknown
  >)[];
}

/** GraphQL's ContentInput as the content document's: a section's `sectionId` and a step's `stepId` are the document's `id`. */
function contentDocument(content: GraphQLContentInput | null | undefined): unknown {
  if (!content) return content;
  return {
    ...(content.qualifications != null && { qualifications: content.qualifications }),
    sections: content.sections.map(({ sectionId, steps, ...section }) => ({
      ...section,
      ...(sectionId != null && { id: sectionId }),
      ...(steps != null && { steps: steps.map(({ stepId, ...step }) => ({ ...step, ...(stepId != null && { id: stepId }) })) }),
    })),
  };
}

/**
 * The service's answer, with a VALIDATION_ERROR about the content naming GraphQL's fields: the document's `id` of
 * a section or step is `sectionId` / `stepId` in ContentInput (`content.sections.0.steps.1.stepId`).
 */
async function withContentPaths<T>(promise: Promise<T>): Promise<T> {
  try {
    return await promise;
  } catch (error) {
    const fields =
      error instanceof AppError && error.code === 'VALIDATION_ERROR'
        ? (error.details?.fields as { path?: unknown }[] | undefined)
        : undefined;
    if (!Array.isArray(fields)) throw error;
    const renamed = fields.map((field) =>
      typeof field.path === 'string'
        ? { ...field, path: field.path.replace(/(\.steps\.\d+)\.id$/, '$1.stepId').replace(/(\.sections\.\d+)\.id$/, '$1.sectionId') }
        : field,
    );
    throw new AppError('VALIDATION_ERROR', (error as AppError).message, { ...(error as AppError).details, fields: renamed });
  }
}

/** CreateTemplateInput / UpdateTemplateInput with their ids as the database ids the service takes. */
function templateFields<T extends { assetClassId?: unknown; organizationIds?: readonly unknown[] | null }>(input: T) {
  return {
    ...input,
    assetClassId: optionalDatabaseIdOf(input.assetClassId, 'AssetClass', 'input.assetClassId'),
    organizationIds: databaseIdsOf(input.organizationIds, 'Organization', 'input.organizationIds'),
  };
}

export const templatesModule: SchemaModule = {
  typeDefs: /* GraphQL */ `
    ${enumSdl('VersionState', VERSION_STATES)}

    ${enumSdl('FieldType', FIELD_TYPES, {
      CALCULATED: 'computed by the server from its expression when its inputs are recorded (docs/execution-rules.md)',
    })}

    enum SignatureMeaning {
      APPROVED
      PUBLISHED
      "a rejection signed with the reviewer's password or code"
      REJECTED
      "a step sign-off: the person who performed the step (signStep)"
      PERFORMED
      "a step sign-off: a second person checked the step (signStep)"
      VERIFIED
      "a completed job reviewed by exception"
      REVIEWED
    }

    type Template implements Node {
      id: ID!
      "the template's id in REST"
      databaseId: Int!
      title: String!
      description: String!
      tags: [String!]!
      assetClass: AssetClass
      "a list: at most 1,000 (what createTemplate and updateTemplate take)"
      organizations: [Organization!]!
      owner: User
      "oldest first"
      versions(${CONNECTION_ARGS}): TemplateVersionConnection!
      latestVersion: TemplateVersion!
      publishedVersion: TemplateVersion
      createdAt: DateTime!
      updatedAt: DateTime!
    }

    type TemplateVersion implements Node {
      id: ID!
      "the version's id in REST (the PDF, the package, jobs' versionId)"
      databaseId: Int!
      number: Int!
      state: VersionState!
      template: Template!
      "the source texts; with language (BCP 47, e.g. the operator's), the best approved translation of it and its less specific forms, text by text over the source (docs/translated-instructions.md)"
      content(language: String): Content!
      "SHA-256 of the canonical content: what signatures sign"
      contentHash: String!
      "in signing order: a REJECTED one per signed rejection of an earlier review round, then APPROVED, then PUBLISHED"
      signatures: [Signature!]!
      createdBy: User
      updatedBy: User
      "incremented by every write to the version: send it back as updateDraft's expectedRevision"
      revision: Int!
      rejectReason: String
      createdAt: DateTime!
      updatedAt: DateTime!
    }

    "The version's document; its lists are bounded by the document's limits (200 sections, 500 steps a section, 100 fields a step)."
    type Content {
      sections: [Section!]!
    }

    "A section of one version: its id is that version's copy; sectionId is the key it keeps across versions."
    type Section implements Node {
      id: ID!
      "the section's stable key (the content document's id)"
      sectionId: String!
      title: String!
      "the condition under which its steps apply (docs/execution-rules.md); null: always"
      when: JSON
      steps: [Step!]!
    }

    type AnchorPose {
      position: [Float!]!
      rotation: [Float!]!
    }

    type StepModel {
      "the model's file (databaseId of a File)"
      fileId: Int!
      anchorPose: AnchorPose
    }

    "A step of one version: its id is that version's copy; stepId is the key records, step owners and faults refer to."
    type Step implements Node {
      id: ID!
      "the step's stable key, the same in every version (the content document's id)"
      stepId: String!
      title: String!
      body: String!
      "file ids (databaseId of a File), as the content document holds them"
      media: [Int!]!
      model: StepModel
      fields: [Field!]!
      "the condition under which the step applies (docs/execution-rules.md); null: always"
      when: JSON
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
      "the sensor (databaseId of a Sensor) a SENSOR field reads"
      sensorId: Int
      "a CALCULATED field's formula, e.g. round(p_out - p_in, 1) (docs/execution-rules.md)"
      expression: String
    }

    type Signature {
      signer: User!
      signerName: String!
      meaning: SignatureMeaning!
      signedAt: DateTime!
      contentHash: String!
    }

    ${connectionTypeDefs('Template')}
    ${connectionTypeDefs('TemplateVersion')}

    "A step named by a diff (bounded by the two versions' steps)."
    type StepRef {
      stepId: String!
      title: String!
    }

    type ChangedStep {
      stepId: String!
      title: String!
      "what changed: title, body, media, model, section, when, section.when (the section's condition), signoff, fields.<key> (added, removed or changed fields), fields.<key>.expression"
      changedFields: [String!]!
    }

    type VersionDiff {
      added: [StepRef!]!
      removed: [StepRef!]!
      moved: [StepRef!]!
      changed: [ChangedStep!]!
      "open jobs (OPEN, IN_PROGRESS, PAUSED) still pinned to the older version"
      jobsOnOlderVersion(${CONNECTION_ARGS}): JobConnection!
    }

    input TemplateFilter {
      "matches title or description"
      search: String
      tag: String
      state: VersionState
      assetClassId: ID
      "true: only templates with a version waiting for the caller — their drafts (authors), versions in review they may approve (approvers), approved versions (publishers)"
      needsMyAction: Boolean
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
      "databaseId of a Sensor"
      sensorId: Int
      "CALCULATED only: the formula (docs/execution-rules.md)"
      expression: String
    }

    input AnchorPoseInput {
      position: [Float!]!
      rotation: [Float!]!
    }

    input StepModelInput {
      "databaseId of a File (an upload's id)"
      fileId: Int!
      anchorPose: AnchorPoseInput
    }

    input StepInput {
      "the step's stable key; omitted: a new step"
      stepId: String
      title: String!
      body: String
      "databaseIds of Files (uploads' ids)"
      media: [Int!]
      model: StepModelInput
      fields: [FieldInput!]
      "a condition over earlier steps (docs/execution-rules.md)"
      when: JSON
    }

    input SectionInput {
      "the section's stable key; omitted: a new section"
      sectionId: String
      title: String!
      "a condition over earlier steps (docs/execution-rules.md)"
      when: JSON
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
      assetClassId: ID
      organizationIds: [ID!]
    }

    input UpdateTemplateInput {
      templateId: ID!
      title: String
      description: String
      tags: [String!]
      assetClassId: ID
      organizationIds: [ID!]
    }

    input CreateDraftInput {
      templateId: ID!
    }

    input UpdateDraftInput {
      versionId: ID!
      content: ContentInput!
      "the revision the content was read at: a draft written since is a CONFLICT (details.currentRevision), never overwritten; omitted, the last edit wins"
      expectedRevision: Int
    }

    input SubmitVersionInput {
      versionId: ID!
    }

    "a rejection; with the reviewer's password, or a current TOTP code for a user with two-factor, it is an electronic signature (REJECTED)"
    input RejectVersionInput {
      versionId: ID!
      reason: String!
      password: String
      code: String
    }

    "an electronic signature: the signer's password, or a current TOTP code for a user with two-factor"
    input ApproveVersionInput {
      versionId: ID!
      password: String
      code: String
    }

    "an electronic signature: the signer's password, or a current TOTP code for a user with two-factor"
    input PublishVersionInput {
      versionId: ID!
      password: String
      code: String
    }

    input RetireVersionInput {
      versionId: ID!
    }

    type CreateTemplatePayload {
      template: Template!
      "version 1, a DRAFT"
      version: TemplateVersion!
    }

    type UpdateTemplatePayload {
      template: Template!
    }

    type CreateDraftPayload {
      "the new DRAFT"
      version: TemplateVersion!
    }

    type UpdateDraftPayload {
      version: TemplateVersion!
    }

    type SubmitVersionPayload {
      version: TemplateVersion!
    }

    type RejectVersionPayload {
      version: TemplateVersion!
    }

    type ApproveVersionPayload {
      version: TemplateVersion!
    }

    type PublishVersionPayload {
      version: TemplateVersion!
      "the template (its versions: the one this publish retired, if any, is RETIRED)"
      template: Template!
    }

    type RetireVersionPayload {
      version: TemplateVersion!
    }

    extend type Query {
      "in id (creation) order"
      templates(${CONNECTION_ARGS}, filter: TemplateFilter): TemplateConnection!
      template(id: ID!): Template
      templateVersion(id: ID!): TemplateVersion
      versionDiff(fromVersionId: ID!, toVersionId: ID!): VersionDiff!
    }

    extend type Mutation {
      "creates the template and its version 1 as a DRAFT"
      createTemplate(input: CreateTemplateInput!): CreateTemplatePayload!
      updateTemplate(input: UpdateTemplateInput!): UpdateTemplatePayload!
      "a new DRAFT, a copy of the latest version"
      createDraft(input: CreateDraftInput!): CreateDraftPayload!
      updateDraft(input: UpdateDraftInput!): UpdateDraftPayload!
      submitVersion(input: SubmitVersionInput!): SubmitVersionPayload!
      rejectVersion(input: RejectVersionInput!): RejectVersionPayload!
      "an electronic signature"
      approveVersion(input: ApproveVersionInput!): ApproveVersionPayload!
      "an electronic signature; retires the previously published version"
      publishVersion(input: PublishVersionInput!): PublishVersionPayload!
      retireVersion(input: RetireVersionInput!): RetireVersionPayload!
    }
  `,
  resolvers: {
    Query: {
      templates: async (
        _root,
        args: ConnectionArgs & {
          filter?: (Omit<TemplateFilter, 'awaiting'> & { assetClassId?: unknown; needsMyAction?: boolean | null }) | null;
        },
        ctx: Ctx,
      ) => {
        const page = pageInput(args);
        const filter = {
          ...args.filter,
          assetClassId: optionalDatabaseIdOf(args.filter?.assetClassId, 'AssetClass', 'filter.assetClassId'),
        };
        return toConnection(await listTemplates(ctx.deps, ctx.actor, filter, page), page, presentTemplate);
      },
      template: (_root, args: Id, ctx: Ctx) => template(getTemplate(ctx.deps, ctx.actor, databaseIdOf(args.id, 'Template', 'id'))),
      templateVersion: (_root, args: Id, ctx: Ctx) =>
        version(getVersion(ctx.deps, ctx.actor, databaseIdOf(args.id, 'TemplateVersion', 'id'))),
      versionDiff: (_root, args: { fromVersionId: string; toVersionId: string }, ctx: Ctx) =>
        diffVersions(
          ctx.deps,
          ctx.actor,
          databaseIdOf(args.fromVersionId, 'TemplateVersion', 'fromVersionId'),
          databaseIdOf(args.toVersionId, 'TemplateVersion', 'toVersionId'),
        ),
    },
    Mutation: {
      createTemplate: async (_root, { input }: { input: CreateTemplateInput & { content?: GraphQLContentInput } }, ctx: Ctx) => {
        const created = presentTemplate(
          await withContentPaths(
            createTemplate(ctx.deps, ctx.actor, { ...templateFields(input), content: contentDocument(input.content) }),
          ),
        );
        return { template: created, version: (await ctx.loaders.versionsByTemplate.load(created.id))[0] };
      },
      updateTemplate: async (_root, { input }: { input: Omit<CreateTemplateInput, 'content'> & { templateId: string } }, ctx: Ctx) => {
        const { templateId, ...fields } = input;
        const id = databaseIdOf(templateId, 'Template', 'input.templateId');
        return { template: await template(updateTemplate(ctx.deps, ctx.actor, id, templateFields(fields))) };
      },
      createDraft: async (_root, { input }: { input: { templateId: string } }, ctx: Ctx) =>
        versionPayload(createDraft(ctx.deps, ctx.actor, databaseIdOf(input.templateId, 'Template', 'input.templateId'))),
      updateDraft: (
        _root,
        { input }: { input: { versionId: string; content: GraphQLContentInput; expectedRevision?: number | null } },
        ctx: Ctx,
      ) =>
        versionPayload(
          withContentPaths(updateDraft(ctx.deps, ctx.actor, versionIdOf(input), contentDocument(input.content), input.expectedRevision)),
        ),
      submitVersion: (_root, { input }: VersionInput, ctx: Ctx) => versionPayload(submitVersion(ctx.deps, ctx.actor, versionIdOf(input))),
      rejectVersion: (_root, { input }: VersionInput, ctx: Ctx) =>
        versionPayload(rejectVersion(ctx.deps, ctx.actor, versionIdOf(input), input.reason!, input, ctx.meta)),
      approveVersion: (_root, { input }: VersionInput, ctx: Ctx) =>
        versionPayload(approveVersion(ctx.deps, ctx.actor, versionIdOf(input), input, ctx.meta)),
      publishVersion: async (_root, { input }: VersionInput, ctx: Ctx, info) => {
        const published = presentVersion(await publishVersion(ctx.deps, ctx.actor, versionIdOf(input), input, ctx.meta));
        return {
          version: published,
          template: await ctx.loaders.template(templateColumns.of(info, ['template'])).load(published.templateId),
        };
      },
      retireVersion: (_root, { input }: VersionInput, ctx: Ctx) => versionPayload(retireVersion(ctx.deps, ctx.actor, versionIdOf(input))),
    },
    Template: {
      assetClass: (t: PresentedTemplate, _args, ctx: Ctx) => (t.assetClassId ? ctx.loaders.assetClass.load(t.assetClassId) : null),
      organizations: (t: PresentedTemplate, _args, ctx: Ctx) => ctx.loaders.organizationsByTemplate.load(t.id),
      owner: (t: PresentedTemplate, _args, ctx: Ctx, info) => (t.ownerId ? ctx.loaders.user(userColumns.of(info)).load(t.ownerId) : null),
      // a template's versions are few (one per edit cycle) and batched for a page of templates: paged in memory
      versions: async (t: PresentedTemplate, args: ConnectionArgs, ctx: Ctx) =>
        connectionFromArray(await ctx.loaders.versionsByTemplate.load(t.id), args, (v) => v),
      // versions load oldest first: the latest is the last
      latestVersion: async (t: PresentedTemplate, _args, ctx: Ctx) => (await ctx.loaders.versionsByTemplate.load(t.id)).at(-1),
      publishedVersion: async (t: PresentedTemplate, _args, ctx: Ctx) =>
        (await ctx.loaders.versionsByTemplate.load(t.id)).find((v) => v.state === 'PUBLISHED') ?? null,
    },
    TemplateVersion: {
      // a version from the loader (a job's) comes without its document: loaded when asked for; its sections and
      // steps are that version's (their ids include it)
      content: async (v: PresentedVersion | PresentedVersionSummary, args: { language?: string | null }, ctx: Ctx) => {
        const source: Content | undefined = 'content' in v ? v.content : (await ctx.loaders.versionContent.load(v.id))?.content;
        const content = source && (await contentIn(ctx, v.id, source, args.language));
        return (
          content && {
            language: content.language,
            qualifications: content.qualifications,
            sections: content.sections.map((section): VersionSection => ({ ...section, versionId: v.id })),
          }
        );
      },
      template: (v: PresentedVersion, _args, ctx: Ctx, info) => ctx.loaders.template(templateColumns.of(info)).load(v.templateId),
      signatures: (v: PresentedVersion, _args, ctx: Ctx) => ctx.loaders.signaturesByVersion.load(v.id),
      createdBy: (v: PresentedVersion, _args, ctx: Ctx, info) => ctx.loaders.user(userColumns.of(info)).load(v.createdById),
      updatedBy: (v: PresentedVersion, _args, ctx: Ctx, info) => ctx.loaders.user(userColumns.of(info)).load(v.updatedById),
    },
    Section: {
      id: (section: VersionSection) => versionPartId('Section', section.versionId, section.id),
      sectionId: (section: VersionSection) => section.id,
      steps: (section: VersionSection): VersionStep[] => section.steps.map((step) => ({ ...step, versionId: section.versionId })),
    },
    Step: {
      id: (step: VersionStep) => versionPartId('Step', step.versionId, step.id),
      stepId: (step: VersionStep) => step.id,
    },
    StepRef: {
      stepId: (ref: { id: string }) => ref.id,
    },
    ChangedStep: {
      stepId: (ref: { id: string }) => ref.id,
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
