import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema';
import type { Clock } from './clock';
import { countActiveSessionsAcrossClients } from '../repos/sessions';
import { countActiveAdminSessions } from '../repos/system-admins';
import { seatTotalsAcrossClients } from '../repos/licenses';

/**
 * Prometheus metrics of one application instance, in its own Registry (never
 * prom-client's global one: tests start many servers in one process). Served
 * by GET /metrics. Labels stay low-cardinality: the route pattern, never the
 * concrete path.
 */
export interface Metrics {
  registry: Registry;
  /** one finished HTTP request */
  observeRequest(method: string, route: string, status: number, seconds: number): void;
  /** one query through the query builder */
  observeQuery(kind: string, seconds: number): void;
  /** gauges read from the database at scrape time */
  watchDatabase(db: Kysely<DB>, clock: Clock): void;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  // process and runtime metrics, including nodejs_eventloop_lag_seconds and its percentiles
  collectDefaultMetrics({ register: registry });

  const requests = new Counter({
    name: 'wip_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'wip_http_request_duration_seconds',
    help: 'HTTP request latency, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const queries = new Histogram({
    name: 'wip_db_query_duration_seconds',
    help: 'Database query time through the query builder, by statement kind',
    labelNames: ['kind'] as const,
    buckets: [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1],
    registers: [registry],
  });

  // The children of each label set, kept: prom-client hashes a labels object on every call otherwise.
  // Bounded by the routes × methods × statuses the app answers (unmatched paths share one label).
  const byLabels = new Map<string, { count: ReturnType<typeof requests.labels>; time: ReturnType<typeof latency.labels> }>();
  return {
    registry,
    observeRequest(method, route, status, seconds) {
      const key = `${method} ${status} ${route}`;
      let children = byLabels.get(key);
      if (!children) {
        const labels = { method, route, status: String(status) };
        children = { count: requests.labels(labels), time: latency.labels(labels) };
        byLabels.set(key, children);
      }
      children.count.inc();
      children.time.observe(seconds);
    },
    observeQuery(kind, seconds) {
      queries.observe({ kind }, seconds);
    },
    watchDatabase(db, clock) {
      new Gauge({
        name: 'wip_active_sessions',
        help: 'Unrevoked, unexpired sessions, by kind (user or admin)',
        labelNames: ['kind'] as const,
        registers: [registry],
        async collect() {
          const now = clock.now().toISOString();
          const [users, admins] = await Promise.all([countActiveSessionsAcrossClients(db, now), countActiveAdminSessions(db, now)]);
          this.reset();
          this.set({ kind: 'user' }, users);
          this.set({ kind: 'admin' }, admins);
        },
      });
      new Gauge({
        name: 'wip_license_seats',
        help: 'License seats over all clients, by license type and state (allocated by unexpired licenses, used by users)',
        labelNames: ['license_type', 'state'] as const,
        registers: [registry],
        async collect() {
          const { allocated, used } = await seatTotalsAcrossClients(db, clock.now().toISOString());
          this.reset();
          for (const [type, n] of allocated) this.set({ license_type: type, state: 'allocated' }, n);
          for (const [type, n] of used) this.set({ license_type: type, state: 'used' }, n);
        },
      });
    },
  };
}
