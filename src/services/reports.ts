import type { Deps } from '#deps';
import type { UserStatus } from '#db/schema';
import { tenantScope, type TenantScope } from '#db/tenant';
import { bucketsBetween, countBuckets, PERIODS, type Period } from '#db/time-buckets';
import type { Page, PageInput } from '#db/pagination';
import { fieldError, notFound } from '#errors';
import { LICENSE_TYPES } from '#policies/roles';
import { findClientById, listClients } from '#repos/clients';
import {
  countActiveUsers,
  countJobs,
  countStepsRecorded,
  countEvents,
  sumStorageAdded,
  filterIdsExist,
  FILTER_VALUES_LIMIT,
  listFilterValues,
  type UsageFilter,
} from '#repos/usage';
import { listUserReportRows, listUserReportRowsAcrossClients, type UserReportRow } from '#repos/user-report';
import type { Actor } from './actor';

/** A report spans at most this many buckets (day: about 2¾ years). */
export const MAX_BUCKETS = 1000;
/** Without `from`, a report covers this many days up to `to`. */
export const DEFAULT_RANGE_DAYS = 30;

const DAY_MS = 86_400_000;

export interface DateRange {
  /** YYYY-MM-DD, inclusive (UTC) */
  from?: string;
  /** YYYY-MM-DD, inclusive (UTC); default today */
  to?: string;
}

/** Whole UTC days [from 00:00, the day after `to` 00:00); defaults: the last 30 days up to today. */
function resolveRange(deps: Pick<Deps, 'clock'>, range: DateRange): { from: Date; to: Date; fromDay: string; toDay: string } {
  const toDay = range.to ?? deps.clock.now().toISOString().slice(0, 10);
  const end = new Date(Date.parse(`${toDay}T00:00:00.000Z`) + DAY_MS);
  const from = range.from ? new Date(`${range.from}T00:00:00.000Z`) : new Date(end.getTime() - DEFAULT_RANGE_DAYS * DAY_MS);
  if (from >= end) throw fieldError('query.from', 'must not be after to');
  return { from, to: end, fromDay: from.toISOString().slice(0, 10), toDay };
}

export interface MeterReportInput extends DateRange {
  period: Period;
  userId?: number;
  licenseType?: string;
  templateId?: number;
  organizationId?: number;
}

export interface ActiveUsers {
  total: number;
  byLicenseType: Record<string, number>;
}

export interface MeterRow {
  bucket: string;
  start: string;
  end: string;
  activeUsers: ActiveUsers;
  jobsStarted: number;
  jobsCompleted: number;
  stepsRecorded: number;
  /**
   * Bytes of distinct content the client stores (what its storage quota
   * counts) at the end of the bucket; client-wide, whatever the filters.
   * Content deleted since no longer counts.
   */
  storageBytes: number;
}

export interface MeterReport {
  period: Period;
  from: string;
  to: string;
  filters: { userId: number | null; licenseType: string | null; templateId: number | null; organizationId: number | null };
  buckets: MeterRow[];
  totals: Omit<MeterRow, 'bucket' | 'start' | 'end'>;
}

function activeUsers(byType: Map<string, number> | undefined): ActiveUsers {
  const byLicenseType: Record<string, number> = Object.fromEntries(LICENSE_TYPES.map((t) => [t, byType?.get(t) ?? 0]));
  return { total: [...(byType?.values() ?? [])].reduce((a, b) => a + b, 0), byLicenseType };
}

/**
 * Usage metering of the caller's client per day, ISO week (from Monday) or
 * month, UTC: active users per license type, jobs started and completed,
 * steps recorded, storage held. Every number is counted in SQL (src/repos/usage.ts). A
 * filter id that is not the client's is NOT_FOUND.
 * @throws AppError NOT_FOUND (userId, templateId, organizationId of another client), VALIDATION_ERROR (range)
 */
