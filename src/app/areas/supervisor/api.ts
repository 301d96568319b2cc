import { api, globalId, graphql, query } from '../../api/client';
import { QUALIFICATION_FIELDS, type QualificationCheck } from '../../rules/qualification';
import type {
  FaultSeverity,
  JobPriority,
  JobState,
  MissedOccurrences,
  OccurrenceStatus,
  ScheduleState,
  StepStatus,
} from '../../../domain/vocabulary';
export type { JobState, MissedOccurrences } from '../../../domain/vocabulary';

/** The supervisor's reads and writes: REST /api/client/supervision/* (src/http/routes/client/supervision) and GraphQL createJob. */

/** a job's priority, as GraphQL names it */
export type Priority = JobPriority;

export interface Named {
  id: number;
  name: string;
}

export interface BoardJob {
  id: number;
  title: string;
  state: JobState;
  priority: Priority;
  dueAt: string | null;
  createdAt: string;
  startedAt: string | null;
  asset: Named | null;
  assignees: Named[];
}

export interface Deviations {
  days: number;
  since: string;
  outOfLimits: {
    job: { id: number; title: string };
    asset: Named | null;
    stepTitle: string;
    fieldLabel: string;
    value: number | null;
    unit: string | null;
    min: number | null;
    max: number | null;
    recordedBy: Named;
    recordedAt: string;
  }[];
  stepProblems: {
    job: { id: number; title: string };
    asset: Named | null;
    stepTitle: string;
    status: Exclude<StepStatus, 'DONE'>;
    reason: string | null;
    comment: string | null;
    recordedBy: Named;
    recordedAt: string;
  }[];
  recordsTruncated: boolean;
  unappliedChanges: {
    id: number;
    job: { id: number; title: string };
    asset: Named | null;
    detail: string;
    raisedBy: Named;
    raisedAt: string;
    acknowledged: boolean;
  }[];
  unappliedChangesTruncated: boolean;
  openFaults: {
    id: number;
    severity: FaultSeverity;
    description: string;
    job: { id: number; title: string } | null;
    asset: Named | null;
    raisedBy: Named;
    raisedAt: string;
  }[];
  openFaultsTruncated: boolean;
  overdueJobs: BoardJob[];
  overdueJobsTruncated: boolean;
}

export const jobBoard = () => api<{ jobs: BoardJob[]; truncated: boolean }>('GET', '/api/client/supervision/board');
export const assignableUsers = () =>
  api<{ users: { id: number; name: string; email: string; title: string }[]; truncated: boolean }>(
    'GET',
    '/api/client/supervision/assignees',
  );
export const deviations = (days: number) => api<Deviations>('GET', `/api/client/supervision/deviations${query({ days })}`);

/** users one qualification question may name (Template.assigneeQualifications) */
export const MAX_CHECKED_ASSIGNEES = 50;

/**
 * Whether each user could be given a job of the template now (the server's check createJob refuses with), by user id.
 * Users beyond the first MAX_CHECKED_ASSIGNEES are not asked.
 */
export async function assigneeQualifications(templateId: number, userIds: readonly number[]): Promise<Map<number, QualificationCheck>> {
  if (userIds.length === 0) return new Map();
  const data = await graphql<{ node: { assigneeQualifications: (QualificationCheck & { user: { databaseId: number } | null })[] } | null }>(
    `query AssigneeQualifications($id: ID!, $users: [ID!]!) {
      node(id: $id) { ... on Template { assigneeQualifications(userIds: $users) { user { databaseId } ${QUALIFICATION_FIELDS} } } }
    }`,
    { id: globalId('Template', templateId), users: userIds.slice(0, MAX_CHECKED_ASSIGNEES).map((id) => globalId('User', id)) },
  );
  return new Map((data.node?.assigneeQualifications ?? []).flatMap((c) => (c.user ? [[c.user.databaseId, c] as const] : [])));
}

export interface PublishedTemplate {
  databaseId: number;
  title: string;
  publishedVersion: { databaseId: number; number: number } | null;
  assetClass: { databaseId: number } | null;
}

/** Templates with a published version (what a job can be created from), found by title or description. */
export async function publishedTemplates(search: string): Promise<PublishedTemplate[]> {
  const data = await graphql<{ templates: { nodes: PublishedTemplate[] } }>(
    `
      query PublishedTemplates($search: String) {
        templates(first: 100, filter: { state: PUBLISHED, search: $search }) {
          nodes {
            databaseId
            title
            publishedVersion {
              databaseId
              number
            }
            assetClass {
              databaseId
            }
          }
        }
      }
    `,
    { search: search.trim() || null },
  );
  return data.templates.nodes.filter((t) => t.publishedVersion !== null);
}

export interface AssetOption {
  databaseId: number;
  name: string;
  serialNumber: string | null;
}

