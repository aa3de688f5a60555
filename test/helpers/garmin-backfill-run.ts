/**
 * One run of Garmin backfills at real volume, meant to be its own process (started with a heap
 * limit by test/integration/garmin-backfill-memory.test.ts and bench/garmin-backfill.ts): the
 * Garmin fake at a real watch's sample density (garmin-data.ts REAL_VOLUME) keeping DAYS days of
 * history, in a worker thread of its own (so the heap measured and limited is the service's alone),
 * the service (on a test database of its own), USERS accounts
 * connected one after another (each connection asks for its backfill; Garmin answers with pings
 * whose callbacks are pulled), a webhook destination that takes every event. When every backfill
 * job is done and every refetch settled, it prints one JSON line: the records stored per user and
 * type, the records the fake holds for those days, the webhook events received, the heap once the
 * service is up, and the peak RSS (the process: fake and embedded store included), heap (the
 * service's, sampled every 50 ms) and live heap (right after each full collection). Its exit code
 * is 0 on success.
 *
 *   node_modules/.bin/node --max-old-space-size=256 test/helpers/garmin-backfill-run.ts DAYS USERS
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { getHeapStatistics, writeHeapSnapshot } from 'node:v8';
import { Worker } from 'node:worker_threads';
import { NOTIFICATION_QUEUE } from '../../src/features/connectors/notification-queues.ts';
import { BACKFILL_QUEUE } from '../../src/features/connectors/backfill.ts';
import { providerEnv } from '../fakes/fake-server.ts';
import { DAY_SECONDS } from '../fakes/garmin-data.ts';
import { createDeveloper, startTestService } from './app.ts';
import { connectThroughFake } from './connections.ts';
import { unsettledJobs } from './jobs.ts';
import { until } from './until.ts';
import { setUrl } from './webhook-api.ts';

const DAYS = Number(process.argv[2] ?? 30);
const USERS = Number(process.argv[3] ?? 1);
const TIMEOUT_MS = Number(process.env.GARMIN_RUN_TIMEOUT_MS ?? 20 * 60_000);

// `heap` is the largest heap seen, garbage included (it depends on when the collector runs);
// `live` the largest heap right after a full collection: what the service really holds.
const peaks = { rss: 0, heap: 0, live: 0 };
// GARMIN_RUN_SNAPSHOT_MB: one heap snapshot (in the working folder) once the live heap passes it.
const SNAPSHOT_AT = Number(process.env.GARMIN_RUN_SNAPSHOT_MB ?? 0);
let snapshotTaken = false;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries())
    if ((entry as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) {
      peaks.live = Math.max(peaks.live, process.memoryUsage().heapUsed);
      if (SNAPSHOT_AT && !snapshotTaken && peaks.live > SNAPSHOT_AT * 2 ** 20) {
        snapshotTaken = true;
        process.stderr.write(`heap snapshot: ${writeHeapSnapshot()}\n`);
      }
    }
}).observe({ entryTypes: ['gc'] });
const sample = () => {
  const now = process.memoryUsage();
  peaks.rss = Math.max(peaks.rss, now.rss);
  peaks.heap = Math.max(peaks.heap, now.heapUsed);
};
sample();
const sampler = setInterval(sample, 50);

// A destination that takes every event and keeps only the count.
let events = 0;
const receiver = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    events += 1;
    response.end('ok');
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));

const thread = new Worker(new URL('./garmin-fake-thread.ts', import.meta.url), {
  workerData: { offsetMinutes: 60, historyDays: DAYS, volume: 'real' },
});
const [fake] = (await once(thread, 'message')) as [
  { baseUrl: string; clientId: string; clientSecret: string },
];
const tell = async (message: Record<string, unknown>) => {
  thread.postMessage(message);
  await once(thread, 'message');
};
// RUN_ENGINE=embedded (the benches without DATABASE_URL): the default engine, an embedded
// PostgreSQL of the run's own; else a database on the tests' PostgreSQL.
const EMBEDDED = process.env.RUN_ENGINE === 'embedded';
const service = await startTestService({
  embedded: EMBEDDED,
  env: {
    ...providerEnv('GARMIN', fake),
    GARMIN_REQUEST_BUDGET: '100000/60',
    // The fake makes each real-volume answer as it is read, in a thread on the same (shared)
    // cores: a callback of 90 days of epochs took it longer than the 10 s default deadline to
    // make here, so its pull was retried into the same time-out. The deadline bounds a request's
    // whole exchange; the run measures memory, so it gives the fake the time it needs.
    PROVIDER_HTTP_TIMEOUT_MS: process.env.PROVIDER_HTTP_TIMEOUT_MS ?? '120000',
    PROVIDER_HTTP_RETRY_BASE_MS: '20',
    SANDBOX_ARRIVAL_MINUTES: 'off',
  },
});
const started = Date.now();
global.gc?.();
const baseHeap = process.memoryUsage().heapUsed;
try {
  await service.app.listen({ port: 0, host: '127.0.0.1' });
  const port = (service.app.server.address() as AddressInfo).port;
  await tell({ endpointUrl: `http://127.0.0.1:${port}/providers/GARMIN/webhook` });
  const developer = await createDeveloper(service.ctx);
  // GARMIN_RUN_WEBHOOK=off: no destination, so the data events are not delivered (to tell the
  // delivery's memory from the pull's).
  if (process.env.GARMIN_RUN_WEBHOOK !== 'off')
    await setUrl(service, developer, `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`);
  const users: string[] = [];
  for (let n = 0; n < USERS; n++) {
    await tell({ account: `account-${n + 1}` });
    users.push((await connectThroughFake(service.app, developer, 'GARMIN', fake, `person-${n + 1}`)).userId);
  }
  // What is still awaited, null when nothing: said on stderr now and then, and on a time-out.
  const awaited = async (): Promise<string | null> => {
    const progress = (
      await Promise.all(users.map((id) => service.ctx.connectors.backfill.progress(id)))
    ).flat();
    const open = progress.filter((row) => row.status !== 'done');
    const pending = await service.ctx.db
      .selectFrom('connector_pending_refetches')
      .select('data_kind')
      .execute();
    const jobs = [];
    for (const queue of [BACKFILL_QUEUE, NOTIFICATION_QUEUE])
      jobs.push(...(await unsettledJobs(service.ctx, queue)).map(() => queue));
    if (progress.length > 0 && open.length === 0 && pending.length === 0 && jobs.length === 0) return null;
    const backfills = open.map(
      (row) => `${row.type} ${row.status}${row.lastError ? ` (${row.lastError})` : ''}`,
    );
    return (
      `backfills not done: ${progress.length === 0 ? 'none asked yet' : backfills.join(', ') || 'none'}; ` +
      `pending refetches ${pending.length}; unsettled jobs ${jobs.length}`
    );
  };
  let said = Date.now();
  await until(
    'every backfill done and every refetch settled',
    async () => {
      const state = await awaited();
      if (state && Date.now() - said > 60_000) {
        said = Date.now();
        process.stderr.write(`${Math.round((Date.now() - started) / 1000)} s: ${state}\n`);
      }
      return state ?? true;
    },
    { timeoutMs: TIMEOUT_MS, intervalMs: 500, done: (state) => state === true },
  );
  const rows = await service.ctx.db
    .selectFrom('data_records')
    .select(['user_id', 'type', (eb) => eb.fn.countAll<string>().as('n')])
    .where('user_id', 'in', users)
    .groupBy(['user_id', 'type'])
    .execute();
  const stored: Record<string, Record<string, number>> = {};
  for (const row of rows) (stored[row.user_id] ??= {})[row.type] = Number(row.n);
  // What the fake holds: the local days [today - DAYS, today) (garmin.ts `backfill`).
  const today = Math.floor((Date.now() / 1000 + 60 * 60) / DAY_SECONDS);
  const days = Array.from({ length: DAYS }, (_, index) => today - DAYS + index);
  const expected = {
    daily: days.length,
    sleep: days.length,
    activity: days.filter((day) => day % 2 === 0).length,
    menstruation: days.length,
  };
  const raw = await service.ctx.db
    .selectFrom('raw_payloads')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  sample();
  console.log(
    JSON.stringify({
      engine: EMBEDDED ? 'embedded PostgreSQL' : 'PostgreSQL',
      days: DAYS,
      users: USERS,
      seconds: (Date.now() - started) / 1000,
      stored: users.map((id) => stored[id] ?? {}),
      expected,
      rawPayloads: Number(raw.n),
      events,
      baseHeapMb: Math.round(baseHeap / 2 ** 20),
      peakRssMb: Math.round(peaks.rss / 2 ** 20),
      peakHeapMb: Math.round(peaks.heap / 2 ** 20),
      peakLiveHeapMb: Math.round(peaks.live / 2 ** 20),
      heapLimitMb: Math.round(getHeapStatistics().heap_size_limit / 2 ** 20),
    }),
  );
} finally {
  clearInterval(sampler);
  await service.close();
  await tell({ close: true });
  await thread.terminate();
  receiver.close();
}
