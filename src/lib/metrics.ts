import { Gauge, Registry, collectDefaultMetrics } from 'prom-client';

/** What the database gauges read at scrape time; the composition root answers from the repositories. */
export interface DatabaseGauges {
  /** unrevoked, unexpired sessions now */
  activeSessions(): Promise<{ users: number; admins: number }>;
  /** seats over all clients by license type: allocated by unexpired licenses, used by users */
  seatTotals(): Promise<{ allocated: Iterable<[string, number]>; used: Iterable<[string, number]> }>;
}

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
  observeQuery: (kind: string, seconds: number) => void;
  /** gauges read from the database at scrape time */
  watchDatabase(source: DatabaseGauges): void;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  // process and runtime metrics, including nodejs_eventloop_lag_seconds and its percentiles
  collectDefaultMetrics({ register: registry });

  const requests = requestMetrics(registry);
  const queries = plainHistogram(registry, {
    name: 'wip_db_query_duration_seconds',
    help: 'Database query time through the query builder, by statement kind',
    buckets: [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1],
  });

  return {
    registry,
    observeRequest: requests.observe,
    observeQuery(kind, seconds) {
      queries.observe(kind, () => ({ kind }), seconds);
    },
    watchDatabase(source) {
      new Gauge({
        name: 'wip_active_sessions',
        help: 'Unrevoked, unexpired sessions, by kind (user or admin)',
        labelNames: ['kind'] as const,
        registers: [registry],
        async collect() {
          const { users, admins } = await source.activeSessions();
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
          const { allocated, used } = await source.seatTotals();
          this.reset();
          for (const [type, n] of allocated) this.set({ license_type: type, state: 'allocated' }, n);
          for (const [type, n] of used) this.set({ license_type: type, state: 'used' }, n);
        },
      });
    },
  };
}

const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * `wip_http_requests_total` (counter) and `wip_http_request_duration_seconds`
 * (histogram), by method, route pattern and status, from one plain histogram
 * (see plainHistogram). The label sets are bounded by the routes × methods ×
 * statuses the app answers (unmatched paths share one label).
 */
function requestMetrics(registry: Registry) {
  const histogram = plainHistogram(registry, {
    name: 'wip_http_request_duration_seconds',
    help: 'HTTP request latency, by method, route pattern and status',
    buckets: REQUEST_BUCKETS,
    counter: { name: 'wip_http_requests_total', help: 'HTTP requests answered, by method, route pattern and status' },
  });
  return {
    observe(method: string, route: string, status: number, seconds: number): void {
      histogram.observe(`${method} ${status} ${route}`, () => ({ method, route, status: String(status) }), seconds);
    },
  };
}

/**
 * A histogram (and, when asked, a counter of the same observations) kept as
 * plain numbers per label set and turned into the exposition only when
 * scraped. prom-client's own observe validates and hashes the labels on each
 * call, which is measurable on the request path (every request observes once,
 * and once per query); here an observation is a Map lookup by a key the caller
 * builds and a few additions. `labels` is called once per new key.
 */
function plainHistogram(
  registry: Registry,
  options: { name: string; help: string; buckets: readonly number[]; counter?: { name: string; help: string } },
) {
  interface Series {
    labels: Record<string, string>;
    /** per bucket, not cumulative; the last one is +Inf */
    buckets: number[];
    sum: number;
    count: number;
  }
  const { name, buckets } = options;
  const series = new Map<string, Series>();
  const metric = (name: string, help: string, type: 'counter' | 'histogram', values: () => unknown[]) => ({
    name,
    help,
    type,
    aggregator: 'sum',
    get: async () => ({ name, help, type, aggregator: 'sum', values: values() }),
  });
  if (options.counter) {
    registry.registerMetric(
      metric(options.counter.name, options.counter.help, 'counter', () =>
        [...series.values()].map((s) => ({ labels: s.labels, value: s.count })),
      ) as never,
    );
  }
  registry.registerMetric(
    metric(name, options.help, 'histogram', () =>
      [...series.values()].flatMap((s) => {
        let cumulative = 0;
        return [
          ...s.buckets.map((n, i) => {
            cumulative += n;
            return { labels: { ...s.labels, le: buckets[i] ?? '+Inf' }, value: cumulative, metricName: `${name}_bucket` };
          }),
          { labels: s.labels, value: s.sum, metricName: `${name}_sum` },
          { labels: s.labels, value: s.count, metricName: `${name}_count` },
        ];
      }),
    ) as never,
  );
  return {
    observe(key: string, labels: () => Record<string, string>, seconds: number): void {
      let s = series.get(key);
      if (s === undefined) {
        s = { labels: labels(), buckets: new Array<number>(buckets.length + 1).fill(0), sum: 0, count: 0 };
        series.set(key, s);
      }
      let i = 0;
      while (i < buckets.length && seconds > buckets[i]) i++;
      s.buckets[i]++;
      s.sum += seconds;
      s.count++;
    },
  };
}
