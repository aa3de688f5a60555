// Webhook delivery benchmark: throughput to a local receiver beside its anchor, and emit->receipt
// latency at a steady rate. Runs the real engine (queue, workers, outbox, attempt log) on embedded
// PostgreSQL in a temporary data directory, or on PostgreSQL when DATABASE_URL is set (in a throwaway
// schema).
//
//   node_modules/.bin/node bench/webhook-delivery.ts
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node_modules/.bin/node bench/webhook-delivery.ts
//
// Throughput: BENCH_EVENTS (20000) events emitted in transactions of 500 (four at a time), first emit to last
// receipt, divided by a plain signed-POST loop (100 in flight) to the same receiver run just
// before and after (webhookRatio).
// Latency: BENCH_RATE (`max`, or events/s) offered for BENCH_SECONDS (20). A number is measured
// as asked; if the emitters do not reach it (97 %) or delivery falls behind, the bench says so and
// steps down to the highest rate that is sustained and measures that. `max` searches upward from
// 250/s (4 s probes) and measures the highest sustained rate for the full run (stepping down
// further if it does not hold that long). BENCH_EMIT (single|tick) and
// BENCH_EMITTERS (4 concurrent emitting transactions, in single mode) change the workload.
// The process's CPU is also split by thread (the service's, the receiver's), with how busy the
// service's event loop was, and what the service's thread allocated and was paused by GC per
// delivery (V8's GC trace: bytes hardly move with the machine's load, unlike CPU time); BENCH_PLAIN_AT_SHARE=1 adds a plain loop with as many in flight as
// the engine may have to one destination (WEBHOOK_DESTINATION_CONCURRENCY).
// BENCH_CPU_PROFILE=<dir> writes a CPU profile of this thread per phase, BENCH_HEAP_PROFILE=<dir> a
// sampling heap profile of its allocations (bench/profile-summary.ts sums them). The receiver runs in a
// worker thread so it does not compete with the service for its event loop.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { type EventLoopUtilization, performance } from 'node:perf_hooks';
import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import { Session } from 'node:inspector/promises';
import { readFileSync, writeFileSync } from 'node:fs';
import { GCProfiler } from 'node:v8';
import { sql } from 'kysely';
import { createLogger } from '../src/core/log.ts';
import { buildHealthcheckEvent, healthcheckEnvelope } from '../src/features/delivery/events.ts';
import { tunedLaunch } from '../src/runtime/memory-limits.js';
import { startRuntime } from '../src/runtime/runtime.ts';
import { generateWebhookSecret } from '../src/features/delivery/signing.ts';
import { version } from '../src/core/version.ts';
import { benchConfig, removeBenchConfig } from './bench-config.ts';
import { reportFigures } from './figures.ts';
import { plainSignedPostLoop } from './plain-signed-post.ts';

/** A gap between two receipts at least this long counts as a stall of the whole pipeline. */
const STALL_MS = 20;

/** Wall-clock milliseconds with sub-millisecond precision, comparable across threads. */
const now = () => performance.timeOrigin + performance.now();

