import type { SchemaModule } from '../schema';
import type { GraphQLContext } from '../context';
import { pageInput, toConnection, type ConnectionArgs } from '../connection';
import type { JobMemberKind, JobRow } from '../../db/schema';
import type { JobAction } from '../../policies/transitions';
import { presentFault, presentJob, presentStepRecord, type PresentedJob } from '../../presenters/jobs';
import { createJob, getJob, listJobs, recordStep, transitionJob, type CreateJobInput, type RecordStepInput } from '../../services/jobs';
import { closeFault, listFaults, raiseFault, type RaiseFaultInput } from '../../services/faults';
import { JOB_COLUMNS, loadMemberUsers, type JobFilter, type JobPageRelations, type JobPageRow } from '../../repos/jobs';
import type { Page } from '../../db/pagination';
import { presentTemplate, presentVersionSummary, type PresentedTemplate, type PresentedVersionSummary } from '../../presenters/templates';
import type { UserSummary, UserSummaryColumn } from '../../repos/users';
import type { ColumnSet } from '../../db/columns';
import type { GraphQLResolveInfo } from 'graphql';
import { SelectedColumns, selectedFields } from '../columns';
import { userColumns } from './me';
import { templateColumns, versionColumns } from './templates';
import { findStep, type Content } from '../../domain/content';
import { recordedFileIds } from '../../domain/recording';

type Ctx = GraphQLContext;
type PresentedFault = ReturnType<typeof presentFault>;
type PresentedRecord = ReturnType<typeof presentStepRecord>;

/** What each Job field reads of a job row (the jobs connection reads only those: `jobColumns.of(info, ['edges', 'node'])`). */
const jobColumns = new SelectedColumns({
  all: JOB_COLUMNS,
  always: ['id'],
  byField: {
    id: [],
    title: ['title'],
    state: ['state'],
    priority: ['priority'],
    revision: ['revision'],
    template: ['template_id'],
    version: ['version_id'],
    asset: ['asset_id'],
    assignees: [],
    coworkers: [],
    stepOwners: [],
    records: ['version_id'],
    faults: [],
    dueAt: ['due_at'],
    cancelReason: ['cancel_reason'],
    createdBy: ['created_by'],
    createdAt: ['created_at'],
    updatedAt: ['updated_at'],
    startedAt: ['started_at'],
    completedAt: ['completed_at'],
  },
});

type Member = { stepId: string; user: Omit<UserSummary, 'roles'> };

/** Users of one kind of membership with `columns`, through the loaders (two batched statements for a whole page). */
async function members(job: PresentedJob, kind: JobMemberKind, ctx: Ctx, columns: ColumnSet<UserSummaryColumn>): Promise<Member[]> {
  const rows = (await ctx.loaders.jobMembers.load(job.id)).filter((m) => m.kind === kind);
  const loader = ctx.loaders.user(columns);
  const users = await Promise.all(rows.map((m) => loader.load(m.user_id)));
  return rows.flatMap((m, i) => (users[i] ? [{ stepId: m.step_id, user: users[i] }] : []));
}

/** The membership fields of Job, their kind, and where their users' selection is. */
const MEMBER_FIELDS = [
  { field: 'assignees', kind: 'ASSIGNEE', user: [] },
  { field: 'coworkers', kind: 'COWORKER', user: [] },
  { field: 'stepOwners', kind: 'STEP_OWNER', user: ['user'] },
] as const satisfies readonly { field: string; kind: JobMemberKind; user: readonly string[] }[];
type MemberField = (typeof MEMBER_FIELDS)[number]['field'];

/** A job of the jobs connection, with the relations its page read ahead (what Job's resolvers then answer from). */
type JobNode = PresentedJob & { ahead?: { template?: PresentedTemplate; version?: PresentedVersionSummary; members: Partial<Record<MemberField, Member[]>> } };

const NODE = ['edges', 'node'];

/** The template and version columns the page's statement joins in (listJobs' relations), worked out once per place of a document. */
const relationsByPlace = new WeakMap<GraphQLResolveInfo['fieldNodes'], JobPageRelations>();
function pageRelations(info: GraphQLResolveInfo): JobPageRelations {
  let relations = relationsByPlace.get(info.fieldNodes);
  if (!relations) {
    const fields = selectedFields(info, NODE);
    relations = {
      ...(fields.has('template') && { template: templateColumns.of(info, [...NODE, 'template']) }),
      ...(fields.has('version') && { version: versionColumns.of(info, [...NODE, 'version']) }),
    };
    relationsByPlace.set(info.fieldNodes, relations);
  }
  return relations;
}

