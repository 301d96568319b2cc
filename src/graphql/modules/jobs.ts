import type { SchemaModule } from '../module';
import type { GraphQLContext } from '../context';
import { CONNECTION_ARGS, connectionFromArray, connectionTypeDefs, pageInput, toConnection, type ConnectionArgs } from '../connection';
import { databaseIdOf, databaseIdsOf, optionalDatabaseIdOf } from '../ids';
import type { JobMemberKind, JobRow } from '#db/schema';
import type { JobAction } from '#policies/transitions';
import { presentFault, presentJob, presentStepRecord, type PresentedJob } from '#presenters/jobs';
import {
  createJob,
  getJob,
  listCompletionBlockers,
  listJobs,
  recordStep,
  transitionJob,
  type CreateJobInput,
  type RecordStepInput,
} from '#services/jobs';
import { closeFault, listFaults, raiseFault, type RaiseFaultInput } from '#services/faults';
import { JOB_COLUMNS, loadMemberUsers, type JobFilter, type JobPageRelations, type JobPageRow } from '#repos/jobs';
import type { Page } from '#db/pagination';
import { presentTemplate, presentVersionSummary, type PresentedTemplate, type PresentedVersionSummary } from '#presenters/templates';
import type { UserSummary, UserSummaryColumn } from '#repos/users';
import type { ColumnSet } from '#db/columns';
import { applicability } from '#domain/applicability';
import type { GraphQLResolveInfo } from 'graphql';
import { SelectedColumns, selectedFields } from '../columns';
import { userColumns } from './me';
import { templateColumns, versionColumns } from './templates';
import { findStep, type Content } from '#domain/content';
import { recordedFileIds } from '#domain/recording';
import { FAULT_SEVERITIES, FAULT_STATES, JOB_PRIORITIES, JOB_STATES, STEP_STATUSES } from '#domain/vocabulary';
import { enumSdl } from '../enum-sdl';

type Ctx = GraphQLContext;
type PresentedFault = ReturnType<typeof presentFault>;
type PresentedRecord = ReturnType<typeof presentStepRecord>;

