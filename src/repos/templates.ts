import { sql, type Insertable, type Kysely, type Updateable } from 'kysely';
import { columnContains } from '#db/search';
import type { DB, OrganizationRow, TemplateRow, TemplatesTable, VersionState } from '#db/schema';
import { inTenant, selectByIds, type TenantScope } from '#db/tenant';
import { paginateCounted, type CountedPage, type PageInput } from '#db/pagination';
import { columnSet, everyColumn, type ColumnSet } from '#db/columns';
import { SECURITY_ADMIN } from '#policies/roles';

/**
 * Templates and the tables hanging off them that are not versions:
 * organizations a template is available to, and the asset class it targets.
 */

export async function insertTemplate(
  db: Kysely<DB>,
  scope: TenantScope,
  row: Omit<Insertable<TemplatesTable>, 'client_id'>,
): Promise<TemplateRow> {
  return db
    .insertInto('templates')
    .values({ ...row, client_id: scope.clientId })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function updateTemplateRow(
  db: Kysely<DB>,
  scope: TenantScope,
  id: number,
  changes: Omit<Updateable<TemplatesTable>, 'id' | 'client_id'>,
): Promise<TemplateRow | undefined> {
  return inTenant(db, scope).updateTable('templates').set(changes).where('id', '=', id).returningAll().executeTakeFirst();
}

export async function findTemplateById(db: Kysely<DB>, scope: TenantScope, id: number): Promise<TemplateRow | undefined> {
  return inTenant(db, scope).selectFrom('templates').selectAll().where('id', '=', id).executeTakeFirst();
}

export const TEMPLATE_COLUMNS = everyColumn<TemplateRow>()([
  'id',
  'client_id',
  'title',
  'description',
  'tags',
  'asset_class_id',
  'owner_id',
  'created_at',
  'updated_at',
]);
export type TemplateColumn = (typeof TEMPLATE_COLUMNS)[number];
const EVERY_TEMPLATE_COLUMN = columnSet(TEMPLATE_COLUMNS);

/** Templates among `ids` with only `columns` (GraphQL: the fields a query selects), the others absent. */
export async function loadTemplatesByIds(
  db: Kysely<DB>,
  scope: TenantScope,
  ids: readonly number[],
  columns: ColumnSet<TemplateColumn> = EVERY_TEMPLATE_COLUMN,
): Promise<TemplateRow[]> {
  return selectByIds(db, scope, `templates:${columns.key}`, ids, (batch) =>
    inTenant(db, scope).selectFrom('templates').select(columns.columns).where('id', 'in', batch),
  );
}

/**
 * Which templates a caller may see: `null` is everything in the client;
 * otherwise templates available to one of `orgIds`, and templates available
 * to no organization in particular (those are for everyone).
 */
export type TemplateVisibility = { orgIds: number[] } | null;

export interface TemplateFilter {
  search?: string | null;
  tag?: string | null;
  state?: VersionState | null;
  assetClassId?: number | null;
  /** templates with a version waiting for this user (services/templates.ts decides what that is from their roles) */
  awaiting?: AwaitingAction | null;
}

/**
 * What waits for one user, by what they may do: their drafts to finish (a
 * DRAFT of a template they own, created or last edited), versions in review
 * (unless they wrote them and may not approve their own work), approved
 * versions to publish. An empty set of duties matches nothing.
 */
export interface AwaitingAction {
  userId: number;
  drafts: boolean;
  reviews: boolean;
  /** separation of duties: a version they created or last edited is not theirs to approve */
  reviewsOfOthersOnly: boolean;
  publishing: boolean;
}

/** LIKE pattern matching `text` literally anywhere (`\` escapes the wildcards). */

export async function listTemplates(
  db: Kysely<DB>,
  scope: TenantScope,
  filter: TemplateFilter,
  visibility: TemplateVisibility,
  page: PageInput,
): Promise<CountedPage<TemplateRow>> {
  let query = inTenant(db, scope).selectFrom('templates').selectAll('templates');
  if (filter.search) {
    const search = filter.search;
    query = query.where((eb) => eb.or([columnContains('templates.title', search), columnContains('templates.description', search)]));
  }
  // tags are a JSON array of strings stored as text: match the quoted element
  if (filter.tag) query = query.where(sql<boolean>`${sql.ref('templates.tags')} like ${containingTag(filter.tag)} escape '\\'`);
  if (filter.assetClassId != null) query = query.where('templates.asset_class_id', '=', filter.assetClassId);
  if (filter.state) {
    const state = filter.state;
    query = query.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('template_versions as v')
          .select('v.id')
          .whereRef('v.client_id', '=', 'templates.client_id')
          .whereRef('v.template_id', '=', 'templates.id')
          .where('v.state', '=', state),
      ),
    );
  }
  if (filter.awaiting) query = query.where(awaitingBy(filter.awaiting));
  if (visibility) query = query.where(visibleTo(visibility));
  return paginateCounted(query, page, 'templates.id');
}

