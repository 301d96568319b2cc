import type { Deps } from '#deps';
import type { SystemFileRow } from '#db/schema';
import type { TenantScope } from '#db/tenant';
import { notFound } from '#errors';
import { getClientById } from '#repos/clients';
import { findCatalogueRow } from '#repos/catalogue';
import { findSystemFileById } from '#repos/files';

/** What a logo may be: raster images a browser shows in an <img> (no SVG: it can carry script). */
/** Where a client's (or an organization's) logo is served. */
export const LOGO_PATH = '/api/client/get-logo-by-owner';

/** The logo URL a client's branding shows, or null without a logo. */
export function logoUrl(logoFileId: number | null): string | null {
  return logoFileId === null ? null : LOGO_PATH;
}

export const LOGO_CONTENT_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;

/**
 * The logo to show: the organization's when it has one, else the client's.
 * @throws AppError NOT_FOUND (no logo; an organization of another client)
 */
export async function findLogo(deps: Deps, scope: TenantScope, organizationId?: number): Promise<SystemFileRow> {
  const db = deps.db.kysely;
  let fileId: number | null = null;
  if (organizationId !== undefined) {
    const organization = await findCatalogueRow(db, scope, 'organizations', organizationId);
    if (!organization) throw notFound('Organization');
    fileId = organization.logo_file_id;
  }
  fileId ??= (await getClientById(db, scope.clientId)).logo_file_id;
  if (fileId === null) throw notFound('Logo');
  const file = await findSystemFileById(db, fileId);
  if (!file) throw notFound('Logo');
  return file;
}
