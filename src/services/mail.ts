import type { Kysely } from 'kysely';
import type { Deps } from '#deps';
import type { DB } from '#db/schema';
import type { AfterCommit } from '#db/transaction';
import type { MailContent } from '#mail/templates';
import { getOutbox, insertOutbox, listOutbox, requeueFailedOutbox } from '#repos/outbox';
import { conflict, notFound } from '#errors';
import type { PageInput } from '#db/pagination';
import type { OutboxRow, OutboxStatus } from '#db/schema';
import type { TenantScope } from '#db/tenant';
import { invitationMail } from '#mail/templates';
import { issueUserToken, userTokenTtl } from './user-tokens';

/**
 * Queues a message in the outbox inside the caller's transaction (so it exists
 * exactly when the change that caused it does) and asks the mailer to deliver
 * it once the transaction has committed.
 */
export async function queueMail(
  deps: Deps,
  trx: Kysely<DB>,
  afterCommit: AfterCommit,
  mail: MailContent & { to: string; clientId?: number | null; userId?: number | null },
): Promise<number> {
  const id = await insertOutbox(
    trx,
    {
      client_id: mail.clientId ?? null,
      user_id: mail.userId ?? null,
      kind: mail.kind,
      to_address: mail.to,
      subject: mail.subject,
      text_body: mail.text,
    },
    deps.clock.now().toISOString(),
  );
  afterCommit(() => deps.signals.mailQueued());
  return id;
}

export async function listOutboxMessages(deps: Deps, page: PageInput, status?: OutboxStatus) {
  return listOutbox(deps.db.kysely, page, status);
}

/**
 * Puts failed messages (or one) back in the queue and delivers them now: the
 * CLI waits for the delivery (its process ends next); the daemon hands them to
 * its mailer's loop (`wait: false`) and answers at once.
 */
export async function retryFailedMail(deps: Deps, id?: number, options: { wait?: boolean } = {}): Promise<number> {
  const count = await requeueFailedOutbox(deps.db.kysely, deps.clock.now().toISOString(), id);
  if (count > 0 && options.wait !== false) await deps.signals.deliverMail();
  else if (count > 0) deps.signals.mailQueued();
  return count;
}

/**
 * Retries one failed message from the API.
 * @throws AppError NOT_FOUND (no such message), CONFLICT (it has not failed)
 */
export async function retryOneFailedMail(deps: Deps, id: number): Promise<OutboxRow> {
  const row = await getOutbox(deps.db.kysely, id);
  if (!row) throw notFound('Outbox message');
  if (row.status !== 'failed') throw conflict(`Only a failed message can be retried; this one is ${row.status}`, { status: row.status });
  await retryFailedMail(deps, id, { wait: false });
  return (await getOutbox(deps.db.kysely, id)) ?? row;
}

/**
 * Issues a fresh invitation token for a user and queues the invitation email,
 * inside the caller's transaction (the older invitation link stops working).
 */
export async function sendInvitation(
  deps: Deps,
  trx: Kysely<DB>,
  afterCommit: AfterCommit,
  invite: { scope: TenantScope; user: { id: number; email: string }; clientName: string; now: Date },
): Promise<void> {
  const ttlMs = userTokenTtl(deps.config, 'invite');
  const token = await issueUserToken(trx, invite.scope, invite.user.id, 'invite', invite.now, ttlMs);
  await queueMail(deps, trx, afterCommit, {
    ...invitationMail(deps, { clientName: invite.clientName, token, ttlMs }),
    to: invite.user.email,
    clientId: invite.scope.clientId,
    userId: invite.user.id,
  });
}
