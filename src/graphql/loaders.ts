import DataLoader from 'dataloader';
import type { Deps } from '../deps';
import type { TenantScope } from '../db/tenant';
import type { UserWithRoles } from '../repos/users';
import { loadUsersByIds } from '../repos/users';
import { loadAssetClassesByIds, loadTemplateOrganizations, loadTemplatesByIds } from '../repos/templates';
import { loadSignaturesByVersionIds, loadVersionsByIds, loadVersionsByTemplateIds } from '../repos/template-versions';
import { presentSignature, presentTemplate, presentVersion, type PresentedTemplate, type PresentedVersion } from '../presenters/templates';

/**
 * Per-request DataLoaders built from tenant-scoped repo functions: a resolver
 * asks for one row, the loader batches every ask of the same tick into one
 * `where id in (…)` statement. An id of another client simply is not found.
 * Domain modules add their loaders here.
 */
export function createLoaders(deps: Deps, scope: TenantScope) {
  const db = deps.db.kysely;
  return {
    user: byId<UserWithRoles>((ids) => loadUsersByIds(db, scope, ids)),
    // templates: presented objects (what the Template and TemplateVersion types resolve from)
    template: byId<PresentedTemplate>(async (ids) => (await loadTemplatesByIds(db, scope, ids)).map(presentTemplate)),
    version: byId<PresentedVersion>(async (ids) => (await loadVersionsByIds(db, scope, ids)).map(presentVersion)),
    versionsByTemplate: listBy(async (ids) => (await loadVersionsByTemplateIds(db, scope, ids)).map(presentVersion), (v) => v.templateId),
    signaturesByVersion: listBy(async (ids) => (await loadSignaturesByVersionIds(db, scope, ids)).map(presentSignature), (s) => s.versionId),
    organizationsByTemplate: listBy(
      async (ids) =>
        (await loadTemplateOrganizations(db, scope, ids)).map((o) => ({ id: o.id, name: o.name, parentId: o.parent_id, templateId: o.template_id })),
      (o) => o.templateId,
    ),
    templateAssetClass: byId(async (ids) =>
      (await loadAssetClassesByIds(db, scope, ids)).map((a) => ({ id: a.id, name: a.name, description: a.description })),
    ),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;

/** A loader of rows by integer id; missing ids load as undefined. */
export function byId<T extends { id: number }>(load: (ids: number[]) => Promise<T[]>): DataLoader<number, T | undefined> {
  return new DataLoader<number, T | undefined>(async (ids) => {
    const rows = await load([...ids]);
    const map = new Map(rows.map((row) => [row.id, row]));
    return ids.map((id) => map.get(id));
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