function containingTag(tag: string): string {
  return `%${JSON.stringify(tag).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** AwaitingAction as a where-clause on `templates`: one of its versions waits for the user. */
function awaitingBy(awaiting: AwaitingAction) {
  return (eb: any) => {
    // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- kysely's builder over the tenant-scoped join is untyped here, as in the rest of this file (BASELINE)
    const { exists, or, selectFrom } = eb;
    const versions = () =>
      selectFrom('template_versions as w')
        .select('w.id')
        .whereRef('w.client_id', '=', 'templates.client_id')
        .whereRef('w.template_id', '=', 'templates.id');
    const me = awaiting.userId;
    const branches = [];
    if (awaiting.drafts) {
      branches.push(
        exists(
          versions()
            .where('w.state', '=', 'DRAFT')
            .where((v: any) => v.or([v('w.created_by', '=', me), v('w.updated_by', '=', me), v('templates.owner_id', '=', me)])),
        ),
      );
    }
    if (awaiting.reviews) {
      // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- kysely's builder over the tenant-scoped join is untyped here, as in the rest of this file (BASELINE)
      let inReview = versions().where('w.state', '=', 'IN_REVIEW');
      // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- kysely's builder over the tenant-scoped join is untyped here, as in the rest of this file (BASELINE)
      if (awaiting.reviewsOfOthersOnly) inReview = inReview.where('w.created_by', '<>', me).where('w.updated_by', '<>', me);
      branches.push(exists(inReview));
    }
    if (awaiting.publishing) branches.push(exists(versions().where('w.state', '=', 'APPROVED')));
    // nothing to do: a condition no row meets
    return branches.length > 0 ? or(branches) : eb(eb.lit(1), '=', eb.lit(0));
  };
}

/** The visibility rule as a where-clause on `templates` (a query that selects or joins `templates`). */
export function visibleTo(visibility: { orgIds: number[] }) {
  return ({ exists, not, or, selectFrom }: any) => {
    const orgRows = () =>
      selectFrom('template_organizations as o')
        .select('o.template_id')
        .whereRef('o.client_id', '=', 'templates.client_id')
        .whereRef('o.template_id', '=', 'templates.id');
    const branches = [not(exists(orgRows()))];
    if (visibility.orgIds.length > 0) branches.push(exists(orgRows().where('o.organization_id', 'in', visibility.orgIds)));
    return or(branches);
  };
}

/** Whether one template passes the visibility rule. */
export async function isTemplateVisible(
  db: Kysely<DB>,
  scope: TenantScope,
  templateId: number,
  visibility: TemplateVisibility,
): Promise<boolean> {
  let query = inTenant(db, scope).selectFrom('templates').select('templates.id').where('templates.id', '=', templateId);
  if (visibility) query = query.where(visibleTo(visibility));
  return (await query.executeTakeFirst()) !== undefined;
}

/**
 * Which templates a user sees. Admins see all; in a client without
 * organizations everyone sees all; otherwise a user sees the templates
 * available to one of their organizations (`availableToOrg`, ids compared as
 * numbers) and those available to no organization in particular.
 */
export async function templateVisibilityOf(
  db: Kysely<DB>,
  scope: TenantScope,
  user: { roles: readonly string[]; availableToOrg: string },
): Promise<TemplateVisibility> {
  if (user.roles.includes(SECURITY_ADMIN)) return null;
  if (!(await clientHasOrganizations(db, scope))) return null;
  const raw = JSON.parse(user.availableToOrg) as unknown[];
  const orgIds = raw.map((v) => Number(v)).filter((n) => Number.isInteger(n) && n > 0);
  return { orgIds };
}

export async function clientHasOrganizations(db: Kysely<DB>, scope: TenantScope): Promise<boolean> {
  return (await inTenant(db, scope).selectFrom('organizations').select('id').limit(1).executeTakeFirst()) !== undefined;
}

/** Replaces the organizations a template is available to. */
export async function setTemplateOrganizations(
  db: Kysely<DB>,
  scope: TenantScope,
  templateId: number,
  orgIds: readonly number[],
): Promise<void> {
  await inTenant(db, scope).deleteFrom('template_organizations').where('template_id', '=', templateId).execute();
  if (orgIds.length === 0) return;
  await db
    .insertInto('template_organizations')
    .values([...new Set(orgIds)].map((organization_id) => ({ client_id: scope.clientId, template_id: templateId, organization_id })))
    .execute();
}

/** The organizations of several templates, each row tagged with its template. */
export async function loadTemplateOrganizations(
  db: Kysely<DB>,
  scope: TenantScope,
  templateIds: readonly number[],
): Promise<(OrganizationRow & { template_id: number })[]> {
  if (templateIds.length === 0) return [];
  return inTenant(db, scope)
    .selectFrom('template_organizations')
    .innerJoin('organizations', (join) =>
      join
        .onRef('organizations.client_id', '=', 'template_organizations.client_id')
        .onRef('organizations.id', '=', 'template_organizations.organization_id'),
    )
    .selectAll('organizations')
    .select('template_organizations.template_id')
    .where('template_organizations.template_id', 'in', [...templateIds])
    .orderBy('organizations.id')
    .execute();
}
