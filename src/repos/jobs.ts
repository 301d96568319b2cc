import { sql, type Insertable, type Kysely, type SelectQueryBuilder, type Updateable } from 'kysely';
import type { DB, JobMemberKind, JobMemberRow, JobRow, JobsTable, StepRecordRow, StepRecordsTable, TemplateRow, UserRow } from '#db/schema';
import type { TemplateColumn } from './templates';
import type { VersionSummaryColumn, VersionSummaryRow } from './template-versions';
import type { UserSummaryColumn } from './users';
import { inTenant, selectByIds, tenantScope, type TenantScope } from '#db/tenant';
import { afterId, beforeId, countRows, decodeBeforeCursor, decodeCursor, toPage, type Page, type PageInput } from '#db/pagination';
import { compiledRead } from '#db/compiled-query';
import { LruCache } from '#lib/lru';
import { columnSet, everyColumn, type ColumnSet } from '#db/columns';
import { notFound } from '#errors';
import { moveJobCounts, moveStepCount } from './usage';

/**
 * Jobs, their members (assignees, co-workers, step owners) and what is
 * recorded on them. A job row is only ever changed through `updateJobAtRevision`,
 * the compare-and-set that also increments `revision`.
 */

export type NewJob = Omit<Insertable<JobsTable>, 'client_id' | 'id' | 'revision'>;

export async function insertJob(db: Kysely<DB>, scope: TenantScope, job: NewJob): Promise<JobRow> {
  const row = await db
    .insertInto('jobs')
    .values({ ...job, client_id: scope.clientId })
    .returningAll()
    .executeTakeFirstOrThrow();
  await moveJobCounts(db, scope, undefined, row);
  return row;
}

export async function findJobById(db: Kysely<DB>, scope: TenantScope, id: number): Promise<JobRow | undefined> {
  return inTenant(db, scope).selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
}

/** @throws AppError NOT_FOUND, also for a job of another client */
export async function getJobById(db: Kysely<DB>, scope: TenantScope, id: number): Promise<JobRow> {
  const job = await findJobById(db, scope, id);
  if (!job) throw notFound('Job');
  return job;
}

/** Jobs of the client among `ids` (DataLoader batch). */
export async function loadJobsByIds(db: Kysely<DB>, scope: TenantScope, ids: readonly number[]): Promise<JobRow[]> {
  if (ids.length === 0) return [];
  return inTenant(db, scope)
    .selectFrom('jobs')
    .selectAll()
    .where('id', 'in', [...ids])
    .execute();
}

export interface JobFilter {
  state?: JobRow['state'] | null;
  templateId?: number | null;
  assetId?: number | null;
  assigneeId?: number | null;
  priority?: JobRow['priority'] | null;
}

export const JOB_COLUMNS = everyColumn<JobRow>()([
  'id',
  'client_id',
  'template_id',
  'version_id',
  'title',
  'asset_id',
  'priority',
  'state',
  'revision',
  'due_at',
  'cancel_reason',
  'created_by',
  'created_at',
  'updated_at',
  'started_at',
  'completed_at',
]);
export type JobColumn = (typeof JOB_COLUMNS)[number];

type FilterName = keyof JobFilter;
const FILTERS: readonly FilterName[] = ['state', 'priority', 'templateId', 'assetId', 'assigneeId'];
type JobQuery = SelectQueryBuilder<DB, 'jobs', JobRow>;
// columns qualified: a page read can join tables with columns of the same names (see JobPageRelations)
const filtered: Record<FilterName, (db: Kysely<DB>, clientId: number, query: JobQuery, value: never) => JobQuery> = {
  state: (_db, _clientId, query, value) => query.where('jobs.state', '=', value),
  priority: (_db, _clientId, query, value) => query.where('jobs.priority', '=', value),
  templateId: (_db, _clientId, query, value) => query.where('jobs.template_id', '=', value),
  assetId: (_db, _clientId, query, value) => query.where('jobs.asset_id', '=', value),
  assigneeId: (db, clientId, query, value) =>
    query.where(
      'jobs.id',
      'in',
      inTenant(db, tenantScope(clientId))
        .selectFrom('job_members')
        .select('job_id')
        .where('kind', '=', 'ASSIGNEE')
        .where('user_id', '=', value),
    ),
};

