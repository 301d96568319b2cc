import { GraphQLError, responsePathAsArray, type GraphQLResolveInfo } from 'graphql';
import type { Deps } from '#deps';
import type { ErrorCode } from '#errors';
import { operationLimit } from '#http/middleware/rate-limit';
import type { SchemaModule } from '../module';
import type { GraphQLContext } from '../context';
import { CONNECTION_ARGS, connectionTypeDefs, pageInput, toConnection, type ConnectionArgs } from '../connection';
import { databaseIdOf, databaseIdsOf, globalId, optionalDatabaseIdOf } from '../ids';
import type { ScheduleRow } from '#db/schema';
import { presentFault, presentJob, type PresentedJob } from '#presenters/jobs';
import { presentOccurrence, presentSchedule, type PresentedOccurrence, type PresentedSchedule } from '#presenters/schedules';
import {
  createSchedule,
  deleteSchedule,
  listScheduleOccurrences,
  listSchedules,
  nextOccurrences,
  previewSchedule,
  transitionSchedule,
  updateSchedule,
  type CreateScheduleInput,
  type UpdateScheduleInput,
} from '#services/schedules';
import { createFollowUpJob, type CreateFollowUpJobInput } from '#services/follow-ups';
import type { ScheduleFilter } from '#repos/schedules';
import { userColumns } from './me';
import { templateColumns, versionColumns } from './templates';
import { MISSED_OCCURRENCES, OCCURRENCE_STATUSES, SCHEDULE_STATES } from '#domain/vocabulary';
import { enumSdl } from '../enum-sdl';

type Ctx = GraphQLContext;
type PresentedFault = ReturnType<typeof presentFault>;

/** A schedule row as the Schedule type resolves it: presented in the client's time zone. */
async function presented(row: ScheduleRow, ctx: Ctx): Promise<PresentedSchedule> {
  return presentSchedule(row, await ctx.loaders.timeZone.load(ctx.scope.clientId));
}

const schedulePayload = async (row: ScheduleRow, ctx: Ctx) => {
  const schedule = await presented(row, ctx);
  return { schedule, revision: schedule.revision };
};

/** The ids of a schedule input as the database ids the service takes (paths name the input's fields). */
function scheduleIds<
  T extends {
    templateId?: string | null;
    versionId?: string | null;
    assetId?: string | null;
    assetClassId?: string | null;
    teamId?: string | null;
    assigneeIds?: string[] | null;
  },
>(input: T) {
  return {
    ...(input.templateId !== undefined && { templateId: databaseIdOf(input.templateId, 'Template', 'input.templateId') }),
    ...(input.versionId !== undefined && { versionId: optionalDatabaseIdOf(input.versionId, 'TemplateVersion', 'input.versionId') }),
    ...(input.assetId !== undefined && { assetId: optionalDatabaseIdOf(input.assetId, 'Asset', 'input.assetId') }),
    ...(input.assetClassId !== undefined && { assetClassId: optionalDatabaseIdOf(input.assetClassId, 'AssetClass', 'input.assetClassId') }),
    ...(input.teamId !== undefined && { teamId: optionalDatabaseIdOf(input.teamId, 'Organization', 'input.teamId') }),
    ...(input.assigneeIds !== undefined && { assigneeIds: databaseIdsOf(input.assigneeIds, 'User', 'input.assigneeIds') }),
  };
}

type IdsAsStrings<T> = Omit<T, 'templateId' | 'versionId' | 'assetId' | 'assetClassId' | 'teamId' | 'assigneeIds' | 'scheduleId'> & {
  templateId?: string | null;
  versionId?: string | null;
  assetId?: string | null;
  assetClassId?: string | null;
  teamId?: string | null;
  assigneeIds?: string[] | null;
};

interface GraphQLScheduleFilter {
  templateId?: string | null;
  assetId?: string | null;
  state?: ScheduleFilter['state'];
}

