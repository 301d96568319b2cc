import { loadStepSignatures } from '#repos/step-signatures';
import DataLoader from 'dataloader';
import { loadSkillsByIds } from '#repos/skills';
import type { Deps } from '#deps';
import type { TenantScope } from '#db/tenant';
import type { UserSummary, UserSummaryColumn } from '#repos/users';
import type { ColumnSet } from '#db/columns';
import { loadRolesOfUsers, loadUserRowsByIds } from '#repos/users';
import { loadTemplateOrganizations, loadTemplatesByIds, type TemplateColumn } from '#repos/templates';
import {
  loadSignaturesByVersionIds,
  loadVersionContents,
  loadVersionSummariesByIds,
  loadVersionsByTemplateIds,
  type VersionSummaryColumn,
} from '#repos/template-versions';
import { deserializeContent, type Content } from '#domain/content';
import {
  presentSignature,
  presentTemplate,
  presentVersion,
  presentVersionSummary,
  type PresentedTemplate,
  type PresentedVersionSummary,
} from '#presenters/templates';
import { latestReadings } from '#repos/sensors';
import type { SensorReadingRow } from '#db/schema';
import {
  loadCatalogueByIds,
  type AssetClassRow,
  type AssetRow,
  type LocationRow,
  type OrganizationRow,
  type SensorRow,
} from '#repos/catalogue';
import { loadJobMemberships, loadJobsByIds, loadStepRecords } from '#repos/jobs';
import { loadFaultsByIds, loadFaultsOfJobs } from '#repos/faults';
import { loadFollowUpsOfFaults, loadFollowUpsOfJobs, loadOccurrencesOfJobs, loadSchedulesByIds } from '#repos/schedules';
import { findClientsByIds } from '#repos/clients';
import { findFilesByIds } from '#repos/files';
import { loadDeviations, loadJobReviews } from '#repos/deviations';
import { loadHandOffsOfJobs } from '#repos/hand-offs';

/**
 * Per-request DataLoaders built from tenant-scoped repo functions: a resolver
 * asks for one row, the loader batches every ask of the same tick into one
 * `where id in (…)` statement. An id of another client simply is not found.
 * Domain modules add their loaders here.
 */