type FromReceiver =
  | { kind: 'listening'; port: number }
  | { kind: 'count'; count: number }
  | { kind: 'times'; times: [string, number][] }
  | { kind: 'cpu'; micros: number };

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
    // This thread's CPU so far (µs), so the service thread's share of the process's is known.
    if (message === 'cpu') {
      const used = process.threadCpuUsage();
      port.postMessage({ kind: 'cpu', micros: used.user + used.system } satisfies FromReceiver);
    }
    if (message === 'stop') {
      clearInterval(ticker);
      server.closeAllConnections();
      server.close();
      port.close();
    }
  });
} else {
  // Measured as a worker process runs (the V8 and malloc sizing `tributary serve --role worker`
  // gives itself, src/runtime/memory-limits.js): re-executes itself once with it.
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

/**
 * BENCH_CPU_PROFILE=<dir>: a CPU profile of this thread per phase (plain loop, engine, latency).
 * BENCH_HEAP_PROFILE=<dir>: instead, a sampling heap profile of what each phase allocates,
 * collected objects included (bytes per delivery hardly move with the machine's load, unlike
 * CPU time). `node bench/profile-summary.ts <file> [deliveries]` sums either by function.
 */
async function profiled<T>(name: string, run: () => Promise<T>): Promise<T> {
  const cpuDir = process.env.BENCH_CPU_PROFILE;
  const heapDir = process.env.BENCH_HEAP_PROFILE;
  if (!cpuDir && !heapDir) return run();
  const session = new Session();
  session.connect();
  if (heapDir) {
    await session.post('HeapProfiler.enable');
    await session.post('HeapProfiler.startSampling', {
      samplingInterval: 8192,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
  } else {
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
  }
  try {
    return await run();
  } finally {
    if (heapDir) {
      const { profile } = await session.post('HeapProfiler.stopSampling');
      writeFileSync(join(heapDir, `${name}.heapprofile`), JSON.stringify(profile));
    } else {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(join(cpuDir!, `${name}.cpuprofile`), JSON.stringify(profile));
    }
    session.disconnect();
  }
}

/** One steady run's result: what was asked, what the emitters reached, and emit -> receipt. */
type SteadyRun = {
  asked: number;
  achieved: number;
  p50: number;
  p99: number;
  max: number;
  /** Whether every event was received within the drain allowance after the last emit. */
  drained: boolean;
};

/** A rate is sustained when the emitters reach 97 % of it and delivery keeps up with them. */
function sustained(run: SteadyRun): boolean {
  return run.achieved >= 0.97 * run.asked && run.drained;
}

async function main() {
  const events = Number(process.env.BENCH_EVENTS ?? 20_000);
  // A number: measure at that rate (and, if it is not sustained, find the highest that is);
  // `max` (the default): find the highest sustained rate from 250/s upward.
  const rateSetting = process.env.BENCH_RATE ?? 'max';
  const offered = rateSetting === 'max' ? null : Number(rateSetting);
  if (offered !== null && !(offered > 0)) throw new Error(`BENCH_RATE must be a positive number or "max"`);
  const seconds = Number(process.env.BENCH_SECONDS ?? 20);
  // single: one transaction per event (a feature emitting as each change commits); tick: the
  // events due in each 10 ms tick share one transaction (a feature emitting in bulk).
  const perTransaction = process.env.BENCH_EMIT === 'tick' ? 'tick' : 'single';
  const emitters = Number(process.env.BENCH_EMITTERS ?? 4);
  const { config, dataDir, schema } = benchConfig();

  const receiver = new Worker(new URL(import.meta.url));
  let received = 0;
  let onTimes: ((times: Map<string, number>) => void) | undefined;
  let onCpu: ((micros: number) => void) | undefined;
  const listening = new Promise<number>((resolve) => {
    receiver.on('message', (message: FromReceiver) => {
      if (message.kind === 'listening') resolve(message.port);
      if (message.kind === 'count') received = message.count;
      if (message.kind === 'times') onTimes?.(new Map(message.times));
      if (message.kind === 'cpu') onCpu?.(message.micros);
    });
  });
  const receiverTimes = () =>
    new Promise<Map<string, number>>((resolve) => {
      onTimes = resolve;
      receiver.postMessage('times');
    });
  const receiverCpu = () =>
    new Promise<number>((resolve) => {
      onCpu = resolve;
      receiver.postMessage('cpu');
    });
  /** Waits until `count` deliveries arrived; false if `timeoutMs` passed first. */
  const waitForReceived = async (count: number, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    while (received < count) {
      if (Date.now() > deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return true;
  };
  const resetReceiver = async () => {
    receiver.postMessage('reset');
    // Counts posted before the reset may still be on their way: let them land, then start at 0.
    await new Promise((resolve) => setTimeout(resolve, 200));
    received = 0;
    await new Promise((resolve) => setTimeout(resolve, 100));
  };
  const port = await listening;

  // Its own application name, so the database backends serving this process (the service's and
  // the queue's pools) are told apart from everyone else's on a shared server (databaseCpuMs).
  const applicationName = `bench-webhooks-${randomBytes(4).toString('hex')}`;
  process.env.PGAPPNAME = applicationName;
  const runtime = await startRuntime(config, 'worker', createLogger(config.logLevel));
  const { ctx } = runtime;
  /**
   * CPU (ms, user + system) the backends serving this process have used so far, from /proc (the
   * database on this machine only; a backend that exits takes its time with it, which the pools,
   * kept busy during the phase, do not do). Null when unreadable.
   */
  const databaseCpuMs = async (): Promise<number | null> => {
    try {
      const { rows } = await sql<{ pid: number }>`
        SELECT pid FROM pg_stat_activity WHERE application_name = ${applicationName}`.execute(ctx.db);
      let total = 0;
      for (const { pid } of rows) {
        const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
        // utime and stime, fields 14 and 15 of stat, in clock ticks (100 a second on Linux).
        total += ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
      }
      return total;
    } catch {
      return null;
    }
  };
  /** WAL records the server has written so far (pg_stat_wal: the whole server's). */
  const walRecords = async (): Promise<number | null> => {
    try {
      const { rows } = await sql<{ n: string }>`SELECT wal_records AS n FROM pg_stat_wal`.execute(ctx.db);
      return Number(rows[0]?.n);
    } catch {
      return null;
    }
  };
  /** Updates of `deliveries` so far, and how many were HOT (no index entry written). */
  const deliveryUpdates = async () => {
    const { rows } = await sql<{ updated: string; hot: string }>`
      SELECT n_tup_upd AS updated, n_tup_hot_upd AS hot FROM pg_stat_user_tables
      WHERE relid = 'deliveries'::regclass`.execute(ctx.db);
    const row = rows[0];
    return row ? { updated: Number(row.updated), hot: Number(row.hot) } : null;
  };
  const storage = ctx.store.embedded ? 'embedded PostgreSQL' : 'PostgreSQL';
  const settings = ctx.webhooks.settings;
  console.log(
    `webhook delivery benchmark on ${storage}; ${settings.workers} main-lane workers, batches of ${settings.batchSize} jobs, up to ${settings.concurrency} requests in flight each, ` +
      `${settings.destinationConcurrency} to one destination in the process (WEBHOOK_DESTINATION_CONCURRENCY; the plain loop has 100)`,
  );
  try {
    const developer = await ctx.developers.create({ name: 'Bench', environment: 'sandbox' });
    const url = `http://127.0.0.1:${port}/hooks`;
    await ctx.webhooks.setDestination(developer.developer.id, { url });
    const event = () =>
      healthcheckEnvelope(
        buildHealthcheckEvent({ createdAt: new Date(), trendPercentage: 0, sentWebhooksLastHour: 0 }),
      );
    const devId = developer.developer.id;

    // 1. Throughput. The anchor: the same number of signed POSTs of the same body to the same
    // receiver, 100 in flight, from this thread, with nothing else (bench/plain-signed-post.ts);
    // run before and after the engine, so a change in the machine's load shows as a spread.
    // CPU of this process (service and receiver threads) per delivery, steadier than rates on a
    // shared machine: the plain loop's against the engine's (the database's own is not in it).
    const plainCpu: number[] = [];
    const cpuMicros = (since: NodeJS.CpuUsage) => {
      const used = process.cpuUsage(since);
      return used.user + used.system;
    };
    // The process's CPU split by thread, and how busy this (the service's) thread's event loop
    // was: a thread that is idle part of the phase is waiting (on the receiver, the database, a
    // limit), not short of CPU.
    // Bytes this thread allocated (its heap only; the receiver's is its own): what each GC found
    // used beyond what the previous one left, from V8's GC trace (Node 24 has no allocation counter).
    type ThreadMark = {
      main: NodeJS.CpuUsage;
      receiver: number;
      loop: EventLoopUtilization;
      gc: GCProfiler;
      heapUsed: number;
    };
    const threadMark = async (): Promise<ThreadMark> => {
      const receiver = await receiverCpu();
      const gc = new GCProfiler();
      gc.start();
      return {
        main: process.threadCpuUsage(),
        receiver,
        loop: performance.eventLoopUtilization(),
        gc,
        heapUsed: process.memoryUsage().heapUsed,
      };
    };
    /**
     * Bytes allocated on this thread since `from`, and how long its GCs paused it (µs of wall
     * time: V8's trace measures the pause, which a loaded machine stretches, not CPU).
     */
    const allocatedSince = (from: ThreadMark) => {
      const heapUsed = process.memoryUsage().heapUsed;
      let allocated = 0;
      let gcMicros = 0;
      let left = from.heapUsed;
      for (const { beforeGC, afterGC, cost } of from.gc.stop()?.statistics ?? []) {
        allocated += Math.max(0, beforeGC.heapStatistics.usedHeapSize - left);
        left = afterGC.heapStatistics.usedHeapSize;
        gcMicros += cost;
      }
      return { bytes: allocated + Math.max(0, heapUsed - left), gcMicros };
    };
    const threadShares = async (from: ThreadMark) => {
      const main = process.threadCpuUsage(from.main);
      const loop = performance.eventLoopUtilization(from.loop).utilization;
      const allocated = allocatedSince(from);
      return {
        mainUs: (main.user + main.system) / events,
        receiverUs: ((await receiverCpu()) - from.receiver) / events,
        busy: loop,
        allocatedBytes: allocated.bytes / events,
        gcUs: allocated.gcMicros / events,
      };
    };
    const plainThreads: Awaited<ReturnType<typeof threadShares>>[] = [];
    const plainLoop = async (name: string, inFlight = 100) => {
      const cpu = process.cpuUsage();
      const threads = await threadMark();
      const result = await profiled(name, () =>
        plainSignedPostLoop({
          url,
          secret: generateWebhookSecret(),
          body: JSON.stringify(event().payload),
          total: events,
          inFlight,
          version,
        }),
      );
      const shares = await threadShares(threads);
      await resetReceiver();
      if (inFlight !== 100) return result.perSecond;
      plainThreads.push(shares);
      plainCpu.push(cpuMicros(cpu) / events);
      return result.perSecond;
    };
    const plainBefore = await plainLoop('plain-before');
    // BENCH_PLAIN_AT_SHARE=1: also the plain loop with only as many in flight as the engine may
    // have to one destination (WEBHOOK_DESTINATION_CONCURRENCY), for what that limit alone costs.
    const plainAtShare =
      process.env.BENCH_PLAIN_AT_SHARE === '1'
        ? await plainLoop('plain-at-share', settings.destinationConcurrency)
        : null;

    // The engine: emit N events in transactions of 500, four at a time (as four request handlers
    // would; one alone, four round trips per transaction through an event loop busy delivering,
    // could not emit as fast as the workers deliver), while the workers deliver; deliveries/s
    // count from the first emit to the last receipt.
    const started = now();
    const engineCpuFrom = process.cpuUsage();
    const engineThreadsFrom = await threadMark();
    const walFrom = await walRecords();
    const databaseCpuFrom = await databaseCpuMs();
    const emitted = await profiled('engine', async () => {
      let sent = 0;
      const bulkEmitter = async () => {
        while (sent < events) {
          const size = Math.min(500, events - sent);
          sent += size;
          await ctx.db.transaction().execute((trx) =>
            ctx.webhooks.emitMany(
              trx,
              devId,
              Array.from({ length: size }, () => event()),
            ),
          );
        }
      };
      await Promise.all(Array.from({ length: 4 }, bulkEmitter));
      const at = now();
      if (!(await waitForReceived(events, 600_000)))
        throw new Error(`only ${received} of ${events} deliveries arrived within 600 s`);
      return at;
    });
    const engineCpu = cpuMicros(engineCpuFrom) / events;
    const engineThreads = await threadShares(engineThreadsFrom);
    const databaseCpuTo = await databaseCpuMs();
    const walTo = await walRecords();
    const databaseCpu =
      databaseCpuFrom === null || databaseCpuTo === null
        ? null
        : ((databaseCpuTo - databaseCpuFrom) * 1000) / events;
    const times = [...(await receiverTimes()).values()];
    const last = Math.max(...times);
    const first = Math.min(...times);
    const deliveriesPerSecond = events / ((last - started) / 1000);
    // Stretches of the phase with nothing arriving (a pause of the whole pipeline, such as every
    // batch ending at once, not one slow answer): from the first emit, between receipts.
    const sorted = [started, ...times].sort((a, b) => a - b);
    let stalls = 0;
    let stalledMs = 0;
    for (let index = 1; index < sorted.length; index++) {
      const gap = sorted[index]! - sorted[index - 1]!;
      if (gap < STALL_MS) continue;
      stalls++;
      stalledMs += gap;
    }
    await resetReceiver();
    const plainAfter = await plainLoop('plain-after');
    // Read after the plain loop, by when the backends have reported their counts (at most once a second).
    const updates = await deliveryUpdates();
    const plainPerSecond = (plainBefore + plainAfter) / 2;
    console.log(`throughput: ${events} events`);
    console.log(
      `  engine, emitted in ${((emitted - started) / 1000).toFixed(1)} s (${Math.round(events / ((emitted - started) / 1000))} events/s)`,
    );
    console.log(
      `  engine, first emit -> last receipt: ${((last - started) / 1000).toFixed(1)} s = ${Math.round(deliveriesPerSecond)} deliveries/s` +
        ` (receiver side, first -> last receipt: ${Math.round(events / ((last - first) / 1000))}/s)`,
    );
    console.log(
      `  nothing received for ${STALL_MS} ms or more: ${stalls} times, ${Math.round(stalledMs)} ms in all (${((100 * stalledMs) / (last - started)).toFixed(0)} % of the phase, the wait for the first receipt included)`,
    );
    console.log(
      `  plain signed-POST loop, 100 in flight: ${Math.round(plainPerSecond)}/s (before ${Math.round(plainBefore)}, after ${Math.round(plainAfter)})`,
    );
    if (plainAtShare !== null)
      console.log(
        `  (plain loop with ${settings.destinationConcurrency} in flight, the engine's limit to one destination: ${Math.round(plainAtShare)}/s)`,
      );
    console.log(`  ratio engine / plain loop: ${(deliveriesPerSecond / plainPerSecond).toFixed(2)}`);
    const plainCpuPerDelivery = (plainCpu[0]! + plainCpu[1]!) / 2;
    console.log(
      `  CPU of this process per delivery (all its threads; the database's not included): engine ${Math.round(engineCpu)} µs, plain loop ${Math.round(plainCpuPerDelivery)} µs`,
    );
    const plainThread = (pick: (shares: (typeof plainThreads)[number]) => number) =>
      (pick(plainThreads[0]!) + pick(plainThreads[1]!)) / 2;
    console.log(
      `  of which the service's thread ${Math.round(engineThreads.mainUs)} µs (plain loop ${Math.round(plainThread((t) => t.mainUs))} µs), ` +
        `the receiver's ${Math.round(engineThreads.receiverUs)} µs (${Math.round(plainThread((t) => t.receiverUs))} µs); ` +
        `the service's event loop busy ${(100 * engineThreads.busy).toFixed(0)} % of the phase (${(100 * plainThread((t) => t.busy)).toFixed(0)} %)`,
    );
    console.log(
      `  the service's thread allocated ${(engineThreads.allocatedBytes / 1000).toFixed(1)} KB per delivery (plain loop ${(plainThread((t) => t.allocatedBytes) / 1000).toFixed(1)} KB), ` +
        `its GC pauses ${Math.round(engineThreads.gcUs)} µs per delivery (${Math.round(plainThread((t) => t.gcUs))} µs; wall time, which grows with the machine's load)`,
    );
    console.log(
      `  CPU of the database backends serving this process, per delivery: ${databaseCpu === null ? 'not readable' : `${Math.round(databaseCpu)} µs`}`,
    );
    const walPerDelivery = walFrom === null || walTo === null ? null : (walTo - walFrom) / events;
    console.log(
      `  WAL records per delivery (the whole server's, so only this bench's on embedded PostgreSQL): ${walPerDelivery === null ? 'not readable' : walPerDelivery.toFixed(1)}`,
    );
    if (updates)
      console.log(
        `  deliveries updated ${updates.updated}, of which HOT ${updates.hot} (${((100 * updates.hot) / Math.max(1, updates.updated)).toFixed(0)} %)`,
      );

    // 2. Latency at a steady offered rate: by default one transaction per event, as a feature
    // emitting one change at a time does. Latency counts from the start of the emit.
    const steady = async (rate: number, runSeconds: number): Promise<SteadyRun> => {
      await resetReceiver();
      const emittedAt = new Map<string, number>();
      const total = Math.max(1, Math.round(rate * runSeconds));
      const tickMs = 10;
      const begin = now();
      let next = 0;
      // A few emitters, each running one transaction at a time: like request handlers, they leave
      // the rest of the connection pool to the workers.
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
      const elapsed = (now() - begin) / 1000;
      // The emitters' own pace: the rate they reached over the time they took (at least the run's).
      const achieved = total / Math.max(elapsed, runSeconds);
      // Delivery keeps up if the backlog left at the end drains within a second (or a tenth of the run).
      const drained = await waitForReceived(total, Math.max(1000, runSeconds * 100));
      if (!drained && !(await waitForReceived(total, 120_000)))
        throw new Error(`only ${received} of ${total} deliveries arrived within 120 s`);
      const receipts = await receiverTimes();
      const latencies = [...emittedAt]
        .map(([id, at]) => (receipts.get(id) ?? Number.NaN) - at)
        .sort((a, b) => a - b);
      const pct = (p: number) =>
        latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!;
      const run = { asked: rate, achieved, p50: pct(50), p99: pct(99), max: latencies.at(-1)!, drained };
      console.log(
        `  asked ${rate}/s for ${runSeconds} s: achieved ${Math.round(achieved)}/s` +
          `${sustained(run) ? '' : drained ? ' (NOT reached)' : ' (delivery fell behind)'}, ` +
          `p50 ${run.p50.toFixed(1)} ms, p99 ${run.p99.toFixed(1)} ms, max ${run.max.toFixed(1)} ms`,
      );
      return run;
    };

    console.log(
      `latency, emit -> receipt, ${perTransaction === 'single' ? `one transaction per event (${emitters} emitters)` : 'one transaction per 10 ms tick'}:`,
    );
    const probeSeconds = Math.min(seconds, 4);
    let offeredRun: SteadyRun | null = null;
    let best: number;
    if (offered !== null) {
      offeredRun = await steady(offered, seconds);
      if (sustained(offeredRun)) best = offered;
      else {
        console.log(`  the offered ${offered}/s was not sustained; looking for the highest rate that is`);
        // Down from what the emitters did reach, 15 % at a time.
        best = Math.max(10, Math.floor(Math.min(offeredRun.achieved, offered) * 0.9));
        while (best > 10 && !sustained(await steady(best, probeSeconds))) best = Math.floor(best * 0.85);
      }
    } else {
      // Up from 250/s, doubling while sustained, then halfway between the last two, twice.
      let low = 0;
      let high = 250;
      while (sustained(await steady(high, probeSeconds))) {
        low = high;
        high *= 2;
      }
      for (let step = 0; step < 2 && low > 0; step++) {
        const middle = Math.round((low + high) / 2);
        if (sustained(await steady(middle, probeSeconds))) low = middle;
        else high = middle;
      }
      best = low > 0 ? low : Math.floor(high / 2);
      while (best > 10 && !sustained(await steady(best, probeSeconds))) best = Math.floor(best * 0.85);
    }
    let final = offeredRun && best === offered ? offeredRun : await steady(best, seconds);
    // A probe is short: a rate that held for it may not hold for the full run (a backlog that
    // grows slowly). Then down 15 % at a time, each measured for the full run.
    while (!sustained(final) && best > 10) {
      best = Math.floor(best * 0.85);
      final = await steady(best, seconds);
    }
    console.log(
      `  highest rate sustained: ${best}/s (achieved ${Math.round(final.achieved)}/s${sustained(final) ? '' : ', not sustained over the full run'}): p50 ${final.p50.toFixed(1)} ms, p99 ${final.p99.toFixed(1)} ms`,
    );
    reportFigures({
      webhookDeliveriesPerSec: deliveriesPerSecond,
      webhookPlainLoopPerSec: plainPerSecond,
      webhookRatio: deliveriesPerSecond / plainPerSecond,
      webhookEngineCpuUsPerDelivery: engineCpu,
      webhookPlainCpuUsPerDelivery: plainCpuPerDelivery,
      webhookEngineThreadCpuUsPerDelivery: engineThreads.mainUs,
      webhookPlainThreadCpuUsPerDelivery: plainThread((t) => t.mainUs),
      webhookEngineLoopBusy: engineThreads.busy,
      webhookEngineAllocatedBytesPerDelivery: engineThreads.allocatedBytes,
      webhookPlainAllocatedBytesPerDelivery: plainThread((t) => t.allocatedBytes),
      webhookEngineGcUsPerDelivery: engineThreads.gcUs,
      webhookPlainGcUsPerDelivery: plainThread((t) => t.gcUs),
      webhookEngineStalledMs: stalledMs,
      ...(databaseCpu === null ? {} : { webhookDatabaseCpuUsPerDelivery: databaseCpu }),
      webhookEmitAskedPerSec: final.asked,
      webhookEmitAchievedPerSec: final.achieved,
      webhookEmitP99Ms: final.p99,
      webhookEmitP50Ms: final.p50,
      ...(offeredRun
        ? {
            webhookEmitOfferedPerSec: offeredRun.asked,
            webhookEmitOfferedAchievedPerSec: offeredRun.achieved,
            webhookEmitOfferedP99Ms: offeredRun.p99,
          }
        : {}),
      // The names bench/run-all.ts read before these (same values).
      deliveriesPerSecond,
      latencyRate: final.asked,
      achievedRate: final.achieved,
      latencyP50Ms: final.p50,
      latencyP99Ms: final.p99,
    });
  } finally {
    receiver.postMessage('stop');
    await runtime.stop();
    await removeBenchConfig({ dataDir, schema });
  }
}
