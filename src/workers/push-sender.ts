import type WebPush from 'web-push';
import type { Config } from '#config';
import type { Database } from '#db/connection';
import type { PushOutboxRow } from '#db/schema';
import type { Clock } from '#lib/clock';
import { OutboxWorker } from './outbox-worker';
import type { Logger } from '#logger';
import { deleteSubscription, getSubscription, markPushSent } from '#repos/push';
import type { Secrets } from '#secrets';

/** How long a push service keeps an undelivered message for an offline device. */
const PUSH_TTL_SECONDS = 24 * 3600;
/** One push request: a push service that does not answer in time is retried later. */
const REQUEST_TIMEOUT_MS = 10_000;

/**
 * Sends the push queue (Web Push, RFC 8030, with VAPID, RFC 8292). `web-push`
 * builds each request — the payload encrypted for the subscription (aes128gcm,
 * RFC 8291) and the VAPID JWT — and it is sent here with a timeout and without
 * following redirects. 2xx: sent. 404/410: the browser dropped the
 * subscription, so it is deleted with what was queued for it. Anything else is
 * retried with backoff by the shared OutboxWorker.
 */
export class PushSender {
  private readonly worker: OutboxWorker<'push_outbox'>;

  constructor(private readonly deps: { config: Config; db: Database; clock: Clock; logger: Logger; secrets: Secrets }) {
    this.worker = new OutboxWorker({
      name: 'push',
      table: 'push_outbox',
      db: deps.db.kysely,
      clock: deps.clock,
      logger: deps.logger,
      pollInterval: deps.config.pushPollInterval,
      leaseMs: deps.config.outboxLease,
      maxAttempts: deps.config.pushMaxAttempts,
      deliver: (row) => this.deliverOne(row),
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

  private async deliverOne(row: PushOutboxRow): Promise<void> {
    const { db, clock, logger, secrets, config } = this.deps;
    const subscription = await getSubscription(db.kysely, row.client_id, row.subscription_id);
    if (!subscription) return; // unsubscribed since: the row went with it
    // web-push is loaded with the first push sent, not at start-up
    const request = (require('web-push') as typeof WebPush).generateRequestDetails(
      { endpoint: subscription.endpoint, keys: { p256dh: subscription.p256dh, auth: subscription.auth } },
      row.payload,
      {
        vapidDetails: { subject: vapidSubject(config), publicKey: secrets.vapid.publicKey, privateKey: secrets.vapid.privateKey },
        TTL: PUSH_TTL_SECONDS,
        contentEncoding: 'aes128gcm',
      },
    );
    const response = await fetch(request.endpoint, {
      method: request.method,
      headers: Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)])),
      body: request.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    await response.body?.cancel();
    if (response.status === 404 || response.status === 410) {
      logger.info({ subscriptionId: subscription.id, status: response.status }, 'push subscription expired; deleted');
      await deleteSubscription(db.kysely, row.client_id, subscription.id);
      return;
    }
    if (response.status < 200 || response.status > 299) throw new Error(`the push service answered ${response.status}`);
    await markPushSent(db.kysely, row, clock.now().toISOString());
  }
}

/**
 * The VAPID `sub` claim: how a push service's operator reaches this
 * appliance's. `pushSubject` when set; else publicUrl when it is https; else a
 * mailto: of the mail sender address.
 */
export function vapidSubject(config: Pick<Config, 'pushSubject' | 'publicUrl' | 'mailFrom'>): string {
  if (config.pushSubject) return config.pushSubject;
  if (config.publicUrl.startsWith('https://')) return config.publicUrl;
  const address = /<([^>]+)>/.exec(config.mailFrom)?.[1] ?? config.mailFrom;
  return `mailto:${address.trim()}`;
}
