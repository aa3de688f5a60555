// Destination isolation benchmark (issue 40, row 1): developer B's delivery latency to its webhook,
// first alone, then while developer C's S3 destination accepts connections and never answers and
// C emits bursts of events for it. Each run is a fresh service (embedded PostgreSQL in a temporary
// data directory, or PostgreSQL in a throwaway schema when DATABASE_URL is set) with the default
// delivery settings.
//
//   node_modules/.bin/node bench/destination-isolation.ts
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node_modules/.bin/node bench/destination-isolation.ts
//
// B emits BENCH_B_EVENTS (200) events one per transaction, one every 25 ms (as test sends and
// provider notifications arrive); its latency is from the emit's commit to the request's arrival
// at a 204 receiver on loopback. In the other runs C first emits BENCH_C_EVENTS (1000) events in
// transactions of 50, and again as many while B emits, to an S3 destination: one that answers
// (the S3 test server: the load of C's events alone) and one that accepts connections and never
// answers. Prints p50 and p95 of each run.
import { createServer } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { createLogger } from '../src/core/log.ts';
import type { WebhookEnvelope } from '../src/features/delivery/events.ts';
import { startRuntime } from '../src/runtime/runtime.ts';
import { S3_TEST_KEY, startS3Server } from '../test/helpers/s3-server.ts';
import { startBlackHole } from '../test/helpers/silent-listeners.ts';
import { benchConfig, removeBenchConfig } from './bench-config.ts';
import { reportFigures } from './figures.ts';

const B_EVENTS = Number(process.env.BENCH_B_EVENTS ?? 200);
const C_EVENTS = Number(process.env.BENCH_C_EVENTS ?? 1000);

let serial = 0;
function envelope(userId: string): WebhookEnvelope {
  serial++;
  const day = new Date(Date.UTC(2020, 0, 1) + serial * 86_400_000).toISOString().slice(0, 10);
  return {
    type: 'sleep',
    userId,
    // About no connection: every event is sent (none withheld by connection state).
    suppressible: false,
    payload: {
      type: 'sleep',
      user: { user_id: userId, provider: 'OURA', reference_id: null, active: true },
      data: [{ metadata: { summary_id: `sleep-${day}`, start_time: `${day}T23:00:00.000000+00:00` } }],
      version: '2022-03-16.0',
    },
  };
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

type CMode = 'none' | 'answering' | 'silent';

async function run(mode: CMode): Promise<{ p50: number; p95: number; max: number }> {
  const made = benchConfig();
  const { config } = made;
  const arrived = new Map<string, number>();
  const receiver = createServer((request, response) => {
    const id = String(request.headers['webhook-id'] ?? '');
    request.resume();
    request.on('end', () => {
      if (!arrived.has(id)) arrived.set(id, performance.now());
      response.writeHead(204).end();
    });
  });
  receiver.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const address = receiver.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const blackHole = await startBlackHole();
  const s3 = await startS3Server(['bench']);
  const runtime = await startRuntime(config, 'worker', createLogger(config.logLevel));
  const { ctx } = runtime;
  const emitted = new Map<string, number>();
  try {
    const b = (await ctx.developers.create({ name: 'B', environment: 'sandbox' })).developer.id;
    await ctx.webhooks.setDestination(b, { url: `http://127.0.0.1:${port}/hooks` });
    const c = (await ctx.developers.create({ name: 'C', environment: 'sandbox' })).developer.id;
    const burstOfC = async () => {
      for (let sent = 0; sent < C_EVENTS; sent += 50) {
        const envelopes = Array.from({ length: 50 }, () => envelope('user-c'));
        await ctx.db.transaction().execute((trx) => ctx.webhooks.emitMany(trx, c, envelopes));
      }
    };
    let during: Promise<void> = Promise.resolve();
    if (mode !== 'none') {
      await ctx.webhooks.destinations.create(c, {
        kind: 's3',
        settings: {
          bucket: 'bench',
          endpoint: mode === 'silent' ? blackHole.url : s3.endpoint,
          access_key_id: S3_TEST_KEY.accessKeyId,
          secret_access_key: S3_TEST_KEY.secretAccessKey,
        },
      });
      await burstOfC();
      during = burstOfC();
    }
    for (let i = 0; i < B_EVENTS; i++) {
      const [id] = await ctx.db
        .transaction()
        .execute((trx) => ctx.webhooks.emitMany(trx, b, [envelope('user-b')]));
      emitted.set(id!, performance.now());
      await sleep(25);
    }
    await during;
    const deadline = Date.now() + 300_000;
    while (arrived.size < B_EVENTS && Date.now() < deadline) await sleep(50);
    const latencies = [...emitted]
      .map(([id, at]) => (arrived.get(id) ?? Number.POSITIVE_INFINITY) - at)
      .sort((x, y) => x - y);
    return { p50: percentile(latencies, 50), p95: percentile(latencies, 95), max: latencies.at(-1)! };
  } finally {
    await runtime.stop();
    await blackHole.close();
    await s3.close();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    receiver.closeAllConnections();
    await removeBenchConfig(made);
  }
}

const storage = process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded PostgreSQL';
console.log(
  `destination isolation benchmark on ${storage}: B ${B_EVENTS} events; C ${2 * C_EVENTS} events to an S3 destination`,
);
const show = (label: string, figures: { p50: number; p95: number; max: number }) =>
  console.log(
    `  ${label.padEnd(32)} p50 ${figures.p50.toFixed(0)} ms  p95 ${figures.p95.toFixed(0)} ms  max ${figures.max.toFixed(0)} ms`,
  );
const baseline = await run('none');
show('B alone:', baseline);
const answering = await run('answering');
show("B beside C's answering S3:", answering);
const beside = await run('silent');
show("B beside C's silent S3:", beside);
console.log(`  p95 ratio (beside silent C / alone): ${(beside.p95 / baseline.p95).toFixed(2)} (goal ≤ 2)`);
// The same load of C's events, answered: what C's silence alone adds.
console.log(`  p95 ratio (beside silent C / beside answering C): ${(beside.p95 / answering.p95).toFixed(2)}`);
reportFigures({
  isolation_B_AloneP95Ms: baseline.p95,
  isolation_B_BesideAnsweringP95Ms: answering.p95,
  isolation_B_BesideSilentP95Ms: beside.p95,
});
