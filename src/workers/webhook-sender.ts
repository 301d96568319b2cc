import { Webhook } from 'standardwebhooks';
import type { Deps } from '#deps';
import { withTransaction } from '#db/transaction';
import { tenantScope } from '#db/tenant';
import { OutboxWorker } from './outbox-worker';
import { OutboundError, outboundRequest } from '#lib/outbound-http';
import { webhookDisabledMail } from '#mail/templates';
import { SECURITY_ADMIN } from '#policies/roles';
import { listUsersWithRole } from '#repos/users';
import { failPendingDeliveries, loadDeliveryForSending, recordDeliveryAttempt, updateWebhook } from '#repos/webhooks';
import { queueMail } from '#services/mail';
import { webhookSecretBox } from '#services/webhooks';
import { type NetworkPolicy, TargetRefused } from '#lib/network-policy';

/** A 2xx within this time is a success (Standard Webhooks). */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** An endpoint failing every delivery for this long is disabled and its Security Administrators are mailed. */
export const DISABLE_AFTER_MS = 5 * 86_400_000;
/** What is read of a receiver's answer (kept for the delivery log). */
const MAX_RESPONSE_BYTES = 4096;

interface Outcome {
  ok: boolean;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
}

/**
 * Delivers webhook_deliveries rows (Standard Webhooks: webhook-id,
 * webhook-timestamp, webhook-signature over `id.timestamp.body`), through the
 * shared outbox loop. Every attempt resolves and checks the target again and
 * connects to the address it checked; redirects are not followed. A failure
 * is retried on `webhookRetrySchedule` with the same webhook-id.
 */
export class WebhookSender {
  private readonly worker: OutboxWorker<'webhook_deliveries'>;
  readonly policy: NetworkPolicy;

  constructor(private readonly deps: Deps) {
    const db = deps.db.kysely;
    this.policy = deps.webhookPolicy;
    // the shared outbox loop claims due rows; each delivery records its own
    // outcome and next attempt (webhookRetrySchedule), so it never throws for a failed send.
    // What does throw is unexpected (a corrupt sealed secret, a bad row): the loop
    // records it and retries it with backoff, and gives up after as many attempts as
    // the schedule allows a failing send (the row is `failed`), so it is not retried forever
    this.worker = new OutboxWorker({
      name: 'webhooks',
      table: 'webhook_deliveries',
      db,
      clock: deps.clock,
      logger: deps.logger,
      pollInterval: deps.config.webhookPollInterval,
      leaseMs: deps.config.outboxLease,
      maxAttempts: deps.config.webhookRetrySchedule.length + 1,
      deliver: async (row) => {
        await this.deliverOne(row.id);
      },
    });
  }

  start(): void {
    this.worker.start();
  }

  kick(): void {
    this.worker.kick();
  }

  deliverDue(): Promise<number> {
    return this.worker.deliverDue();
  }

  close(): Promise<void> {
    return this.worker.close();
  }

  private async deliverOne(id: number): Promise<boolean> {
    const { db, clock, config, logger } = this.deps;
    const row = await loadDeliveryForSending(db.kysely, id);
    if (!row) return false;
    const started = clock.now();
    if (!row.active) {
      await failPendingDeliveries(db.kysely, row.webhook_id, 'the endpoint is disabled', started.toISOString());
      return false;
    }
    const outcome = await this.post(row, started, new Date());
    const attempts = row.attempts + 1;
    const now = clock.now();
    const nowIso = now.toISOString();
    const delay = config.webhookRetrySchedule[attempts - 1];
    await recordDeliveryAttempt(db.kysely, id, {
      status: outcome.ok ? 'succeeded' : delay === undefined ? 'failed' : 'pending',
      attempts,
      next_attempt_at: outcome.ok || delay === undefined ? nowIso : new Date(now.getTime() + delay).toISOString(),
      last_status_code: outcome.statusCode,
      last_duration_ms: outcome.durationMs,
      last_error: outcome.error,
      last_attempt_at: nowIso,
    });
    if (outcome.ok) {
      if (row.failing_since) await updateWebhook(db.kysely, row.client_id, row.webhook_id, { failing_since: null });
    } else {
      logger.warn(
        { deliveryId: id, webhookId: row.webhook_id, attempts, statusCode: outcome.statusCode, error: outcome.error },
        'webhook delivery attempt failed',
      );
      await this.noteFailure(row, outcome, now);
    }
    return outcome.ok;
  }