export async function meterReport(deps: Deps, scope: TenantScope, input: MeterReportInput): Promise<MeterReport> {
  const db = deps.db.kysely;
  const range = resolveRange(deps, input);
  if (countBuckets(input.period, range.from, range.to) > MAX_BUCKETS) {
    throw fieldError('query.from', `the range spans more than ${MAX_BUCKETS} ${input.period} buckets`);
  }
  const exists = await filterIdsExist(db, scope, input);
  if (!exists.user) throw notFound('User');
  if (!exists.template) throw notFound('Template');
  if (!exists.organization) throw notFound('Organization');

  const filter: UsageFilter = {
    from: range.from.toISOString(),
    to: range.to.toISOString(),
    userId: input.userId,
    licenseType: input.licenseType,
    templateId: input.templateId,
    organizationId: input.organizationId,
  };
  const [active, started, completed, steps, activeTotal, storage] = await Promise.all([
    countActiveUsers(db, scope, input.period, filter),
    countJobs(db, scope, 'started_at', input.period, filter),
    countJobs(db, scope, 'completed_at', input.period, filter),
    countStepsRecorded(db, scope, input.period, filter),
    // distinct users over the whole range: not the sum of the buckets
    countActiveUsers(db, scope, null, filter),
    sumStorageAdded(db, scope, input.period, filter),
  ]);
  // storage is a level, not a flow: what was held before the range plus what each bucket added
  let storageBytes = storage.before;
  const buckets = bucketsBetween(input.period, range.from, range.to).map((b) => ({
    ...b,
    activeUsers: activeUsers(active.get(b.bucket)),
    jobsStarted: started.get(b.bucket) ?? 0,
    jobsCompleted: completed.get(b.bucket) ?? 0,
    stepsRecorded: steps.get(b.bucket) ?? 0,
    storageBytes: (storageBytes += storage.added.get(b.bucket) ?? 0),
  }));
  const sum = (key: 'jobsStarted' | 'jobsCompleted' | 'stepsRecorded') => buckets.reduce((n, b) => n + b[key], 0);
  return {
    period: input.period,
    from: range.fromDay,
    to: range.toDay,
    filters: {
      userId: input.userId ?? null,
      licenseType: input.licenseType ?? null,
      templateId: input.templateId ?? null,
      organizationId: input.organizationId ?? null,
    },
    buckets,
    totals: {
      activeUsers: activeUsers(activeTotal.get('total')),
      jobsStarted: sum('jobsStarted'),
      jobsCompleted: sum('jobsCompleted'),
      stepsRecorded: sum('stepsRecorded'),
      // at the end of the range (today's usage when the range ends today)
      storageBytes,
    },
  };
}

/** The values the meter report can be filtered by: the client's organizations, templates and users (each list capped), license types and periods. */
export async function meterReportFilters(deps: Deps, scope: TenantScope) {
  const values = await listFilterValues(deps.db.kysely, scope);
  const cap = <T>(list: T[]) => list.slice(0, FILTER_VALUES_LIMIT);
  return {
    periods: PERIODS,
    licenseTypes: LICENSE_TYPES,
    organizations: cap(values.organizations).map((o) => ({ id: o.id, name: o.name })),
    templates: cap(values.templates).map((t) => ({ id: t.id, title: t.title })),
    users: cap(values.users).map((u) => ({
      id: u.id,
      email: u.email,
      firstName: u.first_name,
      lastName: u.last_name,
      licenseType: u.license_type,
    })),
    /** true for a list longer than FILTER_VALUES_LIMIT (the rest is still usable by id) */
    truncated: {
      organizations: values.organizations.length > FILTER_VALUES_LIMIT,
      templates: values.templates.length > FILTER_VALUES_LIMIT,
      users: values.users.length > FILTER_VALUES_LIMIT,
    },
  };
}

export interface ClientActivity {
  clientId: number;
  clientName: string;
  signIns: number;
  activeUsers: number;
  jobsStarted: number;
  jobsCompleted: number;
  stepsRecorded: number;
  templatesCreated: number;
  versionsPublished: number;
}

export interface ActivityReport {
  from: string;
  to: string;
  clients: ClientActivity[];
  totals: Omit<ClientActivity, 'clientId' | 'clientName'>;
}