/** What each Job field reads of a job row (the jobs connection reads only those: `jobColumns.of(info, ...NODES)`). */
const jobColumns = new SelectedColumns({
  all: JOB_COLUMNS,
  always: ['id'],
  byField: {
    id: [],
    databaseId: [],
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
    steps: ['version_id'],
    signoffs: [],
    faults: [],
    // reads the whole job itself (the loader), as completeJob does
    completionBlockers: [],
    dueAt: ['due_at'],
    cancelReason: ['cancel_reason'],
    createdBy: ['created_by'],
    createdAt: ['created_at'],
    updatedAt: ['updated_at'],
    startedAt: ['started_at'],
    completedAt: ['completed_at'],
    // the schedules module's (recurring and follow-up jobs): loaded by the job's id
    schedule: [],
    scheduledFor: [],
    followUpOf: [],
    closesFault: [],
    // the hand-offs module's: loaded by the job's id
    handOffs: [],
    // the deviations module's review rules: the state, and the version for the step's number
    viewerMayReview: ['state'],
    viewerReviewBlock: ['state', 'version_id'],
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
type JobNode = PresentedJob & {
  ahead?: { template?: PresentedTemplate; version?: PresentedVersionSummary; members: Partial<Record<MemberField, Member[]>> };
};

/** Where a connection's nodes are selected: its edges' node, and its nodes. */
const NODES = [['edges', 'node'], ['nodes']] as const;
/** The paths of a field of the nodes of a connection. */
const underNodes = (...path: string[]) => NODES.map((nodes) => [...nodes, ...path]);

/** The template and version columns the page's statement joins in (listJobs' relations), worked out once per place of a document. */
const relationsByPlace = new WeakMap<GraphQLResolveInfo['fieldNodes'], JobPageRelations>();
function pageRelations(info: GraphQLResolveInfo): JobPageRelations {
  let relations = relationsByPlace.get(info.fieldNodes);
  if (!relations) {
    const fields = selectedFields(info, ...NODES);
    relations = {
      ...(fields.has('template') && { template: templateColumns.of(info, ...underNodes('template')) }),
      ...(fields.has('version') && { version: versionColumns.of(info, ...underNodes('version')) }),
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
  const fields = selectedFields(info, ...NODES);
  const memberFields = MEMBER_FIELDS.filter((m) => fields.has(m.field));
  const nodes = page.items.map((row) => {
    const node: JobNode = presentJob(row);
    node.ahead = {
      template: row.template && presentTemplate(row.template),
      version: row.version && presentVersionSummary(row.version),
      members: {},
    };
    return node;
  });
  if (nodes.length === 0 || memberFields.length === 0) return nodes;
  const jobIds = nodes.map((n) => n.id);
  const members = await Promise.all(
    memberFields.map(({ field, kind, user }) =>
      loadMemberUsers(ctx.deps.db.kysely, ctx.scope, jobIds, kind, userColumns.of(info, ...underNodes(field, ...user))),
    ),
  );
  const byNode = new Map(nodes.map((node) => [node.id, node.ahead!]));
  memberFields.forEach(({ field }, i) => {
    for (const node of nodes) node.ahead!.members[field] = [];
    // the user is the row itself: the membership columns beside its own are no field of User
    for (const row of members[i]) byNode.get(row.member_job_id)!.members[field]!.push({ stepId: row.member_step_id ?? '', user: row });
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

/** A job payload: the job as the write left it, and its new revision (what the next write sends as expectedRevision). */
const jobPayload = (row: JobRow) => {
  const job = presentJob(row);
  return { job, revision: job.revision };
};

/** A transition mutation: the service's row, as a job payload. */
const transitionResolver =
  (action: JobAction) =>
  async (
    _: unknown,
    { input }: { input: { jobId: string; reason?: string; expectedRevision?: number | null; capturedAt?: string | null } },
    ctx: Ctx,
  ) =>
    jobPayload(
      await transitionJob(ctx.deps, ctx.actor, {
        jobId: databaseIdOf(input.jobId, 'Job', 'input.jobId'),
        action,
        reason: input.reason,
        expectedRevision: input.expectedRevision,
        capturedAt: input.capturedAt,
      }),
    );

interface GraphQLJobFilter {
  state?: JobFilter['state'];
  priority?: JobFilter['priority'];
  templateId?: string | null;
  assetId?: string | null;
  assigneeId?: string | null;
}

/** The jobs filter with its ids as the database ids the repo takes. */
const jobFilter = (filter: GraphQLJobFilter | null | undefined): JobFilter => ({
  ...filter,
  templateId: optionalDatabaseIdOf(filter?.templateId, 'Template', 'filter.templateId'),
  assetId: optionalDatabaseIdOf(filter?.assetId, 'Asset', 'filter.assetId'),
  assigneeId: optionalDatabaseIdOf(filter?.assigneeId, 'User', 'filter.assigneeId'),
});

/**
 * Jobs run from published versions, what is recorded on them, and faults.
 * Resolvers are thin (service → presenter); a Job's relations come through the
 * per-request loaders, so a page of jobs costs a fixed number of statements.
 */
export const jobsModule: SchemaModule = {
  typeDefs: /* GraphQL */ `
    ${enumSdl('JobState', JOB_STATES, { REVIEWED: 'a completed job reviewed by exception (reviewJob)' })}

    ${enumSdl('Priority', JOB_PRIORITIES)}

    ${enumSdl('StepStatus', STEP_STATUSES)}

    ${enumSdl('FaultSeverity', FAULT_SEVERITIES)}

    ${enumSdl('FaultState', FAULT_STATES)}

    type Job implements Node {
      id: ID!
      "the job's id in REST (reports, working together)"
      databaseId: Int!
      title: String!
      state: JobState!
      priority: Priority!
      "incremented by every write; send it back as expectedRevision"
      revision: Int!
      template: Template!
      "the version the job runs, forever"
      version: TemplateVersion!
      asset: Asset
      "a list: at most 100 (what createJob takes; a hand-off swaps one for one)"
      assignees: [User!]!
      "a list: the co-workers who joined (at most the client's users)"
      coworkers: [User!]!
      "a list: at most 500 (what createJob takes)"
      stepOwners: [StepOwner!]!
      "a list: one record per step of the job's version (recording a step again replaces its record)"
      records: [StepRecord!]!
      "a list: every step of the job's version in reading order, with whether it applies now (its condition, docs/execution-rules.md)"
      steps: [JobStep!]!
      "in id order (the newest last)"
      faults(${CONNECTION_ARGS}): FaultConnection!
      dueAt: DateTime
      cancelReason: String
      createdBy: User
      createdAt: DateTime!
      updatedAt: DateTime!
      "when the job was started on the device (the capture time of the start or of the first recording, docs/records.md)"
      startedAt: DateTime
      "when the job was completed on the device (completeJob's capture time)"
      completedAt: DateTime
      "a list: what completeJob would be refused for if the signed-in user completed the job now — the very rules completeJob enforces (docs/execution-rules.md); empty: it would succeed. Runs those checks (a few statements per job): ask it of the job being reviewed, not of a page of jobs"
      completionBlockers: [CompletionBlocker!]!
    }

    "One reason completeJob would be refused."
    type CompletionBlocker {
      "the error code completeJob answers (REQUIRED_FIELDS_MISSING, COMMENT_REQUIRED, SIGNOFF_MISSING, NOT_QUALIFIED, INVALID_TRANSITION, FORBIDDEN)"
      code: String!
      "the step's stable key (Step.stepId); null: about the job as a whole"
      stepId: String
      message: String!
    }

    type StepOwner {
      "the step's stable key (Step.stepId)"
      stepId: String!
      user: User!
    }

    "What was recorded on a step of the job's version: the version's step is job.version's step with this stepId."
    type StepRecord {
      "the step's stable key (Step.stepId)"
      stepId: String!
      status: StepStatus!
      "a list: one value per field of the step"
      values: [FieldValue!]!
      comment: String
      reason: String
      recordedBy: User!
      recordedAt: DateTime! @deprecated(reason: "Use receivedAt (the same time: when the server stored the record) or capturedAt (when the values were entered on the device).")
      "when the values were entered on the device, in server time (RecordStepInput.capturedAt), else the server's receipt time (docs/records.md)"
      capturedAt: DateTime!
      "when the server stored the record"
      receivedAt: DateTime!
      "incremented by every recording of the step, from 1: send it as expectedStepRevision when recording the step again"
      revision: Int!
    }

    type FieldValue {
      "the field's key (Field.key)"
      key: String!
      value: JSON
      "a NUMBER outside the field's min/max (accepted, flagged)"
      outOfLimits: Boolean!
      "a CALCULATED value the server could not compute (division by zero, a non-numeric input): value is null"
      error: String
    }

    "Whether a step of the job applies now. A step that does not apply is not required and takes no record (STEP_NOT_APPLICABLE); a record it already has stays (Job.records), no longer applicable."
    type JobStep {
      "the step's stable key (Step.stepId)"
      stepId: String!
      applies: Boolean!
      "why it does not apply (null when it does)"
      reason: String
    }

    type Fault implements Node {
      id: ID!
      databaseId: Int!
      job: Job
      "the step's stable key (Step.stepId)"
      stepId: String
      asset: Asset
      description: String!
      severity: FaultSeverity!
      "file ids (databaseId of a File; at most 50)"
      photos: [Int!]!
      state: FaultState!
      raisedBy: User!
      "when the server stored the fault"
      raisedAt: DateTime!
      "when it was raised on the device, in server time (RaiseFaultInput.capturedAt), else raisedAt"
      capturedAt: DateTime!
      closedBy: User
      closedAt: DateTime
      closeNote: String
    }

    ${connectionTypeDefs('Job')}
    ${connectionTypeDefs('Fault')}

    input JobFilter {
      state: JobState
      templateId: ID
      assetId: ID
      "jobs assigned to this user"
      assigneeId: ID
      priority: Priority
    }

    input StepOwnerInput {
      "the step's stable key (Step.stepId)"
      stepId: String!
      userId: ID!
    }

    input CreateJobInput {
      templateId: ID!
      title: String!
      assetId: ID
      priority: Priority
      assigneeIds: [ID!]
      stepOwners: [StepOwnerInput!]
      dueAt: DateTime
    }

    "A transition of a job; expectedRevision: the revision the client saw (a stale one: CONFLICT)."
    input JobTransitionInput {
      jobId: ID!
      expectedRevision: Int
      "when the device did it, in server time: start and complete set startedAt/completedAt to it (bounds: docs/records.md; outside them VALIDATION_ERROR); absent: now"
      capturedAt: DateTime
    }

    input CancelJobInput {
      jobId: ID!
      reason: String!
      expectedRevision: Int
      "when the device did it, in server time (docs/records.md)"
      capturedAt: DateTime
    }

    input FieldValueInput {
      key: String!
      value: JSON
    }

    input RecordStepInput {
      jobId: ID!
      "the step's stable key (Step.stepId)"
      stepId: String!
      status: StepStatus!
      values: [FieldValueInput!]
      comment: String
      "why a step is SKIPPED"
      reason: String
      "the job's revision the device saw (a stale one: CONFLICT with details.job)"
      expectedRevision: Int
      "the step record's revision the device saw (StepRecord.revision; 0 or null: it saw no record). Sent, a record changed since — by anyone — is refused: CONFLICT with details.stepId and details.record (the record now on the server, or null). Absent: not checked (docs/records.md)"
      expectedStepRevision: Int
      "when the values were entered on the device, converted to server time with the offset measured at the last contact; at most 60 s after the server's clock and not more than 60 s before the job's creation, else VALIDATION_ERROR on capturedAt. Absent: the receipt time"
      capturedAt: DateTime
    }

    input RaiseFaultInput {
      jobId: ID
      "the step's stable key (Step.stepId)"
      stepId: String
      assetId: ID
      description: String!
      severity: FaultSeverity!
      "file ids (databaseId of a File: an upload's id)"
      photos: [Int!]
      "when it was raised on the device, in server time (the bounds of RecordStepInput.capturedAt; an asset's fault: not before the asset existed)"
      capturedAt: DateTime
    }

    input CloseFaultInput {
      faultId: ID!
      note: String!
    }

    type CreateJobPayload {
      job: Job!
      "the job's revision: send it as expectedRevision with the next write"
      revision: Int!
    }

    type StartJobPayload {
      job: Job!
      "the job's new revision"
      revision: Int!
    }

    type PauseJobPayload {
      job: Job!
      revision: Int!
    }

    type ResumeJobPayload {
      job: Job!
      revision: Int!
    }

    type CompleteJobPayload {
      job: Job!
      revision: Int!
    }

    type CancelJobPayload {
      job: Job!
      revision: Int!
    }

    type RecordStepPayload {
      job: Job!
      "the step's record as now stored"
      record: StepRecord!
      revision: Int!
    }

    type RaiseFaultPayload {
      fault: Fault!
    }

    type CloseFaultPayload {
      fault: Fault!
    }

    extend type Query {
      "in id (creation) order"
      jobs(${CONNECTION_ARGS}, filter: JobFilter): JobConnection!
      job(id: ID!): Job
      "faults of a job and/or an asset (neither: the client's), in id order: last: n gives the newest n"
      faults(jobId: ID, assetId: ID, ${CONNECTION_ARGS}): FaultConnection!
    }

    extend type Mutation {
      createJob(input: CreateJobInput!): CreateJobPayload!
      startJob(input: JobTransitionInput!): StartJobPayload!
      pauseJob(input: JobTransitionInput!): PauseJobPayload!
      resumeJob(input: JobTransitionInput!): ResumeJobPayload!
      completeJob(input: JobTransitionInput!): CompleteJobPayload!
      cancelJob(input: CancelJobInput!): CancelJobPayload!
      recordStep(input: RecordStepInput!): RecordStepPayload!
      raiseFault(input: RaiseFaultInput!): RaiseFaultPayload!
      closeFault(input: CloseFaultInput!): CloseFaultPayload!
    }
  `,
  resolvers: {
    Query: {
      jobs: async (_: unknown, args: ConnectionArgs & { filter?: GraphQLJobFilter | null }, ctx: Ctx, info: GraphQLResolveInfo) => {
        const input = pageInput(args);
        const page = await listJobs(ctx.deps, ctx.actor, jobFilter(args.filter), input, jobColumns.of(info, ...NODES), pageRelations(info));
        const nodes = await readAhead(page, ctx, info);
        return toConnection({ ...page, items: nodes }, input, (node) => node);
      },
      job: async (_: unknown, args: { id: string }, ctx: Ctx) =>
        presentJob(await getJob(ctx.deps, ctx.actor, databaseIdOf(args.id, 'Job', 'id'))),
      faults: async (_: unknown, args: ConnectionArgs & { jobId?: string | null; assetId?: string | null }, ctx: Ctx) => {
        const input = pageInput(args);
        const filter = {
          jobId: optionalDatabaseIdOf(args.jobId, 'Job', 'jobId'),
          assetId: optionalDatabaseIdOf(args.assetId, 'Asset', 'assetId'),
        };
        return toConnection(await listFaults(ctx.deps, ctx.actor, filter, input), input, presentFault);
      },
    },
    Mutation: {
      createJob: async (
        _: unknown,
        {
          input,
        }: {
          input: CreateJobInput & {
            templateId: string;
            assetId?: string | null;
            assigneeIds?: string[] | null;
            stepOwners?: { stepId: string; userId: string }[] | null;
          };
        },
        ctx: Ctx,
      ) =>
        jobPayload(
          await createJob(ctx.deps, ctx.actor, {
            ...input,
            templateId: databaseIdOf(input.templateId, 'Template', 'input.templateId'),
            assetId: optionalDatabaseIdOf(input.assetId, 'Asset', 'input.assetId'),
            assigneeIds: databaseIdsOf(input.assigneeIds, 'User', 'input.assigneeIds'),
            stepOwners: input.stepOwners?.map((owner, i) => ({
              stepId: owner.stepId,
              userId: databaseIdOf(owner.userId, 'User', `input.stepOwners.${i}.userId`),
            })),
          }),
        ),
      startJob: transitionResolver('start'),
      pauseJob: transitionResolver('pause'),
      resumeJob: transitionResolver('resume'),
      completeJob: transitionResolver('complete'),
      cancelJob: transitionResolver('cancel'),
      recordStep: async (_: unknown, { input }: { input: RecordStepInput & { jobId: string } }, ctx: Ctx) => {
        const { job, record } = await recordStep(ctx.deps, ctx.actor, { ...input, jobId: databaseIdOf(input.jobId, 'Job', 'input.jobId') });
        // the record as written, with the file ids of its values as Job.records gives them (which fields hold files: the version's)
        const version = await ctx.loaders.versionContent.load(job.version_id);
        return { ...jobPayload(job), record: withFileIds(presentStepRecord(record), version?.content) };
      },
      raiseFault: async (
        _: unknown,
        { input }: { input: RaiseFaultInput & { jobId?: string | null; assetId?: string | null } },
        ctx: Ctx,
      ) => ({
        fault: presentFault(
          await raiseFault(ctx.deps, ctx.actor, {
            ...input,
            jobId: optionalDatabaseIdOf(input.jobId, 'Job', 'input.jobId'),
            assetId: optionalDatabaseIdOf(input.assetId, 'Asset', 'input.assetId'),
          }),
        ),
      }),
      closeFault: async (_: unknown, { input }: { input: { faultId: string; note: string } }, ctx: Ctx) => ({
        fault: presentFault(
          await closeFault(ctx.deps, ctx.actor, { faultId: databaseIdOf(input.faultId, 'Fault', 'input.faultId'), note: input.note }),
        ),
      }),
    },
    Job: {
      // a job of the jobs connection comes with these read ahead; any other job (by id, of a fault, of a mutation) loads them
      template: (job: JobNode, _: unknown, ctx: Ctx, info: GraphQLResolveInfo) =>
        job.ahead?.template ?? ctx.loaders.template(templateColumns.of(info)).load(job.templateId),
      version: (job: JobNode, _: unknown, ctx: Ctx, info: GraphQLResolveInfo) =>
        job.ahead?.version ?? ctx.loaders.version(versionColumns.of(info)).load(job.versionId),
      asset: (job: PresentedJob, _: unknown, ctx: Ctx) => (job.assetId === null ? null : ctx.loaders.asset.load(job.assetId)),
      assignees: (job: JobNode, _: unknown, ctx: Ctx, info: GraphQLResolveInfo) =>
        job.ahead?.members.assignees?.map((m) => m.user) ??
        members(job, 'ASSIGNEE', ctx, userColumns.of(info)).then((found) => found.map((m) => m.user)),
      coworkers: (job: JobNode, _: unknown, ctx: Ctx, info: GraphQLResolveInfo) =>
        job.ahead?.members.coworkers?.map((m) => m.user) ??
        members(job, 'COWORKER', ctx, userColumns.of(info)).then((found) => found.map((m) => m.user)),
      stepOwners: (job: JobNode, _: unknown, ctx: Ctx, info: GraphQLResolveInfo) =>
        job.ahead?.members.stepOwners ?? members(job, 'STEP_OWNER', ctx, userColumns.of(info, ['user'])),
      records: async (job: PresentedJob, _: unknown, ctx: Ctx) => {
        const [rows, version] = await Promise.all([ctx.loaders.stepRecords.load(job.id), ctx.loaders.versionContent.load(job.versionId)]);
        return rows.map((row) => withFileIds(presentStepRecord(row), version?.content));
      },
      steps: async (job: PresentedJob, _: unknown, ctx: Ctx) => {
        const [rows, version] = await Promise.all([ctx.loaders.stepRecords.load(job.id), ctx.loaders.versionContent.load(job.versionId)]);
        if (!version) return [];
        const records = new Map(rows.map((row) => [row.step_id, presentStepRecord(row)]));
        return applicability(version.content, records);
      },
      // a job's faults are batched for a page of jobs (one statement): paged in memory
      faults: async (job: PresentedJob, args: ConnectionArgs, ctx: Ctx) =>
        connectionFromArray(await ctx.loaders.jobFaults.load(job.id), args, presentFault),
      createdBy: (job: PresentedJob, _: unknown, ctx: Ctx, info: GraphQLResolveInfo) =>
        ctx.loaders.user(userColumns.of(info)).load(job.createdById),
      completionBlockers: async (job: PresentedJob, _: unknown, ctx: Ctx) => {
        const row: JobRow | undefined = await ctx.loaders.job.load(job.id);
        return row ? listCompletionBlockers(ctx.deps, ctx.actor, row) : [];
      },
    },
    // the templates module's diff lists job rows: presented here, where Job's fields are resolved
    VersionDiff: {
      jobsOnOlderVersion: (diff: { jobsOnOlderVersion: JobRow[] }, args: ConnectionArgs) =>
        connectionFromArray(
          [...diff.jobsOnOlderVersion].sort((a, b) => a.id - b.id),
          args,
          presentJob,
        ),
    },
    StepRecord: {
      recordedBy: (record: PresentedRecord, _: unknown, ctx: Ctx, info: GraphQLResolveInfo) =>
        ctx.loaders.user(userColumns.of(info)).load(record.recordedById),
    },
    Fault: {
      job: async (fault: PresentedFault, _: unknown, ctx: Ctx) => {
        const job: JobRow | undefined = fault.jobId === null ? undefined : await ctx.loaders.job.load(fault.jobId);
        return job ? presentJob(job) : null;
      },
      asset: (fault: PresentedFault, _: unknown, ctx: Ctx) => (fault.assetId === null ? null : ctx.loaders.asset.load(fault.assetId)),
      raisedBy: (fault: PresentedFault, _: unknown, ctx: Ctx, info: GraphQLResolveInfo) =>
        ctx.loaders.user(userColumns.of(info)).load(fault.raisedById),
      closedBy: (fault: PresentedFault, _: unknown, ctx: Ctx, info: GraphQLResolveInfo) =>
        fault.closedById === null ? null : ctx.loaders.user(userColumns.of(info)).load(fault.closedById),
    },
  },
};