/** How many next occurrences a schedule lists at most. */
const MAX_NEXT = 50;

/**
 * createSchedule and updateSchedule check their rule by walking it (refusing one that never occurs costs ≈ 60 ms,
 * up to ≈ 165 ms, of the event loop on a loaded 2-core machine): at most `scheduleRuleRateLimitMax` of them per user
 * and `rateLimitWindow`, far fewer than the `graphql` group's budget every other query shares.
 */
const ruleLimits = new WeakMap<Deps, Map<string, (id: string) => Promise<void>>>();
function ruleChecks(ctx: Ctx, namespace: 'schedule-rules' | 'schedule-previews' = 'schedule-rules'): Promise<void> {
  let limits = ruleLimits.get(ctx.deps);
  if (!limits) ruleLimits.set(ctx.deps, (limits = new Map<string, (id: string) => Promise<void>>()));
  let limit = limits.get(namespace);
  if (!limit) {
    const { scheduleRuleRateLimitMax: max, rateLimitWindow: windowMs } = ctx.deps.config;
    const what = namespace === 'schedule-rules' ? 'schedules saved' : 'schedule previews';
    limit = operationLimit(ctx.deps, { namespace, max, windowMs, what });
    limits.set(namespace, limit);
  }
  return limit(`user:${ctx.actor.userId}`);
}

/** Past the request's expansion budget: the occurrences at `info`'s path are what was found, maybe not all. */
const budgetError = (info: GraphQLResolveInfo) =>
  new GraphQLError(
    'This query expanded too many recurrence rules: the next occurrences of this schedule were not (all) computed; ask for fewer schedules',
    { path: responsePathAsArray(info.path), extensions: { code: 'EXPANSION_BUDGET_EXCEEDED' satisfies ErrorCode } },
  );

/**
 * Recurring jobs (schedules) and follow-up jobs of faults
 * (docs/recurring-and-follow-up-jobs.md). Thin resolvers: parse the ids, call
 * the service, present; relations through the per-request loaders.
 */
