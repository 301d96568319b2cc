import type { Histogram } from 'prom-client';
import type { TestServer } from './server';

/**
 * Settings for a test that counts SQL statements: the background senders (mail,
 * push, webhooks) poll their queues on timers and would add their own
 * statements to whatever request is being counted.
 */
export const QUIET_POLLERS = { WIP_MAIL_POLL_INTERVAL: '1h', WIP_PUSH_POLL_INTERVAL: '1h', WIP_WEBHOOK_POLL_INTERVAL: '1h' };

/** Statements the server has sent through the query builder so far, where it observes them itself (wip_db_query_duration_seconds). */
export async function statementsSoFar(server: TestServer): Promise<number> {
  const histogram = server.deps.metrics.registry.getSingleMetric('wip_db_query_duration_seconds') as Histogram;
  const { values } = await histogram.get();
  return values.filter((v) => v.metricName === 'wip_db_query_duration_seconds_count').reduce((sum, v) => sum + v.value, 0);
}

/**
 * Waits until the senders a commit kicked (mail and push of notifications,
 * webhooks) have sent what was queued: call before counting, so their
 * statements are not counted with the request measured.
 */
export async function sendersSettled(server: TestServer): Promise<void> {
  await server.deps.mailer.deliverDue();
  await server.deps.push.deliverDue();
}
