// Webhook delivery benchmark: throughput to a local receiver, and emit->receipt latency at a
// steady rate. Runs the real engine (queue, workers, outbox, attempt log) on embedded PGlite in a
// temporary data directory, or on PostgreSQL when DATABASE_URL is set (in a throwaway schema).
//
//   node_modules/.bin/node bench/webhook-delivery.ts
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node_modules/.bin/node bench/webhook-delivery.ts
//
// BENCH_EVENTS (20000), BENCH_RATE (500/s), BENCH_SECONDS (20), BENCH_EMIT (single|tick) and
// BENCH_EMITTERS (4 concurrent emitting transactions, in single mode) change the workload. The
// receiver runs in a worker thread so it does not compete with the service for its event loop.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';
import pg from 'pg';
import { loadConfig } from '../src/core/config.ts';
import { createLogger } from '../src/core/log.ts';
import { buildHealthcheckEvent, healthcheckEnvelope } from '../src/features/webhooks/events.ts';
import { tunedLaunch } from '../src/runtime/memory-limits.ts';
import { startRuntime } from '../src/runtime/runtime.ts';
import { generateWebhookSecret } from '../src/features/webhooks/signing.ts';
import { version } from '../src/core/version.ts';
import { reportFigures } from './figures.ts';
import { plainSignedPostLoop } from './plain-signed-post.ts';

/** Wall-clock milliseconds with sub-millisecond precision, comparable across threads. */
const now = () => performance.timeOrigin + performance.now();

type FromReceiver =
  | { kind: 'listening'; port: number }
  | { kind: 'count'; count: number }
  | { kind: 'times'; times: [string, number][] };

if (!isMainThread) {
  // The receiver: answers 204 at once and remembers when each webhook-id first arrived.
  const seen = new Map<string, number>();
  const port = parentPort!;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const id = String(request.headers['webhook-id']);
      if (!seen.has(id)) seen.set(id, now());
      response.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    port.postMessage({
      kind: 'listening',
      port: typeof address === 'object' && address ? address.port : 0,
    } satisfies FromReceiver);
  });
  const ticker = setInterval(
    () => port.postMessage({ kind: 'count', count: seen.size } satisfies FromReceiver),
    50,
  );
  port.on('message', (message: string) => {
    if (message === 'times') port.postMessage({ kind: 'times', times: [...seen] } satisfies FromReceiver);
    if (message === 'reset') seen.clear();
    if (message === 'stop') {
      clearInterval(ticker);
      server.closeAllConnections();
      server.close();
      port.close();
    }
  });
} else {
  // Measured as a worker process runs (the V8 and malloc sizing `tributary serve --role worker`
  // gives itself, src/runtime/memory-limits.ts): re-executes itself once with it.
  const launch = process.execve
    ? tunedLaunch(['serve', '--role', 'worker'], process.env, process.execArgv)
    : null;
  if (launch && process.execve)
    process.execve(
      process.execPath,
      [process.execPath, ...launch.execArgv, ...process.argv.slice(1)],
      launch.env,
    );
  await main();
}