/**
 * The template, version and members a page of jobs shows, read ahead: the template and version joined into the
 * page's own statement (listJobs' relations), a membership field's users with their memberships in one batched,
 * tenant-scoped join, each with the columns its selection needs. Job's resolvers then answer each job at once;
 * through the loaders every job of the page went through three loads, their promises and their garbage — about a
 * third of a 50-job page's CPU — and the two statements the joins replace were about a tenth.
 */
async function readAhead(page: Page<JobPageRow>, ctx: Ctx, info: GraphQLResolveInfo): Promise<JobNode[]> {
  const fields = selectedFields(info, NODE);
  const memberFields = MEMBER_FIELDS.filter((m) => fields.has(m.field));
  const nodes = page.items.map((row) => {
    const node: JobNode = presentJob(row);
    node.ahead = { template: row.template && presentTemplate(row.template), version: row.version && presentVersionSummary(row.version), members: {} };
    return node;
  });
  if (nodes.length === 0 || memberFields.length === 0) return nodes;
  const jobIds = nodes.map((n) => n.id);
  const members = await Promise.all(
    memberFields.map(({ field, kind, user }) => loadMemberUsers(ctx.deps.db.kysely, ctx.scope, jobIds, kind, userColumns.of(info, [...NODE, field, ...user]))),
  );
  const byNode = new Map(nodes.map((node) => [node.id, node.ahead!]));
  memberFields.forEach(({ field }, i) => {
    for (const node of nodes) node.ahead!.members[field] = [];
    // the user is the row itself: the membership columns beside its own are no field of User
    for (const row of members[i]!) byNode.get(row.member_job_id)!.members[field]!.push({ stepId: row.member_step_id ?? '', user: row as Member['user'] });
  });
  return nodes;
}

/**
 * A record with, on each value, the file ids it holds when its field is a
 * PHOTO or SIGNATURE of the job's version (FieldValue.files resolves them):
 * a NUMBER that happens to equal a file id is no file.
 */
function withFileIds(record: PresentedRecord, content: Content | undefined) {
  const step = content && findStep(content, record.stepId);
  return { ...record, values: record.values.map((v) => ({ ...v, fileIds: step ? recordedFileIds(step, [v]) : [] })) };
}

/** A job mutation: the service's row, presented. */
const transitionResolver =
  (action: JobAction) =>
  async (_: unknown, args: { jobId: number; reason?: string; expectedRevision?: number | null }, ctx: Ctx): Promise<PresentedJob> =>
    presentJob(await transitionJob(ctx.deps, ctx.actor, { jobId: args.jobId, action, reason: args.reason, expectedRevision: args.expectedRevision }));