export const schedulesModule: SchemaModule = {
  typeDefs: /* GraphQL */ `
    ${enumSdl('ScheduleState', SCHEDULE_STATES)}

    "What the worker does with an occurrence whose time has already passed when it gets to it (the daemon was down, a gap)."
    ${enumSdl('MissedOccurrences', MISSED_OCCURRENCES)}

    ${enumSdl('OccurrenceStatus', OCCURRENCE_STATUSES)}

    "A schedule of recurring jobs: each occurrence of its recurrence becomes a job (one per asset of an asset class), created scheduleHorizon ahead, exactly once."
    type Schedule implements Node {
      id: ID!
      databaseId: Int!
      "the title of its jobs"
      title: String!
      template: Template!
      "the version its jobs run; null: the version published at each occurrence"
      pinnedVersion: TemplateVersion
      asset: Asset
      "one job per asset of the class at each occurrence"
      assetClass: AssetClass
      "a list: at most 100"
      assignees: [User!]!
      "an organization: its members who run jobs are assigned, as they are at each occurrence"
      team: Organization
      priority: Priority!
      "a job is due this many minutes after its occurrence (null: no due date)"
      dueOffsetMinutes: Int
      "an RFC 5545 RRULE (FREQ=WEEKLY;BYDAY=MO)"
      recurrence: String!
      "the first occurrence, a local wall-clock time YYYY-MM-DDTHH:mm in timeZone (DTSTART)"
      startsAt: String!
      "the client's IANA time zone: the recurrence follows its wall clock across daylight-saving changes"
      timeZone: String!
      missedOccurrences: MissedOccurrences!
      state: ScheduleState!
      "incremented by every edit; send it back as expectedRevision"
      revision: Int!
      "occurrences up to this instant have been handled"
      generatedUntil: DateTime!
      "the next occurrences from now (none while paused), at most 50"
      nextOccurrences(first: Int = 5): [DateTime!]!
      "what each occurrence handled so far became, in handling order"
      occurrences(${CONNECTION_ARGS}): ScheduleOccurrenceConnection!
      createdBy: User
      createdAt: DateTime!
      updatedAt: DateTime!
    }

    type ScheduleOccurrence {
      occursAt: DateTime!
      asset: Asset
      status: OccurrenceStatus!
      "why it was skipped: MISSED (its time had passed and the schedule skips those), NO_PUBLISHED_VERSION, NO_ASSETS, DAILY_LIMIT (the schedule's jobs of 24 hours reached scheduleMaxJobsPerDay)"
      reason: String
      "the job it became (null when skipped, or withdrawn)"
      job: Job
      handledAt: DateTime!
    }

    ${connectionTypeDefs('Schedule')}
    ${connectionTypeDefs('ScheduleOccurrence')}

    input ScheduleFilter {
      templateId: ID
      assetId: ID
      state: ScheduleState
    }

    input CreateScheduleInput {
      title: String!
      templateId: ID!
      "pin this PUBLISHED version; omitted: each occurrence runs the version published then"
      versionId: ID
      "an asset or an asset class, not both"
      assetId: ID
      assetClassId: ID
      "assignees or a team, not both"
      assigneeIds: [ID!]
      teamId: ID
      priority: Priority
      dueOffsetMinutes: Int
      "an RFC 5545 RRULE: FREQ (YEARLY … HOURLY), INTERVAL, BYDAY, BYMONTHDAY, BYHOUR, COUNT, UNTIL…; no DTSTART or TZID"
      recurrence: String!
      "the first occurrence, local wall-clock time YYYY-MM-DDTHH:mm in the client's time zone"
      startsAt: String!
      "default CREATE"
      missedOccurrences: MissedOccurrences
    }

    "What is given changes (null clears an optional setting); occurrences still to come follow the edit."
    input UpdateScheduleInput {
      scheduleId: ID!
      expectedRevision: Int
      title: String
      templateId: ID
      versionId: ID
      assetId: ID
      assetClassId: ID
      assigneeIds: [ID!]
      teamId: ID
      priority: Priority
      dueOffsetMinutes: Int
      recurrence: String
      startsAt: String
      missedOccurrences: MissedOccurrences
    }

    input ScheduleTransitionInput {
      scheduleId: ID!
      expectedRevision: Int
    }

    input DeleteScheduleInput {
      scheduleId: ID!
      expectedRevision: Int
    }

    type CreateSchedulePayload {
      schedule: Schedule!
      revision: Int!
    }

    type UpdateSchedulePayload {
      schedule: Schedule!
      revision: Int!
    }

    type PauseSchedulePayload {
      schedule: Schedule!
      revision: Int!
    }

    type ResumeSchedulePayload {
      schedule: Schedule!
      revision: Int!
    }

    type DeleteSchedulePayload {
      deletedScheduleId: ID!
    }

    "A step of a job recorded FAILED: its newest open fault is followed up (one is raised when it has none)."
    input FailedStepInput {
      jobId: ID!
      "the step's stable key (Step.stepId)"
      stepId: String!
    }

    input CreateFollowUpJobInput {
      "the fault to follow up; or failedStep"
      faultId: ID
      failedStep: FailedStepInput
      "a template with a published version"
      templateId: ID!
      "default: Follow-up: and the fault's description"
      title: String
      "default: the fault's asset"
      assetId: ID
      priority: Priority
      assigneeIds: [ID!]
      dueAt: DateTime
      "completing the job closes the fault"
      closesFault: Boolean
    }

    type CreateFollowUpJobPayload {
      job: Job!
      "the fault the job follows up (raised for a failed step when it had none)"
      fault: Fault!
      revision: Int!
    }

    extend type Job {
      "the schedule the job was made by (null for a job created by hand)"
      schedule: Schedule
      "the occurrence of its schedule the job is for"
      scheduledFor: DateTime
      "the fault this job follows up"
      followUpOf: Fault
      "whether completing this follow-up job closes its fault"
      closesFault: Boolean!
    }

    extend type Fault {
      "a list: the follow-up jobs created from this fault, oldest first"
      followUpJobs: [Job!]!
    }

    "A rule's next occurrences before it is saved: what the schedule would make, in the client's time zone."
    type SchedulePreview {
      "the client's IANA time zone the rule recurs in"
      timeZone: String!
      "the next occurrences from now (at most 50), as UTC instants"
      occurrences: [DateTime!]!
    }

    extend type Query {
      "the client's schedules (not deleted), in id (creation) order"
      schedules(${CONNECTION_ARGS}, filter: ScheduleFilter): ScheduleConnection!
      "the next occurrences of a rule and start not saved yet (createSchedule's checks: VALIDATION_ERROR on recurrence or startsAt); for the roles that plan work"
      schedulePreview(recurrence: String!, startsAt: String!, first: Int = 5): SchedulePreview!
    }

    extend type Mutation {
      createSchedule(input: CreateScheduleInput!): CreateSchedulePayload!
      "occurrences still to come follow the edit; their untouched jobs created ahead are withdrawn (cancelled) and made anew"
      updateSchedule(input: UpdateScheduleInput!): UpdateSchedulePayload!
      "no occurrence while paused; untouched jobs created ahead are withdrawn"
      pauseSchedule(input: ScheduleTransitionInput!): PauseSchedulePayload!
      "goes on from now: occurrences that passed while paused are not made"
      resumeSchedule(input: ScheduleTransitionInput!): ResumeSchedulePayload!
      "no more occurrences; its jobs stay (untouched future ones are withdrawn)"
      deleteSchedule(input: DeleteScheduleInput!): DeleteSchedulePayload!
      "a job from a published template following up a fault or a FAILED step; the job and the fault name each other"
      createFollowUpJob(input: CreateFollowUpJobInput!): CreateFollowUpJobPayload!
    }
  `,
  resolvers: {
    Query: {
      schedules: async (_: unknown, args: ConnectionArgs & { filter?: GraphQLScheduleFilter | null }, ctx: Ctx) => {
        const input = pageInput(args);
        const filter: ScheduleFilter = {
          state: args.filter?.state,
          templateId: optionalDatabaseIdOf(args.filter?.templateId, 'Template', 'filter.templateId'),
          assetId: optionalDatabaseIdOf(args.filter?.assetId, 'Asset', 'filter.assetId'),
        };
        const page = await listSchedules(ctx.deps, ctx.actor, filter, input);
        const timeZone = await ctx.loaders.timeZone.load(ctx.scope.clientId);
        return toConnection(page, input, (row) => presentSchedule(row, timeZone));
      },
      // walks a rule like a save does, so it counts against a limit like theirs (a count of its own: previews
      // while typing must not use up the saves)
      schedulePreview: async (
        _: unknown,
        args: { recurrence: string; startsAt: string; first?: number | null },
        ctx: Ctx,
        info: GraphQLResolveInfo,
      ) => {
        await ruleChecks(ctx, 'schedule-previews');
        const count = Math.max(0, Math.min(MAX_NEXT, args.first ?? 5));
        const preview = await previewSchedule(ctx.deps, ctx.actor, args, count, ctx.expansion);
        if (preview.budgetSpent) ctx.partialErrors.push(budgetError(info));
        return { timeZone: preview.timeZone, occurrences: preview.instants.map((d) => d.toISOString()) };
      },
    },
    Mutation: {
      createSchedule: async (_: unknown, { input }: { input: IdsAsStrings<CreateScheduleInput> }, ctx: Ctx) => {
        await ruleChecks(ctx);
        return schedulePayload(await createSchedule(ctx.deps, ctx.actor, { ...input, ...scheduleIds(input) } as CreateScheduleInput), ctx);
      },
      updateSchedule: async (_: unknown, { input }: { input: IdsAsStrings<UpdateScheduleInput> & { scheduleId: string } }, ctx: Ctx) => {
        await ruleChecks(ctx);
        return schedulePayload(
          await updateSchedule(ctx.deps, ctx.actor, {
            ...input,
            ...scheduleIds(input),
            scheduleId: databaseIdOf(input.scheduleId, 'Schedule', 'input.scheduleId'),
          } as UpdateScheduleInput),
          ctx,
        );
      },
      pauseSchedule: async (_: unknown, { input }: { input: { scheduleId: string; expectedRevision?: number | null } }, ctx: Ctx) =>
        schedulePayload(
          await transitionSchedule(ctx.deps, ctx.actor, {
            scheduleId: databaseIdOf(input.scheduleId, 'Schedule', 'input.scheduleId'),
            action: 'pause',
            expectedRevision: input.expectedRevision,
          }),
          ctx,
        ),
      resumeSchedule: async (_: unknown, { input }: { input: { scheduleId: string; expectedRevision?: number | null } }, ctx: Ctx) =>
        schedulePayload(
          await transitionSchedule(ctx.deps, ctx.actor, {
            scheduleId: databaseIdOf(input.scheduleId, 'Schedule', 'input.scheduleId'),
            action: 'resume',
            expectedRevision: input.expectedRevision,
          }),
          ctx,
        ),
      deleteSchedule: async (_: unknown, { input }: { input: { scheduleId: string; expectedRevision?: number | null } }, ctx: Ctx) => {
        const deleted = await deleteSchedule(ctx.deps, ctx.actor, {
          scheduleId: databaseIdOf(input.scheduleId, 'Schedule', 'input.scheduleId'),
          expectedRevision: input.expectedRevision,
        });
        return { deletedScheduleId: globalId('Schedule', deleted.id) };
      },
      createFollowUpJob: async (
        _: unknown,
        {
          input,
        }: {
          input: Omit<CreateFollowUpJobInput, 'faultId' | 'failedStep' | 'templateId' | 'assetId' | 'assigneeIds'> & {
            faultId?: string | null;
            failedStep?: { jobId: string; stepId: string } | null;
            templateId: string;
            assetId?: string | null;
            assigneeIds?: string[] | null;
          };
        },
        ctx: Ctx,
      ) => {
        const { assetId, ...rest } = input;
        const { job, fault } = await createFollowUpJob(ctx.deps, ctx.actor, {
          ...rest,
          faultId: optionalDatabaseIdOf(input.faultId, 'Fault', 'input.faultId'),
          failedStep: input.failedStep && {
            jobId: databaseIdOf(input.failedStep.jobId, 'Job', 'input.failedStep.jobId'),
            stepId: input.failedStep.stepId,
          },
          templateId: databaseIdOf(input.templateId, 'Template', 'input.templateId'),
          // omitted: the fault's asset; null: none
          ...(assetId !== undefined && { assetId: optionalDatabaseIdOf(assetId, 'Asset', 'input.assetId') }),
          assigneeIds: databaseIdsOf(input.assigneeIds, 'User', 'input.assigneeIds'),
        });
        return { job: presentJob(job), fault: presentFault(fault), revision: job.revision };
      },
    },
    Schedule: {
      template: (s: PresentedSchedule, _: unknown, ctx: Ctx, info: GraphQLResolveInfo) =>
        ctx.loaders.template(templateColumns.of(info)).load(s.templateId),
      pinnedVersion: (s: PresentedSchedule, _: unknown, ctx: Ctx, info: GraphQLResolveInfo) =>
        s.pinnedVersionId === null ? null : ctx.loaders.version(versionColumns.of(info)).load(s.pinnedVersionId),
      asset: (s: PresentedSchedule, _: unknown, ctx: Ctx) => (s.assetId === null ? null : ctx.loaders.asset.load(s.assetId)),
      assetClass: (s: PresentedSchedule, _: unknown, ctx: Ctx) =>
        s.assetClassId === null ? null : ctx.loaders.assetClass.load(s.assetClassId),
      team: (s: PresentedSchedule, _: unknown, ctx: Ctx) => (s.teamId === null ? null : ctx.loaders.organization.load(s.teamId)),
      assignees: async (s: PresentedSchedule, _: unknown, ctx: Ctx, info: GraphQLResolveInfo) => {
        const users = await ctx.loaders.user(userColumns.of(info)).loadMany(s.assigneeIds);
        return users.filter((u) => u && !(u instanceof Error));
      },
      // the request's schedules share one expansion budget (REQUEST_EXPANSION_STEPS); past it a schedule answers
      // what it found (often nothing) and an EXPANSION_BUDGET_EXCEEDED error on its path says the list is incomplete
      nextOccurrences: async (s: PresentedSchedule, args: { first?: number | null }, ctx: Ctx, info: GraphQLResolveInfo) => {
        const count = Math.max(0, Math.min(MAX_NEXT, args.first ?? 5));
        const definition = { rrule: s.recurrence, starts_at: s.startsAt, state: s.state, deleted_at: s.deletedAt };
        const { instants, budgetSpent } = nextOccurrences(ctx.deps, definition, s.timeZone, count, ctx.expansion);
        if (budgetSpent) ctx.partialErrors.push(budgetError(info));
        return instants.map((d) => d.toISOString());
      },
      occurrences: async (s: PresentedSchedule, args: ConnectionArgs, ctx: Ctx) => {
        const input = pageInput(args);
        return toConnection(await listScheduleOccurrences(ctx.deps, ctx.actor, s.id, input), input, presentOccurrence);
      },
      createdBy: (s: PresentedSchedule, _: unknown, ctx: Ctx, info: GraphQLResolveInfo) =>
        ctx.loaders.user(userColumns.of(info)).load(s.createdById),
    },
    ScheduleOccurrence: {
      asset: (o: PresentedOccurrence, _: unknown, ctx: Ctx) => (o.assetId === null ? null : ctx.loaders.asset.load(o.assetId)),
      job: async (o: PresentedOccurrence, _: unknown, ctx: Ctx) => {
        const job = o.jobId === null ? undefined : await ctx.loaders.job.load(o.jobId);
        return job ? presentJob(job) : null;
      },
    },
    Job: {
      schedule: async (job: PresentedJob, _: unknown, ctx: Ctx) => {
        const occurrence = await ctx.loaders.occurrenceOfJob.load(job.id);
        const row = occurrence && (await ctx.loaders.schedule.load(occurrence.schedule_id));
        return row ? presented(row, ctx) : null;
      },
      scheduledFor: async (job: PresentedJob, _: unknown, ctx: Ctx) => (await ctx.loaders.occurrenceOfJob.load(job.id))?.occurs_at ?? null,
      followUpOf: async (job: PresentedJob, _: unknown, ctx: Ctx) => {
        const link = await ctx.loaders.followUpOfJob.load(job.id);
        const fault = link && (await ctx.loaders.fault.load(link.fault_id));
        return fault ? presentFault(fault) : null;
      },
      closesFault: async (job: PresentedJob, _: unknown, ctx: Ctx) => (await ctx.loaders.followUpOfJob.load(job.id))?.closes_fault === 1,
    },
    Fault: {
      followUpJobs: async (fault: PresentedFault, _: unknown, ctx: Ctx) => {
        const links = await ctx.loaders.followUpsOfFault.load(fault.id);
        const jobs = await ctx.loaders.job.loadMany(links.map((l) => l.job_id));
        return jobs.flatMap((job) => (job && !(job instanceof Error) ? [presentJob(job)] : []));
      },
    },
  },
};