export async function assets(): Promise<AssetOption[]> {
  const data = await graphql<{ assets: { nodes: AssetOption[] } }>(`
    query Assets {
      assets(first: 100) {
        nodes {
          databaseId
          name
          serialNumber
        }
      }
    }
  `);
  return data.assets.nodes;
}

export interface NewJob {
  templateId: number;
  title: string;
  assetId: number | null;
  priority: Priority;
  /** ISO-8601 */
  dueAt: string | null;
  assigneeIds: number[];
}

export async function createJob(job: NewJob): Promise<{ databaseId: number }> {
  const data = await graphql<{ createJob: { job: { databaseId: number } } }>(
    `
      mutation CreateJob($input: CreateJobInput!) {
        createJob(input: $input) {
          job {
            databaseId
          }
        }
      }
    `,
    {
      input: {
        templateId: globalId('Template', job.templateId),
        title: job.title,
        assetId: job.assetId === null ? null : globalId('Asset', job.assetId),
        priority: job.priority,
        dueAt: job.dueAt,
        assigneeIds: job.assigneeIds.map((id) => globalId('User', id)),
      },
    },
  );
  return data.createJob.job;
}

// ── schedules of recurring jobs and follow-up jobs (docs/recurring-and-follow-up-jobs.md) ──

export interface ScheduleSummary {
  id: string;
  databaseId: number;
  title: string;
  state: ScheduleState;
  revision: number;
  recurrence: string;
  startsAt: string;
  timeZone: string;
  priority: Priority;
  template: { title: string };
  pinnedVersion: { number: number } | null;
  asset: { name: string } | null;
  assetClass: { name: string } | null;
  team: { name: string } | null;
  assignees: { firstName: string; lastName: string; email: string }[];
  nextOccurrences: string[];
}

/** The client's schedules with their next three occurrences. */
export async function schedules(): Promise<ScheduleSummary[]> {
  const data = await graphql<{ schedules: { nodes: ScheduleSummary[] } }>(`
    query Schedules {
      schedules(first: 100) {
        nodes {
          id
          databaseId
          title
          state
          revision
          recurrence
          startsAt
          timeZone
          priority
          template {
            title
          }
          pinnedVersion {
            number
          }
          asset {
            name
          }
          assetClass {
            name
          }
          team {
            name
          }
          assignees {
            firstName
            lastName
            email
          }
          nextOccurrences(first: 3)
        }
      }
    }
  `);
  return data.schedules.nodes;
}

/** Pauses or resumes a schedule at the revision shown (a stale one: CONFLICT). */
export async function setSchedulePaused(schedule: Pick<ScheduleSummary, 'id' | 'revision'>, paused: boolean): Promise<void> {
  const mutation = paused ? 'pauseSchedule' : 'resumeSchedule';
  await graphql(`mutation SetSchedulePaused($input: ScheduleTransitionInput!) { ${mutation}(input: $input) { revision } }`, {
    input: { scheduleId: schedule.id, expectedRevision: schedule.revision },
  });
}

/** The client's asset classes and organizations (teams), what a schedule can be for and assigned to. */
export async function classesAndTeams(): Promise<{ assetClasses: Named[]; teams: Named[] }> {
  const data = await graphql<{
    assetClasses: { nodes: { databaseId: number; name: string }[] };
    organizations: { nodes: { databaseId: number; name: string }[] };
  }>(`
    query ClassesAndTeams {
      assetClasses(first: 100) {
        nodes {
          databaseId
          name
        }
      }
      organizations(first: 100) {
        nodes {
          databaseId
          name
        }
      }
    }
  `);
  const named = (nodes: { databaseId: number; name: string }[]) => nodes.map((n) => ({ id: n.databaseId, name: n.name }));
  return { assetClasses: named(data.assetClasses.nodes), teams: named(data.organizations.nodes) };
}

export interface ScheduleOccurrence {
  occursAt: string;
  status: OccurrenceStatus;
  reason: string | null;
  asset: { name: string } | null;
  job: { databaseId: number; title: string; state: JobState } | null;
}

/** A schedule as its page and its form show it. */
export interface ScheduleDetails extends ScheduleSummary {
  template: { databaseId: number; title: string; publishedVersion: { databaseId: number; number: number } | null };
  pinnedVersion: { databaseId: number; number: number; state: string } | null;
  asset: { databaseId: number; name: string } | null;
  assetClass: { databaseId: number; name: string } | null;
  team: { databaseId: number; name: string } | null;
  assignees: { databaseId: number; firstName: string; lastName: string; email: string }[];
  dueOffsetMinutes: number | null;
  missedOccurrences: MissedOccurrences;
  occurrences: { totalCount: number; nodes: ScheduleOccurrence[] };
}