/**
 * What a page of jobs can read of each job's template and version in its own statement (GraphQL's jobs
 * connection: the columns its selection needs), instead of one more batched statement each. Each is joined on
 * the job's client (`templates.client_id = jobs.client_id`), so tenant scoping is the page's own.
 */
export interface JobPageRelations {
  template?: ColumnSet<TemplateColumn>;
  version?: ColumnSet<VersionSummaryColumn>;
}
export type JobPageRow = JobRow & { template?: TemplateRow; version?: VersionSummaryRow };
const RELATIONS = [
  { name: 'template', table: 'templates', foreignKey: 'template_id' },
  { name: 'version', table: 'template_versions', foreignKey: 'version_id' },
] as const;
/** a joined column's name in the flat row: `template.title` comes back as `template__title` */
const joinedAs = (relation: string, column: string) => `${relation}__${column}`;

interface PageRead {
  read: (db: Kysely<DB>, clientId: number, after: number, limit: number, ...filters: unknown[]) => Promise<Record<string, unknown>[]>;
  /** gives each flat row its joined relations as rows of their own (undefined when the join found none); the flat `relation__column` keys stay, read by no presenter */
  nest: (rows: Record<string, unknown>[]) => void;
}

/** The page read of one column set, set of filters and relations, compiled once (compiledRead): the shapes a query can ask for are many, those kept bounded. */
const pageReads = new LruCache<string, PageRead>(500);
function pageRead(columns: ColumnSet<JobColumn>, filters: readonly FilterName[], relations: JobPageRelations, backward: boolean): PageRead {
  const key = `${columns.key}|${filters.join(',')}|${relations.template?.key ?? '-'}|${relations.version?.key ?? '-'}|${backward ? '<' : '>'}`;
  let read = pageReads.get(key);
  if (!read) {
    // each relation's id always: what tells a found row from a missing one
    const joined = RELATIONS.flatMap((relation) => {
      const selected = relations[relation.name]?.columns as readonly string[] | undefined;
      return selected ? [{ ...relation, columns: selected.includes('id') ? selected : ['id', ...selected] }] : [];
    });
    read = {
      read: compiledRead((db, clientId: number, after: number, limit: number, ...values: unknown[]) => {
        let query = inTenant(db, tenantScope(clientId))
          .selectFrom('jobs')
          .select(columns.columns.map((column) => `jobs.${column}` as const)) as unknown as JobQuery;
        for (const { name, table, foreignKey, columns: selected } of joined) {
          query = (query as any)
            .leftJoin(table, (join: any) =>
              join.onRef(`${table}.client_id`, '=', 'jobs.client_id').onRef(`${table}.id`, '=', `jobs.${foreignKey}`),
            )
            .select(selected.map((column) => `${table}.${column} as ${joinedAs(name, column)}`));
        }
        filters.forEach((name, i) => (query = filtered[name](db, clientId, query, values[i] as never)));
        // `after` is the cursor's id either way: rows past it, or (backward) the rows just before it
        return backward ? beforeId(query, after, limit, 'jobs.id') : afterId(query, after, limit, 'jobs.id');
      }, 3 + filters.length),
      nest: nester(joined),
    };
    pageReads.set(key, read);
  }
  return read;
}

/**
 * A function copying the joined columns into rows of their own, made for the relations' columns (one shape of
 * object each, read and written by name, like the statement cache's rows): a loop over column names cost about
 * 2 % of a page's CPU. The names are columns of our own tables, written as JSON string literals.
 */
function nester(joined: readonly { name: string; columns: readonly string[] }[]): PageRead['nest'] {
  if (joined.length === 0) return () => {};
  const ref = (relation: string, column: string) => `r[${JSON.stringify(joinedAs(relation, column))}]`;
  const body = joined
    .map(
      ({ name, columns }) =>
        `r[${JSON.stringify(name)}] = ${ref(name, 'id')} == null ? undefined : {${columns.map((c) => `${JSON.stringify(c)}: ${ref(name, c)}`).join(', ')}};`,
    )
    .join('\n');
  return new Function('rows', `for (const r of rows) {\n${body}\n}`) as PageRead['nest'];
}

const EVERY_JOB_COLUMN = columnSet(JOB_COLUMNS);