/**
 * Jobs run from published versions, what is recorded on them, and faults.
 * Resolvers are thin (service → presenter); a Job's relations come through the
 * per-request loaders, so a page of jobs costs a fixed number of statements.
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
  resolvers: {
    Query: {
      jobs: async (_: unknown, args: ConnectionArgs & { filter?: JobFilter | null }, ctx: Ctx, info: GraphQLResolveInfo) => {
        const page = await listJobs(ctx.deps, ctx.actor, args.filter ?? {}, pageInput(args), jobColumns.of(info, NODE), pageRelations(info));
        const nodes = await readAhead(page, ctx, info);
        return toConnection({ items: nodes, nextCursor: page.nextCursor }, (node) => node);
      },
      job: async (_: unknown, args: { id: number }, ctx: Ctx) => presentJob(await getJob(ctx.deps, ctx.actor, args.id)),
      faults: async (_: unknown, args: { jobId?: number | null; assetId?: number | null }, ctx: Ctx) =>
        (await listFaults(ctx.deps, ctx.actor, args)).map(presentFault),
    },
    Mutation: {
      createJob: async (_: unknown, args: { input: CreateJobInput }, ctx: Ctx) => presentJob(await createJob(ctx.deps, ctx.actor, args.input)),
      startJob: transitionResolver('start'),
      pauseJob: transitionResolver('pause'),
      resumeJob: transitionResolver('resume'),
      completeJob: transitionResolver('complete'),
      cancelJob: transitionResolver('cancel'),
      recordStep: async (_: unknown, args: { input: RecordStepInput }, ctx: Ctx) => presentJob(await recordStep(ctx.deps, ctx.actor, args.input)),
      raiseFault: async (_: unknown, args: { input: RaiseFaultInput }, ctx: Ctx) => presentFault(await raiseFault(ctx.deps, ctx.actor, args.input)),
      closeFault: async (_: unknown, args: { faultId: number; note: string }, ctx: Ctx) => presentFault(await closeFault(ctx.deps, ctx.actor, args)),
    },
    Job: {
      // a job of the jobs connection comes with these read ahead; any other job (by id, of a fault, of a mutation) loads them
      template: (job: JobNode, _: unknown, ctx: Ctx, info: GraphQLResolveInfo) => job.ahead?.template ?? ctx.loaders.template(templateColumns.of(info)).load(job.templateId),
      version: (job: JobNode, _: unknown, ctx: Ctx, info: GraphQLResolveInfo) => job.ahead?.version ?? ctx.loaders.version(versionColumns.of(info)).load(job.versionId),
      asset: (job: PresentedJob, _: unknown, ctx: Ctx) => (job.assetId === null ? null : ctx.loaders.asset.load(job.assetId)),
      assignees: (job: JobNode, _: unknown, ctx: Ctx, info: GraphQLResolveInfo) =>
        job.ahead?.members.assignees?.map((m) => m.user) ?? members(job, 'ASSIGNEE', ctx, userColumns.of(info)).then((found) => found.map((m) => m.user)),
      coworkers: (job: JobNode, _: unknown, ctx: Ctx, info: GraphQLResolveInfo) =>
        job.ahead?.members.coworkers?.map((m) => m.user) ?? members(job, 'COWORKER', ctx, userColumns.of(info)).then((found) => found.map((m) => m.user)),
      stepOwners: (job: JobNode, _: unknown, ctx: Ctx, info: GraphQLResolveInfo) => job.ahead?.members.stepOwners ?? members(job, 'STEP_OWNER', ctx, userColumns.of(info, ['user'])),
      records: async (job: PresentedJob, _: unknown, ctx: Ctx) => {
        const [rows, version] = await Promise.all([ctx.loaders.stepRecords.load(job.id), ctx.loaders.versionContent.load(job.versionId)]);
        return rows.map((row) => withFileIds(presentStepRecord(row), version?.content));
      },
      faults: async (job: PresentedJob, _: unknown, ctx: Ctx) => (await ctx.loaders.jobFaults.load(job.id)).map(presentFault),
      createdBy: (job: PresentedJob, _: unknown, ctx: Ctx, info: GraphQLResolveInfo) => ctx.loaders.user(userColumns.of(info)).load(job.createdById),
    },
    // the templates module's diff lists job rows: presented here, where Job's fields are resolved
    VersionDiff: {
      jobsOnOlderVersion: (diff: { jobsOnOlderVersion: JobRow[] }) => diff.jobsOnOlderVersion.map(presentJob),
    },
    StepRecord: {
      recordedBy: (record: PresentedRecord, _: unknown, ctx: Ctx, info: GraphQLResolveInfo) => ctx.loaders.user(userColumns.of(info)).load(record.recordedById),
    },
    Fault: {
      job: async (fault: PresentedFault, _: unknown, ctx: Ctx) => {
        const job: JobRow | undefined = fault.jobId === null ? undefined : await ctx.loaders.job.load(fault.jobId);
        return job ? presentJob(job) : null;
      },
      asset: (fault: PresentedFault, _: unknown, ctx: Ctx) => (fault.assetId === null ? null : ctx.loaders.asset.load(fault.assetId)),
      raisedBy: (fault: PresentedFault, _: unknown, ctx: Ctx, info: GraphQLResolveInfo) => ctx.loaders.user(userColumns.of(info)).load(fault.raisedById),
      closedBy: (fault: PresentedFault, _: unknown, ctx: Ctx, info: GraphQLResolveInfo) =>
        fault.closedById === null ? null : ctx.loaders.user(userColumns.of(info)).load(fault.closedById),
    },
  },
};
