import type { SchemaModule } from '../schema';

/**
 * Jobs run from published versions, what is recorded on them, and faults.
 * TODO(issue 8): resolvers — owned by the jobs work.
 */
export const jobsModule: SchemaModule = {
  typeDefs: /* GraphQL */ `
    enum JobState {
      OPEN
      IN_PROGRESS
      PAUSED
      COMPLETED
      CANCELLED
    }

    enum Priority {
      HIGH
      MEDIUM
      LOW
    }

    enum StepStatus {
      DONE
      SKIPPED
      FAILED
    }

    enum FaultSeverity {
      LOW
      MEDIUM
      HIGH
      CRITICAL
    }

    enum FaultState {
      OPEN
      CLOSED
    }

    type Job {
      id: Int!
      title: String!
      state: JobState!
      priority: Priority!
      "incremented by every write; send it back as expectedRevision"
      revision: Int!
      template: Template!
      "the version the job runs, forever"
      version: TemplateVersion!
      asset: Asset
      assignees: [User!]!
      coworkers: [User!]!
      stepOwners: [StepOwner!]!
      records: [StepRecord!]!
      faults: [Fault!]!
      dueAt: DateTime
      cancelReason: String
      createdBy: User
      createdAt: DateTime!
      updatedAt: DateTime!
      startedAt: DateTime
      completedAt: DateTime
    }

    type StepOwner {
      stepId: String!
      user: User!
    }

    type StepRecord {
      stepId: String!
      status: StepStatus!
      values: [FieldValue!]!
      comment: String
      reason: String
      recordedBy: User!
      recordedAt: DateTime!
    }

    type FieldValue {
      key: String!
      value: JSON
      "a NUMBER outside the field's min/max (accepted, flagged)"
      outOfLimits: Boolean!
    }

    type Fault {
      id: Int!
      job: Job
      stepId: String
      asset: Asset
      description: String!
      severity: FaultSeverity!
      photos: [Int!]!
      state: FaultState!
      raisedBy: User!
      raisedAt: DateTime!
      closedBy: User
      closedAt: DateTime
      closeNote: String
    }

    type JobEdge {
      node: Job!
      cursor: String!
    }

    type JobConnection {
      edges: [JobEdge!]!
      pageInfo: PageInfo!
    }

    input JobFilter {
      state: JobState
      templateId: Int
      assetId: Int
      "jobs assigned to this user"
      assigneeId: Int
      priority: Priority
    }

    input StepOwnerInput {
      stepId: String!
      userId: Int!
    }

    input CreateJobInput {
      templateId: Int!
      title: String!
      assetId: Int
      priority: Priority
      assigneeIds: [Int!]
      stepOwners: [StepOwnerInput!]
      dueAt: DateTime
    }

    input FieldValueInput {
      key: String!
      value: JSON
    }

    input RecordStepInput {
      jobId: Int!
      stepId: String!
      status: StepStatus!
      values: [FieldValueInput!]
      comment: String
      "why a step is SKIPPED"
      reason: String
      expectedRevision: Int
    }

    input RaiseFaultInput {
      jobId: Int
      stepId: String
      assetId: Int
      description: String!
      severity: FaultSeverity!
      photos: [Int!]
    }

    extend type Query {
      jobs(first: Int, after: String, filter: JobFilter): JobConnection!
      job(id: Int!): Job
      faults(jobId: Int, assetId: Int): [Fault!]!
    }

    extend type Mutation {
      createJob(input: CreateJobInput!): Job!
      startJob(jobId: Int!, expectedRevision: Int): Job!
      pauseJob(jobId: Int!, expectedRevision: Int): Job!
      resumeJob(jobId: Int!, expectedRevision: Int): Job!
      completeJob(jobId: Int!, expectedRevision: Int): Job!
      cancelJob(jobId: Int!, reason: String!, expectedRevision: Int): Job!
      recordStep(input: RecordStepInput!): Job!
      raiseFault(input: RaiseFaultInput!): Fault!
      closeFault(faultId: Int!, note: String!): Fault!
    }
  `,
  resolvers: {},
};