/** BENCH_CPU_PROFILE=<dir>: a CPU profile of this thread per phase (plain loop, engine, latency). */
async function profiled<T>(name: string, run: () => Promise<T>): Promise<T> {
  const dir = process.env.BENCH_CPU_PROFILE;
  if (!dir) return run();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  try {
    return await run();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
}

async function main() {
  const events = Number(process.env.BENCH_EVENTS ?? 20_000);
  const rate = Number(process.env.BENCH_RATE ?? 500);
  const seconds = Number(process.env.BENCH_SECONDS ?? 20);
  // single: one transaction per event (a feature emitting as each change commits); tick: the
  // events due in each 10 ms tick share one transaction (a feature emitting in bulk).
  const perTransaction = process.env.BENCH_EMIT === 'tick' ? 'tick' : 'single';
  const emitters = Number(process.env.BENCH_EMITTERS ?? 4);
  const dataDir = mkdtempSync(join(tmpdir(), 'tributary-bench-'));
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const config = loadConfig({
    ...process.env,
    DATA_DIR: dataDir,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    ...(process.env.DATABASE_URL
      ? { DATABASE_SCHEMA: schema, ENCRYPTION_KEY: randomBytes(32).toString('hex') }
      : {}),
  });

  const receiver = new Worker(new URL(import.meta.url));
  let received = 0;
  let onTimes: ((times: Map<string, number>) => void) | undefined;
  const listening = new Promise<number>((resolve) => {
    receiver.on('message', (message: FromReceiver) => {
      if (message.kind === 'listening') resolve(message.port);
      if (message.kind === 'count') received = message.count;
      if (message.kind === 'times') onTimes?.(new Map(message.times));
    });
  });
  const receiverTimes = () =>
    new Promise<Map<string, number>>((resolve) => {
      onTimes = resolve;
      receiver.postMessage('times');
    });
  const waitForReceived = async (count: number, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    while (received < count) {
      if (Date.now() > deadline)
        throw new Error(`only ${received} of ${count} deliveries arrived within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const port = await listening;

  const runtime = await startRuntime(config, 'worker', createLogger(config.logLevel));
  const { ctx } = runtime;
  const storage = ctx.store.kind === 'pglite' ? 'embedded PGlite (on disk)' : 'PostgreSQL';
  const settings = ctx.webhooks.settings;
  console.log(
    `webhook delivery benchmark on ${storage}; ${settings.workers} main-lane workers, batches of ${settings.batchSize} jobs sent ${settings.concurrency} at a time`,
  );
  try {
    const developer = await ctx.developers.create({ name: 'Bench', environment: 'sandbox' });
    await ctx.webhooks.setDestination(developer.developer.id, { url: `http://127.0.0.1:${port}/hooks` });
    const event = () =>
      healthcheckEnvelope(
        buildHealthcheckEvent({ createdAt: new Date(), trendPercentage: 0, sentWebhooksLastHour: 0 }),
      );
    const devId = developer.developer.id;

    // 0. The anchor: a plain signed-POST loop, 100 in flight, to the same receiver.
    const plainLoop = () =>
      plainSignedPostLoop({
        url: `http://127.0.0.1:${port}/hooks`,
        secret: generateWebhookSecret(),
        body: JSON.stringify(event().payload),
        total: events,
        inFlight: 100,
        version,
      });
    const plainBefore = await profiled('plain', plainLoop);
    receiver.postMessage('reset');
    received = 0;
    await new Promise((resolve) => setTimeout(resolve, 200));
    console.log(`plain signed-POST loop, 100 in flight: ${Math.round(plainBefore.perSecond)}/s`);

    // 1. Throughput: emit N events in transactions of 500 while the workers deliver.
    const started = now();
    const emitted = await profiled('engine', async () => {
      for (let sent = 0; sent < events; sent += 500) {
        const size = Math.min(500, events - sent);
        await ctx.db.transaction().execute((trx) =>
          ctx.webhooks.emitMany(
            trx,
            devId,
            Array.from({ length: size }, () => event()),
          ),
        );
      }
      const emittedAt = now();
      await waitForReceived(events, 600_000);
      return emittedAt;
    });
    const times = [...(await receiverTimes()).values()];
    const last = Math.max(...times);
    const first = Math.min(...times);
    console.log(`throughput: ${events} events`);
    console.log(
      `  emitted in ${((emitted - started) / 1000).toFixed(1)} s (${Math.round(events / ((emitted - started) / 1000))} events/s)`,
    );
    console.log(
      `  end to end (first emit -> last receipt): ${((last - started) / 1000).toFixed(1)} s = ${Math.round(events / ((last - started) / 1000))} deliveries/s`,
    );
    console.log(
      `  receiver side (first -> last receipt):   ${Math.round(events / ((last - first) / 1000))} deliveries/s`,
    );
    const deliveriesPerSecond = events / ((last - started) / 1000);

    // 2. Latency at a steady rate: by default one transaction per event, as a feature emitting one
    // change at a time does.
    receiver.postMessage('reset');
    received = 0;
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const emittedAt = new Map<string, number>();
    const total = rate * seconds;
    const tickMs = 10;
    const begin = now();
    let next = 0;
    // A few emitters, each running one transaction at a time: like request handlers, they leave
    // the rest of the connection pool to the workers. Latency counts from the start of the emit.
    const emitter = async () => {
      while (next < total) {
        const wait = begin + (next / rate) * 1000 - now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        const due =
          perTransaction === 'single' ? 1 : Math.floor(((now() - begin + tickMs) / 1000) * rate) - next;
        const count = Math.max(1, Math.min(due, total - next));
        next += count;
        const at = now();
        const ids = await ctx.db.transaction().execute((trx) =>
          count === 1
            ? ctx.webhooks.emit(trx, devId, event()).then((id) => [id])
            : ctx.webhooks.emitMany(
                trx,
                devId,
                Array.from({ length: count }, () => event()),
              ),
        );
        for (const id of ids) emittedAt.set(id, at);
      }
    };
    await Promise.all(Array.from({ length: perTransaction === 'single' ? emitters : 1 }, emitter));
    const achieved = total / ((now() - begin) / 1000);
    await waitForReceived(total, 120_000);
    const receipts = await receiverTimes();
    const latencies = [...emittedAt]
      .map(([id, at]) => (receipts.get(id) ?? Number.NaN) - at)
      .sort((a, b) => a - b);
    const pct = (p: number) =>
      latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!.toFixed(1);
    console.log(
      `latency: ${total} events at a steady ${rate}/s for ${seconds} s (achieved ${Math.round(achieved)}/s), ` +
        `${perTransaction === 'single' ? 'one transaction per event' : 'one transaction per 10 ms tick'}, emit -> receipt`,
    );
    console.log(
      `  p50 ${pct(50)} ms   p90 ${pct(90)} ms   p99 ${pct(99)} ms   max ${latencies.at(-1)!.toFixed(1)} ms`,
    );
    reportFigures({
      deliveriesPerSecond,
      latencyRate: rate,
      achievedRate: achieved,
      latencyP50Ms: Number(pct(50)),
      latencyP99Ms: Number(pct(99)),
    });
  } finally {
    receiver.postMessage('stop');
    await runtime.stop();
    if (process.env.DATABASE_URL) {
      const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.query(`DROP SCHEMA IF EXISTS ${schema}_jobs CASCADE`);
      await client.end();
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}
