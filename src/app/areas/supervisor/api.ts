import { api, globalId, graphql, query } from '../../api/client';
import { QUALIFICATION_FIELDS, type QualificationCheck } from '../../rules/qualification';

/** The supervisor's reads and writes: REST /api/client/supervision/* (src/http/routes/client/supervision) and GraphQL createJob. */

export type JobState = 'OPEN' | 'IN_PROGRESS' | 'PAUSED' | 'COMPLETED' | 'CANCELLED' | 'REVIEWED';
export type Priority = 'HIGH' | 'MEDIUM' | 'LOW';

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
    status: 'FAILED' | 'SKIPPED';
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
    severity: 'LOW' | 'MEDIUM' | 'HIGH' | 'CRITICAL';
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
  publishedVersion: { number: number } | null;
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

// ── schedules of recurring jobs and follow-up jobs (issue 33, docs/recurring-and-follow-up-jobs.md) ──

export interface ScheduleSummary {
  id: string;
  databaseId: number;
  title: string;
  state: 'ACTIVE' | 'PAUSED';
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