  private async post(row: NonNullable<Awaited<ReturnType<typeof loadDeliveryForSending>>>, at: Date, wallClock: Date): Promise<Outcome> {
    const started = Date.now();
    const done = (ok: boolean, statusCode: number | null, error: string | null): Outcome => ({
      ok,
      statusCode,
      durationMs: Date.now() - started,
      error,
    });
    const url = new URL(row.url);
    let target: { address: string; family: 4 | 6 };
    try {
      target = await this.policy.resolve(url);
    } catch (error) {
      if (error instanceof TargetRefused) return done(false, null, `refused: ${error.message}`);
      throw error;
    }
    // derived at use, not when the sender is built: on PostgreSQL the sender exists before the
    // shared secrets are read (bootstrap), and a box made then opened nothing the API had sealed
    const box = webhookSecretBox(this.deps);
    const secrets = [box.open(row.secret)];
    if (row.previous_secret && row.previous_secret_expires_at && row.previous_secret_expires_at > at.toISOString())
      secrets.push(box.open(row.previous_secret));
    // webhook-timestamp is checked by receivers against their own clock (replay defence): the wall clock, not the injected one
    const signature = secrets.map((secret) => new Webhook(secret).sign(row.event_public_id, wallClock, row.payload)).join(' ');
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'wip-webhooks/1',
      'webhook-id': row.event_public_id,
      'webhook-timestamp': String(Math.floor(wallClock.getTime() / 1000)),
      'webhook-signature': signature,
    };
    try {
      // connected to the address just checked, whatever DNS says by the time the socket opens
      const response = await outboundRequest({
        url,
        method: 'POST',
        headers,
        body: row.payload,
        pinned: target,
        timeoutMs: DELIVERY_TIMEOUT_MS,
        maxResponseBytes: MAX_RESPONSE_BYTES,
        oversize: 'truncate',
      });
      const status = response.status;
      if (status >= 200 && status < 300) return done(true, status, null);
      if (status >= 300 && status < 400) return done(false, status, `redirect to ${response.headers.location ?? '(none)'} not followed`);
      return done(false, status, `HTTP ${status}`);
    } catch (error) {
      if (error instanceof OutboundError) return done(false, null, error.message);
      throw error;
    }
  }

  /** Starts or extends the endpoint's failing streak; after 5 days it is disabled and its administrators are told. */
  private async noteFailure(
    row: NonNullable<Awaited<ReturnType<typeof loadDeliveryForSending>>>,
    outcome: Outcome,
    now: Date,
  ): Promise<void> {
    const deps = this.deps;
    const nowIso = now.toISOString();
    if (!row.failing_since) {
      await updateWebhook(deps.db.kysely, row.client_id, row.webhook_id, { failing_since: nowIso });
      return;
    }
    if (now.getTime() - Date.parse(row.failing_since) < DISABLE_AFTER_MS) return;
    await withTransaction(deps.db, async (trx, afterCommit) => {
      const reason = `failing since ${row.failing_since}`;
      const updated = await updateWebhook(trx, row.client_id, row.webhook_id, { active: 0, disabled_reason: reason, updated_at: nowIso });
      if (!updated) return;
      await failPendingDeliveries(trx, row.webhook_id, 'the endpoint was disabled', nowIso);
      if (row.client_id === null) return;
      const scope = tenantScope(row.client_id);
      for (const admin of await listUsersWithRole(trx, scope, SECURITY_ADMIN)) {
        const mail = webhookDisabledMail({ url: row.url, failingSince: row.failing_since!, lastError: outcome.error ?? 'unknown' });
        await queueMail(deps, trx, afterCommit, { ...mail, to: admin.email, clientId: row.client_id, userId: admin.id });
      }
    });
    deps.logger.warn({ webhookId: row.webhook_id, clientId: row.client_id }, 'webhook endpoint disabled after failing for 5 days');
  }
}