export function createLoaders(deps: Deps, scope: TenantScope) {
  const db = deps.db.kysely;
  return {
    /**
     * users without their roles (User.roles loads them, one more statement, only when a query asks), with the
     * columns a place of the query selects (src/graphql/columns.ts): `loaders.user(userColumns.of(info))`
     */
    user: perColumnSet((columns: ColumnSet<UserSummaryColumn>) =>
      byId<Omit<UserSummary, 'roles'>>((ids) => loadUserRowsByIds(db, scope, ids, columns)),
    ),
    rolesOfUser: new DataLoader<number, string[]>(async (ids) => {
      const byUser = await loadRolesOfUsers(db, scope, ids);
      return ids.map((id) => byUser.get(id) ?? []);
    }),
    // templates: presented objects (what the Template and TemplateVersion types resolve from)
    template: perColumnSet((columns: ColumnSet<TemplateColumn>) =>
      byId<PresentedTemplate>(async (ids) => (await loadTemplatesByIds(db, scope, ids, columns)).map(presentTemplate)),
    ),
    /** versions without their document (a page of jobs seldom shows it: 50 documents are ~100 KB to read and parse) */
    version: perColumnSet((columns: ColumnSet<VersionSummaryColumn>) =>
      byId<PresentedVersionSummary>(async (ids) => (await loadVersionSummariesByIds(db, scope, ids, columns)).map(presentVersionSummary)),
    ),
    /** a version's document, parsed, when a field asks for it */
    versionContent: byId<{ id: number; content: Content }>(async (ids) =>
      (await loadVersionContents(db, scope, ids)).map((row) => ({ id: row.id, content: deserializeContent(row.content) })),
    ),
    versionsByTemplate: listBy(
      async (ids) => (await loadVersionsByTemplateIds(db, scope, ids)).map(presentVersion),
      (v) => v.templateId,
    ),
    signaturesByVersion: listBy(
      async (ids) => (await loadSignaturesByVersionIds(db, scope, ids)).map(presentSignature),
      (s) => s.versionId,
    ),
    /** organization rows (as the Organization type resolves them) each template is available to */
    organizationsByTemplate: listBy(
      (ids) => loadTemplateOrganizations(db, scope, ids),
      (o) => o.template_id,
    ),
    // catalogue rows by id: the GraphQL types Asset, AssetClass, Location, Organization, Sensor resolve from these rows
    asset: byId<AssetRow>((ids) => loadCatalogueByIds(db, scope, 'assets', ids)),
    assetClass: byId<AssetClassRow>((ids) => loadCatalogueByIds(db, scope, 'asset_classes', ids)),
    location: byId<LocationRow>((ids) => loadCatalogueByIds(db, scope, 'locations', ids)),
    organization: byId<OrganizationRow>((ids) => loadCatalogueByIds(db, scope, 'organizations', ids)),
    sensor: byId<SensorRow>((ids) => loadCatalogueByIds(db, scope, 'sensors', ids)),
    /** the newest reading of a sensor, by sensor id */
    latestReading: byKey<SensorReadingRow>(
      (ids) => latestReadings(db, scope, ids),
      (row) => row.sensor_id,
    ),
    // jobs: rows (the Job, StepRecord and Fault types resolve from presented rows)
    job: byId((ids) => loadJobsByIds(db, scope, ids)),
    jobMembers: listBy(
      (ids) => loadJobMemberships(db, scope, ids),
      (row) => row.job_id,
    ),
    stepRecords: listBy(
      (ids) => loadStepRecords(db, scope, ids),
      (row) => row.job_id,
    ),
    /** step sign-offs (docs/execution-rules.md) of a page of jobs: one statement */
    stepSignatures: listBy(
      (ids) => loadStepSignatures(db, scope, ids),
      (row) => row.job_id,
    ),
    jobFaults: listBy(
      (ids) => loadFaultsOfJobs(db, scope, ids),
      (row) => row.job_id!,
    ),
    /** deviations and the REVIEWED signature (docs/execution-rules.md) of a page of jobs: one statement each */
    jobDeviations: listBy(
      (ids) => loadDeviations(db, scope, ids),
      (row) => row.job_id,
    ),
    /** hand-offs (docs/api/contract.md 4.6) of a page of jobs: one statement */
    jobHandOffs: listBy(
      (ids) => loadHandOffsOfJobs(db, scope, ids),
      (row) => row.job_id,
    ),
    jobReviews: listBy(
      (ids) => loadJobReviews(db, scope, ids),
      (row) => row.job_id,
    ),
    file: byId((ids) => findFilesByIds(db, scope, ids)),
    skill: byId((ids) => loadSkillsByIds(db, scope, ids)),
    // recurring and follow-up jobs (docs/recurring-and-follow-up-jobs.md): rows
    fault: byId((ids) => loadFaultsByIds(db, scope, ids)),
    schedule: byId((ids) => loadSchedulesByIds(db, scope, ids)),
    /** the occurrence a job was made for (a job of a schedule has one) */
    occurrenceOfJob: byKey(
      (ids) => loadOccurrencesOfJobs(db, scope, ids),
      (row) => row.job_id!,
    ),
    /** the fault a follow-up job follows up */
    followUpOfJob: byKey(
      (ids) => loadFollowUpsOfJobs(db, scope, ids),
      (row) => row.job_id,
    ),
    followUpsOfFault: listBy(
      (ids) => loadFollowUpsOfFaults(db, scope, ids),
      (row) => row.fault_id,
    ),
    /** the caller's client's time zone (schedules recur in it), read once per request */
    timeZone: new DataLoader<number, string>(async (ids) => {
      const clients = await findClientsByIds(db, [scope.clientId]);
      return ids.map(() => clients[0]?.time_zone ?? 'UTC');
    }),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;

/**
 * One loader per column set, made on first use in the request: places of a query selecting different
 * fields of a type read different columns (and batch apart); a row loaded with fewer columns is never
 * handed to a place that needs more.
 */
function perColumnSet<C extends string, L>(make: (columns: ColumnSet<C>) => L): (columns: ColumnSet<C>) => L {
  const loaders = new Map<string, L>();
  return (columns) => {
    let loader = loaders.get(columns.key);
    if (!loader) loaders.set(columns.key, (loader = make(columns)));
    return loader;
  };
}

/** A loader of rows by integer id; missing ids load as undefined. */
export function byId<T extends { id: number }>(load: (ids: number[]) => Promise<T[]>): DataLoader<number, T | undefined> {
  return byKey(load, (row) => row.id);
}

/** A loader of at most one row per integer key other than the row's id (e.g. a sensor's latest reading). */
export function byKey<T>(load: (keys: number[]) => Promise<T[]>, keyOf: (row: T) => number): DataLoader<number, T | undefined> {
  return new DataLoader<number, T | undefined>(async (keys) => {
    const map = new Map((await load([...keys])).map((row) => [keyOf(row), row]));
    return keys.map((key) => map.get(key));
  });
}

/** A loader of row lists by a parent id (e.g. versions of templates). */
export function listBy<T>(load: (ids: number[]) => Promise<T[]>, parentOf: (row: T) => number): DataLoader<number, T[]> {
  return new DataLoader<number, T[]>(async (ids) => {
    const rows = await load([...ids]);
    const groups = new Map<number, T[]>();
    for (const row of rows) {
      const key = parentOf(row);
      const list = groups.get(key) ?? [];
      list.push(row);
      groups.set(key, list);
    }
    return ids.map((id) => groups.get(id) ?? []);
  });
}
