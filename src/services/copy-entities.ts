import { z } from 'zod';
import type { Deps } from '#deps';
import { tenantScope, type TenantScope } from '#db/tenant';
import { AppError, fieldError, notFound } from '#errors';
import { withTransaction } from '#db/transaction';
import { appendAudit } from '#repos/audit';
import { SECURITY_ADMIN } from '#policies/roles';
import { findClientById } from '#repos/clients';
import { findFirstUserWithRole } from '#repos/users';
import { findTemplateById } from '#repos/templates';
import type { TemplateRow } from '#db/schema';
import { packTemplate, unpackTemplate, versionToExport, type PackageFiles } from './template-package';
import { getVisibleTemplate, type Author } from './templates';
import type { Actor, RequestMeta, UserActor } from './actor';
import { actorFromBearer } from './auth';
import { logActorOf, recordLogEntry } from './security-log';

/**
 * Copies templates into another client: each as a new template with one
 * DRAFT holding the source's published version (or its latest version when
 * none is published), its media copied as the target client's own files and
 * its sensor references matched by name — new ids everywhere, nothing shared
 * across tenants by reference. It goes through the same package as ZIP
 * export and import, so a copy is exactly an export imported elsewhere.
 *
 * Who may: a Security Administrator (`admin`) of the source client who proves
 * they are an active `admin` of the target too, by sending an access token of
 * the target client (their own sign-in there: `X-Target-Authorization: Bearer
 * …`) — an email that matches is no proof, emails are unique only within a
 * client; the copies belong to the token's user. Or a system administrator,
 * for any pair of clients, naming the source with `sourceClientId` (the copies
 * then belong to the target's longest-standing Security Administrator).
 * Without proof another client's id is 404, like any other client's id, and the
 * refusal goes to the security log (`security.copy_target_refused`).
 *
 * Both chains say what happened: the target's entries (`template.created`,
 * `version.created`) carry `copiedFrom` and `copiedBy`; the source's chain gets
 * `template.copied_out` per template, naming the target and the new id.
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

/** What the request carries besides its body: the proof for the target, and where it came from (for the security log). */
export interface CopyRequest {
  /** an access token of the target client (X-Target-Authorization without its `Bearer `) */
  targetToken: string | undefined;
  meta: RequestMeta;
}

/**
 * @throws AppError NOT_FOUND (a template not the source client's; a target the
 *   caller has not proven to administer, or an unknown client), VALIDATION_ERROR
 */
export async function copyEntities(
  deps: Deps,
  files: PackageFiles,
  actor: Actor,
  input: CopyEntitiesInput,
  request: CopyRequest,
): Promise<{ templates: CopiedTemplate[] }> {
  const db = deps.db.kysely;
  const { source, target, copiedBy } = await resolveClients(deps, actor, input, request);
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
      copiedBy: copiedBy.label,
      copiedFrom: { clientId: source.clientId, templateId: template.id, versionId: version.id },
    });
    // the copy exists: the source's chain records that it left (its own transaction, in the source client)
    await withTransaction(deps.db, { lockClient: source.clientId }, (trx) =>
      appendAudit(trx, source, {
        actor: copiedBy,
        action: 'template.copied_out',
        entityType: 'template',
        entityId: template.id,
        after: { versionId: version.id, copiedTo: { clientId: target.scope.clientId, templateId: created.id } },
        at: deps.clock.now().toISOString(),
      }),
    );
    copied.push({ sourceTemplateId: template.id, sourceVersionId: version.id, templateId: created.id });
  }
  return { templates: copied };
}

/** The caller as the source chain names them, and as the label the target's entries carry. */
type CopiedBy = { userId: number; email: string; label: string } | { label: string };

async function resolveClients(
  deps: Deps,
  actor: Actor,
  input: CopyEntitiesInput,
  request: CopyRequest,
): Promise<{ source: TenantScope; target: Author; copiedBy: CopiedBy }> {
  const db = deps.db.kysely;
  if (actor.kind === 'user') {
    if (input.sourceClientId !== undefined && input.sourceClientId !== actor.clientId) {
      throw fieldError('body.sourceClientId', 'users copy from their own client; leave sourceClientId out');
    }
    if (input.targetClientId === actor.clientId) throw fieldError('body.targetClientId', 'the target must be another client');
    const admin = await provenTargetAdmin(deps, actor, input.targetClientId, request);
    return {
      source: actor.scope,
      target: { scope: admin.scope, userId: admin.userId, email: admin.email },
      copiedBy: { userId: actor.userId, email: actor.email, label: `user:${actor.userId} ${actor.email} of client ${actor.clientId}` },
    };
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
    copiedBy: { label: `admin:${actor.adminId} ${actor.username}` },
  };
}

/**
 * The target client's Security Administrator that the request's target token
 * proves: a live session (signature, expiry, revocation, a disabled account —
 * everything a request's own bearer token is checked for) of an `admin` of
 * exactly that client who needs no second-factor enrolment first. Anything
 * less is 404, as for a client that does not exist, and a security event.
 * @throws AppError NOT_FOUND
 */
async function provenTargetAdmin(deps: Deps, actor: UserActor, targetClientId: number, request: CopyRequest): Promise<UserActor> {
  const refuse = async (reason: string): Promise<never> => {
    await recordLogEntry(deps, {
      level: 'warn',
      event: 'security.copy_target_refused',
      message: `Copy into client ${targetClientId} refused: ${reason}`,
      clientId: actor.clientId,
      userId: actor.userId,
      actor: logActorOf(actor),
      meta: request.meta,
      data: { targetClientId, reason },
    });
    throw notFound('Client');
  };
  if (request.targetToken === undefined) return refuse('no target token');
  let proven: Actor;
  try {
    proven = await actorFromBearer(deps, request.targetToken);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return refuse(`target token refused (${error.code})`);
  }
  if (proven.kind !== 'user' || proven.clientId !== targetClientId) return refuse('the target token is not of the target client');
  if (!proven.roles.includes(SECURITY_ADMIN)) return refuse("the target token is not a Security Administrator's");
  if (proven.twoFactorSetupRequired) return refuse("the target token's user must set up two-factor authentication first");
  return proven;
}
