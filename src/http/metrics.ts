import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Refusals } from '../features/data/refusals.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { App } from './app-type.ts';

/** Prometheus metrics; one registry per app so several apps (tests) never share counters. */
export function registerMetrics(app: App, jobs: JobQueue, refusals: Refusals): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'tributary_' });

  const requests = new Counter({
    name: 'tributary_http_requests_total',
    help: 'HTTP requests by method, route pattern and status code',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'tributary_http_request_duration_seconds',
    help: 'HTTP request latency by method, route pattern and status code',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  new Gauge({
    name: 'tributary_job_queue_depth',
    help: 'Jobs waiting or running per queue',
    labelNames: ['queue', 'state'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const [queue, depth] of Object.entries(await jobs.depths())) {
        this.set({ queue, state: 'queued' }, depth.queued);
        this.set({ queue, state: 'active' }, depth.active);
      }
    },
  });

  new Counter({
    name: 'tributary_records_refused_total',
    help: 'Provider records refused before storing, by provider, data type, stage (normalizer: the payload is not in its documented shape; model: the normalized record fails the unified model) and field',
    labelNames: ['provider', 'type', 'stage', 'field'] as const,
    registers: [registry],
    collect() {
      // The data feature counts (features/data/refusals.ts); this reads its running totals.
      this.reset();
      for (const entry of refusals.snapshot())
        this.inc(
          { provider: entry.provider, type: entry.type, stage: entry.stage, field: entry.field },
          entry.count,
        );
    },
  });

  app.addHook('onResponse', (request, reply, done) => {
    // The route pattern, never the raw URL: ids in paths would explode label cardinality.
    const labels = {
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      status: String(reply.statusCode),
    };
    requests.inc(labels);
    latency.observe(labels, reply.elapsedTime / 1000);
    done();
  });

  return registry;
}
