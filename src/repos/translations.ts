import type { Kysely, Selectable } from 'kysely';
import type { DB, TranslationsTable } from '#db/schema';
import { paginate, type Page, type PageInput } from '#db/pagination';
import type { TenantScope } from '#db/tenant';

export type TranslationRow = Selectable<TranslationsTable>;

export interface TranslationFilter {
  clientId?: number;
  language?: string;
  namespace?: string;
}

/** System administration: entries across clients (`translations` is a system table, see migration 0013). */
export async function listTranslations(db: Kysely<DB>, filter: TranslationFilter, page: PageInput): Promise<Page<TranslationRow>> {
  let query = db.selectFrom('translations').selectAll();
  if (filter.clientId !== undefined) query = query.where('client_id', '=', filter.clientId);
  if (filter.language !== undefined) query = query.where('language', '=', filter.language);
  if (filter.namespace !== undefined) query = query.where('namespace', '=', filter.namespace);
  return paginate(query, page);
}

export async function findTranslation(
  db: Kysely<DB>,
  owner: { clientId: number | null; language: string; namespace: string; key: string },
): Promise<TranslationRow | undefined> {
  return db
    .selectFrom('translations')
    .selectAll()
    .where('client_id', owner.clientId === null ? 'is' : '=', owner.clientId)
    .where('language', '=', owner.language)
    .where('namespace', '=', owner.namespace)
    .where('key', '=', owner.key)
    .executeTakeFirst();
}

export async function getTranslation(db: Kysely<DB>, id: number): Promise<TranslationRow | undefined> {
  return db.selectFrom('translations').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertTranslation(db: Kysely<DB>, row: Omit<TranslationRow, 'id'>): Promise<TranslationRow> {
  return db.insertInto('translations').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function updateTranslationText(db: Kysely<DB>, id: number, text: string, at: string): Promise<TranslationRow | undefined> {
  return db.updateTable('translations').set({ text, updated_at: at }).where('id', '=', id).returningAll().executeTakeFirst();
}

/**
 * The system-wide entries of these languages and, with a scope, that client's
 * overrides (never another client's).
 */
/** The system's entries in `languages`, and the client's when `scope` is given; only one namespace's (or one text's) when `only` names it. */
export async function translationsFor(
  db: Kysely<DB>,
  languages: string[],
  scope: TenantScope | null,
  only?: { namespace: string; key?: string },
): Promise<TranslationRow[]> {
  let query = db
    .selectFrom('translations')
    .selectAll()
    .where('language', 'in', languages)
    .where((eb) => (scope ? eb.or([eb('client_id', 'is', null), eb('client_id', '=', scope.clientId)]) : eb('client_id', 'is', null)));
  if (only) query = query.where('namespace', '=', only.namespace);
  if (only?.key !== undefined) query = query.where('key', '=', only.key);
  return query.execute();
}