const ACTIVITY_COUNTS = [
  'signIns',
  'activeUsers',
  'jobsStarted',
  'jobsCompleted',
  'stepsRecorded',
  'templatesCreated',
  'versionsPublished',
] as const;

/**
 * Activity per client over [from, to] (system administrators): sign-ins,
 * active users, jobs, steps, templates created and versions published. One
 * client with `clientId`; every client otherwise (a license bounds how many).
 * @throws AppError NOT_FOUND (clientId), VALIDATION_ERROR (range)
 */
export async function activityReport(deps: Deps, input: DateRange & { clientId?: number }): Promise<ActivityReport> {
  const db = deps.db.kysely;
  const range = resolveRange(deps, input);
  const clients = [];
  if (input.clientId !== undefined) {
    const client = await findClientById(db, input.clientId);
    if (!client) throw notFound('Client');
    clients.push(client);
  } else {
    let cursor: string | undefined;
    do {
      const page = await listClients(db, { limit: 200, cursor });
      clients.push(...page.items);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
  }
  const filter = { from: range.from.toISOString(), to: range.to.toISOString() };
  const rows: ClientActivity[] = [];
  for (const client of clients) {
    const scope = tenantScope(client.id);
    const [signIns, active, started, completed, steps, templatesCreated, versionsPublished] = await Promise.all([
      countEvents(db, scope, 'signIns', filter),
      countActiveUsers(db, scope, null, filter),
      countJobs(db, scope, 'started_at', null, filter),
      countJobs(db, scope, 'completed_at', null, filter),
      countStepsRecorded(db, scope, null, filter),
      countEvents(db, scope, 'templatesCreated', filter),
      countEvents(db, scope, 'versionsPublished', filter),
    ]);
    rows.push({
      clientId: client.id,
      clientName: client.name,
      signIns,
      activeUsers: activeUsers(active.get('total')).total,
      jobsStarted: started.get('total') ?? 0,
      jobsCompleted: completed.get('total') ?? 0,
      stepsRecorded: steps.get('total') ?? 0,
      templatesCreated,
      versionsPublished,
    });
  }
  const totals = Object.fromEntries(ACTIVITY_COUNTS.map((k) => [k, rows.reduce((n, r) => n + r[k], 0)])) as ActivityReport['totals'];
  return { from: range.fromDay, to: range.toDay, clients: rows, totals };
}

export interface UserReportQuery extends PageInput {
  clientId?: number;
  licenseType?: string;
  status?: UserStatus;
  role?: string;
}

/**
 * The vendor users report: a system administrator sees every client's users
 * (or one client's with `clientId`); a Security Administrator sees their own
 * client's only, and naming another client is NOT_FOUND.
 * @throws AppError NOT_FOUND (clientId)
 */
export async function userReport(deps: Deps, actor: Actor, query: UserReportQuery): Promise<Page<UserReportRow>> {
  const db = deps.db.kysely;
  const { clientId, licenseType, status, role, ...page } = query;
  const filter = { licenseType, status, role };
  if (actor.kind === 'user') {
    if (clientId !== undefined && clientId !== actor.clientId) throw notFound('Client');
    return listUserReportRows(db, actor.scope, filter, page);
  }
  if (clientId !== undefined && !(await findClientById(db, clientId))) throw notFound('Client');
  return listUserReportRowsAcrossClients(db, { ...filter, clientId }, page);
}

/** Every row of the report, in keyset batches (for the export: memory stays at one batch). */
export async function* iterateUserReport(
  deps: Deps,
  actor: Actor,
  query: Omit<UserReportQuery, 'limit' | 'cursor'>,
): AsyncGenerator<UserReportRow[]> {
  for (let cursor: string | undefined; ;) {
    const page = await userReport(deps, actor, { ...query, limit: 200, cursor });
    if (page.items.length > 0) yield page.items;
    if (!page.nextCursor) return;
    cursor = page.nextCursor;
  }
}