/**
 * A page of the client's jobs, with only `columns` when given (GraphQL: the fields a query selects), the others
 * absent, and with the `relations` asked for (their selected columns) on each row; a relation whose row is
 * missing is left undefined.
 */
export async function listJobs(
  db: Kysely<DB>,
  scope: TenantScope,
  filter: JobFilter,
  page: PageInput,
  columns: ColumnSet<JobColumn> = EVERY_JOB_COLUMN,
  relations: JobPageRelations = {},
): Promise<Page<JobPageRow>> {
  const present = FILTERS.filter((name) => filter[name] != null && (filter[name] as unknown) !== '');
  const backward = page.before !== undefined;
  const { read, nest } = pageRead(columns, present, relations, backward);
  const rows = await read(
    db,
    scope.clientId,
    backward ? decodeBeforeCursor(page.before!) : decodeCursor(page.cursor),
    page.limit + 1,
    ...present.map((name) => filter[name]),
  );
  nest(rows);
  return toPage(rows as unknown as JobPageRow[], page.limit, page);
}

/** How many of the client's jobs match the filter (GraphQL's `totalCount`). */
export async function countJobs(db: Kysely<DB>, scope: TenantScope, filter: JobFilter): Promise<number> {
  let query = inTenant(db, scope).selectFrom('jobs').selectAll('jobs');
  for (const name of FILTERS)
    if (filter[name] != null && (filter[name] as unknown) !== '') query = filtered[name](db, scope.clientId, query, filter[name] as never);
  return countRows(query);
}

/** Ids of the template's jobs (all its versions). */
export async function listJobIdsOfTemplate(db: Kysely<DB>, scope: TenantScope, templateId: number): Promise<number[]> {
  const rows = await inTenant(db, scope).selectFrom('jobs').select('id').where('template_id', '=', templateId).orderBy('id').execute();
  return rows.map((r) => r.id);
}

/**
 * The compare-and-set every job write goes through: applies `changes` and
 * increments `revision` only when the row still has `revision` — one
 * `update … where revision = ?`, so two writers holding the same revision can
 * never both succeed, whatever the isolation level. Undefined when the
 * revision moved (or the job is not the client's).
 */
/** `job`: the row as read in this transaction (the meter's day counts move from its start and completion times to the new ones). */
export async function updateJobAtRevision(
  db: Kysely<DB>,
  scope: TenantScope,
  job: JobRow,
  revision: number,
  changes: Omit<Updateable<JobsTable>, 'id' | 'client_id' | 'revision'>,
): Promise<JobRow | undefined> {
  const row = await inTenant(db, scope)
    .updateTable('jobs')
    .set((eb) => ({ ...changes, revision: eb('revision', '+', 1) }))
    .where('id', '=', job.id)
    .where('revision', '=', revision)
    .returningAll()
    .executeTakeFirst();
  if (row) await moveJobCounts(db, scope, job, row);
  return row;
}

// --- members ---

