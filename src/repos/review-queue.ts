import type { Kysely } from 'kysely';
import type { DB, JobRow, VersionState } from '#db/schema';
import { inTenant, type TenantScope } from '#db/tenant';
import { paginateCounted, type CountedPage, type PageInput } from '#db/pagination';
import { visibleTo, type TemplateVisibility } from './templates';
import { VERSION_SUMMARY_COLUMNS, type VersionSummaryRow } from './template-versions';

/**
 * What waits for a reviewer (versions in the states their roles act on) and
 * the jobs still running on older versions of a template: the reads behind
 * the floor app's review screens.
 */

export interface ReviewQueueFilter {
  /** the states whose versions the caller may move on (IN_REVIEW: approve or reject; APPROVED: publish) */
  states: readonly VersionState[];
  /**
   * separation of duties: IN_REVIEW versions this user created or last edited are left out (they cannot
   * approve them); null when the client allows self-approval
   */
  notAuthoredBy: number | null;
}

/** A page (version id order) of the versions of visible templates in `filter.states`, without their documents. */
export async function listReviewQueue(
  db: Kysely<DB>,
  scope: TenantScope,
  filter: ReviewQueueFilter,
  visibility: TemplateVisibility,
  page: PageInput,
): Promise<CountedPage<VersionSummaryRow>> {
  if (filter.states.length === 0) return { items: [], nextCursor: null, count: async () => 0 };
  let query = inTenant(db, scope)
    .selectFrom('template_versions')
    .innerJoin('templates', (join) =>
      join.onRef('templates.client_id', '=', 'template_versions.client_id').onRef('templates.id', '=', 'template_versions.template_id'),
    )
    .select(VERSION_SUMMARY_COLUMNS.map((column) => `template_versions.${column}` as const))
    .where('template_versions.state', 'in', [...filter.states]);
  const self = filter.notAuthoredBy;
  if (self !== null) {
    query = query.where((eb) =>
      eb.or([
        eb('template_versions.state', '!=', 'IN_REVIEW'),
        eb.and([eb('template_versions.created_by', '!=', self), eb('template_versions.updated_by', '!=', self)]),
      ]),
    );
  }
  if (visibility) query = query.where(visibleTo(visibility));
  return paginateCounted(query, page, 'template_versions.id');
}

/** Jobs still running (OPEN, IN_PROGRESS, PAUSED) on a template's versions numbered below `number`, a page in job id order. */
export async function listOpenJobsOnOlderVersions(
  db: Kysely<DB>,
  scope: TenantScope,
  templateId: number,
  number: number,
  page: PageInput,
): Promise<CountedPage<JobRow>> {
  const query = inTenant(db, scope)
    .selectFrom('jobs')
    .selectAll('jobs')
    .where('jobs.template_id', '=', templateId)
    .where('jobs.state', 'in', ['OPEN', 'IN_PROGRESS', 'PAUSED'])
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('template_versions as v')
          .select('v.id')
          .whereRef('v.client_id', '=', 'jobs.client_id')
          .whereRef('v.id', '=', 'jobs.version_id')
          .where('v.number', '<', number),
      ),
    );
  return paginateCounted(query, page, 'jobs.id');
}