/** One schedule with its next five occurrences and the newest 50 it handled (null: not found, or deleted). */
export async function scheduleDetails(databaseId: number): Promise<ScheduleDetails | null> {
  const data = await graphql<{ node: ScheduleDetails | null }>(
    `
      query Schedule($id: ID!) {
        node(id: $id) {
          ... on Schedule {
            id
            databaseId
            title
            state
            revision
            recurrence
            startsAt
            timeZone
            priority
            dueOffsetMinutes
            missedOccurrences
            template {
              databaseId
              title
              publishedVersion {
                databaseId
                number
              }
            }
            pinnedVersion {
              databaseId
              number
              state
            }
            asset {
              databaseId
              name
            }
            assetClass {
              databaseId
              name
            }
            team {
              databaseId
              name
            }
            assignees {
              databaseId
              firstName
              lastName
              email
            }
            nextOccurrences(first: 5)
            occurrences(last: 50) {
              totalCount
              nodes {
                occursAt
                status
                reason
                asset {
                  name
                }
                job {
                  databaseId
                  title
                  state
                }
              }
            }
          }
        }
      }
    `,
    { id: globalId('Schedule', databaseId) },
  );
  return data.node?.databaseId ? data.node : null;
}

/** What the schedule form sends: createSchedule's input, every optional setting given (null clears it on an edit). */
export interface ScheduleInput {
  title: string;
  templateId: number;
  /** null: the version published at each occurrence */
  versionId: number | null;
  assetId: number | null;
  assetClassId: number | null;
  assigneeIds: number[];
  teamId: number | null;
  priority: Priority;
  dueOffsetMinutes: number | null;
  recurrence: string;
  startsAt: string;
  missedOccurrences: MissedOccurrences;
}

const scheduleInput = (input: ScheduleInput) => ({
  ...input,
  templateId: globalId('Template', input.templateId),
  versionId: input.versionId === null ? null : globalId('TemplateVersion', input.versionId),
  assetId: input.assetId === null ? null : globalId('Asset', input.assetId),
  assetClassId: input.assetClassId === null ? null : globalId('AssetClass', input.assetClassId),
  assigneeIds: input.assigneeIds.map((id) => globalId('User', id)),
  teamId: input.teamId === null ? null : globalId('Organization', input.teamId),
});

export async function createSchedule(input: ScheduleInput): Promise<{ databaseId: number }> {
  const data = await graphql<{ createSchedule: { schedule: { databaseId: number } } }>(
    `
      mutation CreateSchedule($input: CreateScheduleInput!) {
        createSchedule(input: $input) {
          schedule {
            databaseId
          }
        }
      }
    `,
    { input: scheduleInput(input) },
  );
  return data.createSchedule.schedule;
}

/** Saves an edit at the revision the form was opened at (a stale one: CONFLICT). */
export async function updateSchedule(schedule: Pick<ScheduleSummary, 'id' | 'revision'>, input: ScheduleInput): Promise<void> {
  await graphql(
    `
      mutation UpdateSchedule($input: UpdateScheduleInput!) {
        updateSchedule(input: $input) {
          revision
        }
      }
    `,
    {
      input: { ...scheduleInput(input), scheduleId: schedule.id, expectedRevision: schedule.revision },
    },
  );
}

export async function deleteSchedule(schedule: Pick<ScheduleSummary, 'id' | 'revision'>): Promise<void> {
  await graphql(
    `
      mutation DeleteSchedule($input: DeleteScheduleInput!) {
        deleteSchedule(input: $input) {
          deletedScheduleId
        }
      }
    `,
    {
      input: { scheduleId: schedule.id, expectedRevision: schedule.revision },
    },
  );
}

/** The next occurrences of a rule before it is saved, from the server (its checks: VALIDATION_ERROR at the field). */
export async function schedulePreview(recurrence: string, startsAt: string): Promise<{ timeZone: string; occurrences: string[] }> {
  const data = await graphql<{ schedulePreview: { timeZone: string; occurrences: string[] } }>(
    `
      query SchedulePreview($recurrence: String!, $startsAt: String!) {
        schedulePreview(recurrence: $recurrence, startsAt: $startsAt, first: 5) {
          timeZone
          occurrences
        }
      }
    `,
    { recurrence, startsAt },
  );
  return data.schedulePreview;
}

/** A job following up an open fault; with `closesFault` completing it closes the fault. */
export async function createFollowUpJob(input: {
  faultId: number;
  templateId: number;
  title: string | null;
  priority: Priority;
  closesFault: boolean;
}): Promise<{ databaseId: number }> {
  const data = await graphql<{ createFollowUpJob: { job: { databaseId: number } } }>(
    `
      mutation CreateFollowUpJob($input: CreateFollowUpJobInput!) {
        createFollowUpJob(input: $input) {
          job {
            databaseId
          }
        }
      }
    `,
    {
      input: {
        faultId: globalId('Fault', input.faultId),
        templateId: globalId('Template', input.templateId),
        ...(input.title && { title: input.title }),
        priority: input.priority,
        closesFault: input.closesFault,
      },
    },
  );
  return data.createFollowUpJob.job;
}
