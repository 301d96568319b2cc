import type { SchemaModule } from '../schema';

/**
 * Templates, their versions and content, signatures and diffs.
 * TODO(issue 8): resolvers — owned by the templates work.
 */
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
  resolvers: {},
};
