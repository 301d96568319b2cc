import { graphql } from '../../api/client';
import type { JobFilter, OperatorJobsQuery, OperatorJobsQueryVariables } from '../../api/operation-types';
import type { JobData } from '../../offline/job-data';
import { QUALIFICATION_FIELDS } from '../../rules/qualification';

/** The job lists of the operator (a small module: the home card needs it without the jobs page). */
export type JobSummary = Pick<
  JobData,
  'id' | 'databaseId' | 'title' | 'state' | 'priority' | 'dueAt' | 'asset' | 'template' | 'viewerQualification'
>;

const SUMMARY = `id databaseId title state priority dueAt asset { id name serialNumber } template { id title }
  viewerQualification { ${QUALIFICATION_FIELDS} }`;
export const JOBS = `query OperatorJobs($filter: JobFilter) { jobs(last: 100, filter: $filter) { nodes { ${SUMMARY} } } }`;
const OPEN_STATES = new Set(['OPEN', 'IN_PROGRESS', 'PAUSED']);
const PRIORITY_ORDER = { HIGH: 0, MEDIUM: 1, LOW: 2 } as const;

/** Open jobs first by priority, then by due date (none last). */
export function sortJobs(jobs: JobSummary[]): JobSummary[] {
  return jobs
    .filter((j) => OPEN_STATES.has(j.state))
    .sort(
      (a, b) =>
        PRIORITY_ORDER[a.priority] - PRIORITY_ORDER[b.priority] ||
        (a.dueAt ?? '9999').localeCompare(b.dueAt ?? '9999') ||
        a.databaseId - b.databaseId,
    );
}

export async function loadJobs(filter: JobFilter | null): Promise<JobSummary[]> {
  const data = await graphql<OperatorJobsQuery, OperatorJobsQueryVariables>(JOBS, { filter });
  return sortJobs(data.jobs.nodes);
}
