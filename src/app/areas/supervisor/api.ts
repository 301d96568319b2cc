import { api, globalId, graphql, query } from '../../api/client';

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
  stepProblems: { job: { id: number; title: string }; asset: Named | null; stepTitle: string; status: 'FAILED' | 'SKIPPED'; reason: string | null; comment: string | null; recordedBy: Named; recordedAt: string }[];
  recordsTruncated: boolean;
  openFaults: { id: number; severity: 'LOW' | 'MEDIUM' | 'HIGH' | 'CRITICAL'; description: string; job: { id: number; title: string } | null; asset: Named | null; raisedBy: Named; raisedAt: string }[];
  openFaultsTruncated: boolean;
  overdueJobs: BoardJob[];
  overdueJobsTruncated: boolean;
}

export const jobBoard = () => api<{ jobs: BoardJob[]; truncated: boolean }>('GET', '/api/client/supervision/board');
export const assignableUsers = () => api<{ users: { id: number; name: string; email: string; title: string }[]; truncated: boolean }>('GET', '/api/client/supervision/assignees');
export const deviations = (days: number) => api<Deviations>('GET', `/api/client/supervision/deviations${query({ days })}`);

export interface PublishedTemplate {
  databaseId: number;
  title: string;
  publishedVersion: { number: number } | null;
  assetClass: { databaseId: number } | null;
}

/** Templates with a published version (what a job can be created from), found by title or description. */
export async function publishedTemplates(search: string): Promise<PublishedTemplate[]> {
  const data = await graphql<{ templates: { nodes: PublishedTemplate[] } }>(
    `query PublishedTemplates($search: String) {
      templates(first: 100, filter: { state: PUBLISHED, search: $search }) { nodes { databaseId title publishedVersion { number } assetClass { databaseId } } }
    }`,
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
  const data = await graphql<{ assets: { nodes: AssetOption[] } }>(`query Assets { assets(first: 100) { nodes { databaseId name serialNumber } } }`);
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
    `mutation CreateJob($input: CreateJobInput!) { createJob(input: $input) { job { databaseId } } }`,
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
