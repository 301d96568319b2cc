import { z } from 'zod';
import type { Deps } from '#deps';
import { tenantScope, type TenantScope } from '#db/tenant';
import { fieldError, forbidden, notFound } from '#errors';
import { SECURITY_ADMIN } from '#policies/roles';
import { findClientById } from '#repos/clients';
import { findFirstUserWithRole, findUserByEmail, findUserById } from '#repos/users';
import { findTemplateById } from '#repos/templates';
import type { TemplateRow } from '#db/schema';
import { packTemplate, unpackTemplate, versionToExport, type PackageFiles } from './template-package';
import { getVisibleTemplate, type Author } from './templates';
import type { Actor } from './actor';

/**
 * Copies templates into another client: each as a new template with one
 * DRAFT holding the source's published version (or its latest version when
 * none is published), its media copied as the target client's own files and
 * its sensor references matched by name — new ids everywhere, nothing shared
 * across tenants by reference. It goes through the same package as ZIP
 * export and import, so a copy is exactly an export imported elsewhere.
 *
 * Who may: a Security Administrator (`admin`) of the source client who is also
 * an active `admin` of the target client under the same email (the copies are
 * theirs there); or a system administrator, for any pair of clients, naming
 * the source with `sourceClientId` (the copies then belong to the target's
 * longest-standing Security Administrator).
 */

const Id = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
export const CopyEntitiesInput = z
  .object({
    templateIds: z.array(Id).min(1).max(100),
    targetClientId: Id,
    /** system administrators only (a user copies from their own client) */
    sourceClientId: Id.optional(),
  })
  .strict();
export type CopyEntitiesInput = z.infer<typeof CopyEntitiesInput>;

export interface CopiedTemplate {
  sourceTemplateId: number;
  sourceVersionId: number;
  templateId: number;
}

/**
 * @throws AppError FORBIDDEN (not an admin of the target), NOT_FOUND (a
 *   template not the source client's, an unknown client), VALIDATION_ERROR
 */
export async function copyEntities(
  deps: Deps,
  files: PackageFiles,
  actor: Actor,
  input: CopyEntitiesInput,
): Promise<{ templates: CopiedTemplate[] }> {
  const db = deps.db.kysely;
  const { source, target, note } = await resolveClients(deps, actor, input);
  const templateIds = [...new Set(input.templateIds)];
  // every template is checked before the first is copied
  const sources: TemplateRow[] = [];
  for (const id of templateIds) {
    const template = actor.kind === 'user' ? await getVisibleTemplate(db, actor, id) : await findTemplateById(db, source, id);
    if (!template) throw notFound('Template');
    sources.push(template);
  }
  const copied: CopiedTemplate[] = [];
  for (const template of sources) {
    const version = await versionToExport(db, source, template.id);
    const pkg = await packTemplate(deps, files, source, template, version);
    const created = await unpackTemplate(deps, files, target, pkg, {
      ...note,
      copiedFrom: { clientId: source.clientId, templateId: template.id, versionId: version.id },
    });
    copied.push({ sourceTemplateId: template.id, sourceVersionId: version.id, templateId: created.id });
  }
  return { templates: copied };
}

async function resolveClients(
  deps: Deps,
  actor: Actor,
  input: CopyEntitiesInput,
): Promise<{ source: TenantScope; target: Author; note: Record<string, unknown> }> {
  const db = deps.db.kysely;
  if (actor.kind === 'user') {
    if (input.sourceClientId !== undefined && input.sourceClientId !== actor.clientId) {
      throw fieldError('body.sourceClientId', 'users copy from their own client; leave sourceClientId out');
    }
    if (input.targetClientId === actor.clientId) throw fieldError('body.targetClientId', 'the target must be another client');
    // an unknown client and one where the caller is no admin answer alike: nothing is learned about other clients
    const scope = tenantScope(input.targetClientId);
    const row = (await findClientById(db, input.targetClientId)) && (await findUserByEmail(db, scope, actor.email));
    const user = row && row.status === 'active' ? await findUserById(db, scope, row.id) : undefined;
    if (!user || !user.roles.includes(SECURITY_ADMIN)) throw forbidden('You must be an admin of the target client under the same email');
    return { source: actor.scope, target: { scope, userId: user.id, email: user.email }, note: {} };
  }
  if (input.sourceClientId === undefined) throw fieldError('body.sourceClientId', 'a system administrator names the source client');
  if (input.targetClientId === input.sourceClientId) throw fieldError('body.targetClientId', 'the target must be another client');
  if (!(await findClientById(db, input.sourceClientId)) || !(await findClientById(db, input.targetClientId))) throw notFound('Client');
  const scope = tenantScope(input.targetClientId);
  const owner = await findFirstUserWithRole(db, scope, SECURITY_ADMIN);
  if (!owner) throw fieldError('body.targetClientId', 'the target client has no Security Administrator to own the copies');
  return {
    source: tenantScope(input.sourceClientId),
    target: { scope, userId: owner.id, email: owner.email },
    note: { copiedBy: `admin:${actor.adminId} ${actor.username}` },
  };
}