export async function insertJobMembers(
  db: Kysely<DB>,
  scope: TenantScope,
  members: { jobId: number; userId: number; kind: JobMemberKind; stepId?: string }[],
  nowIso: string,
): Promise<void> {
  if (members.length === 0) return;
  await db
    .insertInto('job_members')
    .values(
      members.map((m) => ({
        client_id: scope.clientId,
        job_id: m.jobId,
        user_id: m.userId,
        kind: m.kind,
        step_id: m.stepId ?? '',
        created_at: nowIso,
      })),
    )
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/** @returns whether a row was deleted */
export async function deleteJobMember(
  db: Kysely<DB>,
  scope: TenantScope,
  jobId: number,
  userId: number,
  kind: JobMemberKind,
): Promise<boolean> {
  const result = await inTenant(db, scope)
    .deleteFrom('job_members')
    .where('job_id', '=', jobId)
    .where('user_id', '=', userId)
    .where('kind', '=', kind)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Members of the client's jobs among `jobIds`, in insertion order (DataLoader batch). */
export async function loadJobMembers(db: Kysely<DB>, scope: TenantScope, jobIds: readonly number[]): Promise<JobMemberRow[]> {
  return selectByIds(db, scope, 'jobMembers', jobIds, (batch) =>
    inTenant(db, scope).selectFrom('job_members').selectAll().where('job_id', 'in', batch).orderBy('id'),
  );
}

/**
 * The users of one kind of membership of the jobs, in membership order: one statement (the members' unique
 * index joined to the users, both of the client) instead of the memberships and then their users. Each row is
 * the user's `columns` plus the membership's job and step (`member_job_id`, `member_step_id`).
 */
export async function loadMemberUsers<C extends UserSummaryColumn>(
  db: Kysely<DB>,
  scope: TenantScope,
  jobIds: readonly number[],
  kind: JobMemberKind,
  columns: ColumnSet<C>,
): Promise<(Pick<UserRow, C> & { member_job_id: number; member_step_id?: string })[]> {
  // the kind is one of three words, written into the statement: its parameters stay (client id, ids…), so its SQL is reused
  return selectByIds(db, scope, `memberUsers:${kind}:${columns.key}`, jobIds, (batch) =>
    inTenant(db, scope)
      .selectFrom('job_members')
      .innerJoin('users', (join) =>
        join.onRef('users.client_id', '=', 'job_members.client_id').onRef('users.id', '=', 'job_members.user_id'),
      )
      // only a step owner's membership names a step (the others' is ''): read for them only
      .select(
        kind === 'STEP_OWNER'
          ? ['job_members.job_id as member_job_id', 'job_members.step_id as member_step_id']
          : ['job_members.job_id as member_job_id'],
      )
      .select(columns.columns.map((column) => `users.${column}` as const))
      .where('job_members.kind', '=', sql.lit(kind))
      .where('job_members.job_id', 'in', batch)
      .orderBy('job_members.id'),
  ) as Promise<(Pick<UserRow, C> & { member_job_id: number; member_step_id?: string })[]>;
}

export type JobMembership = Pick<JobMemberRow, 'job_id' | 'user_id' | 'kind' | 'step_id'>;

/** Who works on the jobs, and how: the columns of the members' unique index (with the id, its row id) only, so no table row is read. */
export async function loadJobMemberships(db: Kysely<DB>, scope: TenantScope, jobIds: readonly number[]): Promise<JobMembership[]> {
  return selectByIds(db, scope, 'jobMemberships', jobIds, (batch) =>
    inTenant(db, scope)
      .selectFrom('job_members')
      .select(['job_id', 'user_id', 'kind', 'step_id'])
      .where('job_id', 'in', batch)
      .orderBy('id'),
  );
}

// --- step records ---

export type NewStepRecord = Omit<Insertable<StepRecordsTable>, 'client_id' | 'id'>;

/**
 * One record per job and step: recording a step again replaces what was
 * recorded. `previous` is the record being replaced (read in the same
 * transaction): the meter's per-day counts move from it to the new recording.
 */
export async function upsertStepRecord(
  db: Kysely<DB>,
  scope: TenantScope,
  record: NewStepRecord,
  previous: StepRecordRow | undefined,
): Promise<StepRecordRow> {
  const { job_id: _job, step_id: _step, ...changes } = record;
  const saved = await db
    .insertInto('step_records')
    .values({ ...record, client_id: scope.clientId })
    .onConflict((oc) => oc.columns(['client_id', 'job_id', 'step_id']).doUpdateSet(changes))
    .returningAll()
    .executeTakeFirstOrThrow();
  await moveStepCount(db, scope, previous, saved);
  return saved;
}

export async function findStepRecord(
  db: Kysely<DB>,
  scope: TenantScope,
  jobId: number,
  stepId: string,
): Promise<StepRecordRow | undefined> {
  return inTenant(db, scope)
    .selectFrom('step_records')
    .selectAll()
    .where('job_id', '=', jobId)
    .where('step_id', '=', stepId)
    .executeTakeFirst();
}

/** Records of the client's jobs among `jobIds` (DataLoader batch, and completion checks). */
export async function loadStepRecords(db: Kysely<DB>, scope: TenantScope, jobIds: readonly number[]): Promise<StepRecordRow[]> {
  if (jobIds.length === 0) return [];
  return inTenant(db, scope)
    .selectFrom('step_records')
    .selectAll()
    .where('job_id', 'in', [...jobIds])
    .orderBy('id')
    .execute();
}
