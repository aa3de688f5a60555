/**
 * Data-read throughput and memory, in one run:
 * 1. requests/s of `GET /v2/activity?…&to_webhook=false` over 30 stored days, against a bare
 *    Fastify route reading the same rows from the same database (one `pg` query, the json column
 *    parsed by the driver) and answering the same JSON document (Fastify's default
 *    serialization), each server in a process of its own and the load (keep-alive node:http, N
 *    concurrent connections) from this one; goal: ratio ≥ 0.6. Beside each rate, the server
 *    process's CPU time per request (user + system, from /proc), which the machine's load
 *    distorts less than a rate; BENCH_ANCHOR=document serves the stored document from memory
 *    instead (the anchor before issue 44, which reads no rows);
 * 2. the peak RSS (VmHWM) of a fresh Tributary process serving one 1,825-day
 *    `with_samples=true` read (cold: the range is synced from the SANDBOX provider first, then
 *    streamed), plus the same read again warm; goal: ≤ 200 MB on PostgreSQL, ≤ 320 MB for the
 *    whole service on embedded PostgreSQL; then two of the same read at the same time (goal ≤ 200 MB
 *    on PostgreSQL). The Tributary process runs with the V8 and malloc sizing
 *    `tributary serve` gives itself (src/runtime/memory-limits.js); a second run without it
 *    (TRIBUTARY_MEMORY_TUNING=off) shows what that sizing is worth.
 * Embedded PostgreSQL by default; with DATABASE_URL, PostgreSQL.
 *
 * BENCH_PARTS=throughput (or memory) runs one of the two alone; BENCH_TRACE_MEMORY=1 makes each
 * Tributary process print its memory (V8 heap, buffers) to stderr every 200 ms.
 * BENCH_CPU_PROFILE=<dir> writes a CPU profile of each server process into <dir> (as it stops).
 *
 *   node_modules/.bin/node bench/data-read.ts [seconds=10] [connections=16]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { tunedLaunch } from '../src/runtime/memory-limits.js';
import { childEnvironment, releaseHeldPort } from '../test/helpers/child-service.ts';
import { reportFigures } from './figures.ts';
import { samplePeak } from './service-memory.ts';

const NODE = new URL('../node_modules/.bin/node', import.meta.url).pathname;
const SELF = new URL(import.meta.url).pathname;
const DAY_MS = 86_400_000;

type Served = {
  port: number;
  devId: string;
  apiKey: string;
  userIds: string[];
  /** Where the service's store is, so the bare route reads the same rows. */
  database?: { connectionString: string; schema: string };
};

// --- the two servers (this file, started again with a role) ---------------------------------

/**
 * Tributary as `tributary serve` runs it. The first start creates a developer and `USERS`
 * connected SANDBOX users and keeps their credentials in the data dir; a restart reuses them.
 */
async function serveTributary() {
  const { loadConfig } = await import('../src/core/config.ts');
  const { collectAsServeDoes } = await import('../src/runtime/cli/serve.ts');
  const config = loadConfig(process.env);
  // As serve does: with the memory sizing on, long reads ask for collections as they stream.
  // (Serve's one start-up collection is the launcher's, runtime/start-up-heap.ts; at this
  // process's ~36 MB heap it would not collect: core/start-up-collection.ts.)
  collectAsServeDoes(config, 'all');
  const { createLogger } = await import('../src/core/log.ts');
  const { startRuntime } = await import('../src/runtime/runtime.ts');
  const { decideConsent, newSandboxAccount } = await import('../src/providers/sandbox/consent.ts');
  if (process.env.BENCH_TRACE_MEMORY) {
    // Where a read's memory goes (V8 heap, off-heap buffers, the rest), every 200 ms.
    const mb = (bytes: number) => (bytes / 1_048_576).toFixed(0);
    setInterval(() => {
      const usage = process.memoryUsage();
      process.stderr.write(
        `memory rss ${mb(usage.rss)} heapTotal ${mb(usage.heapTotal)} heapUsed ${mb(usage.heapUsed)} external ${mb(usage.external)} arrayBuffers ${mb(usage.arrayBuffers)}\n`,
      );
    }, 200).unref();
  }
  const runtime = await startRuntime(config, 'all', createLogger('warn'));
  // BENCH_TRACE_GC=1: one line per collection from here on (not the start-up's), passed on to
  // stderr by the load side (V8 refuses its trace flags in NODE_OPTIONS).
  if (process.env.BENCH_TRACE_GC) (await import('node:v8')).setFlagsFromString('--trace-gc-nvp');
  process.once('SIGTERM', () => void runtime.stop().then(() => process.exit(0)));
  const { ctx } = runtime;
  const file = join(config.dataDir, 'bench-served.json');
  let served: Omit<Served, 'port'>;
  if (existsSync(file)) served = JSON.parse(readFileSync(file, 'utf8')) as Served;
  else {
    const created = await ctx.developers.create({
      name: 'bench',
      environment: 'sandbox',
      orderApiAccess: false,
    });
    // Budget checks still run on every request; the limit only has to outlast the load.
    await ctx.developers.setHourlyDaysLimit(created.developer.id, 2_000_000_000);
    const userIds: string[] = [];
    for (let index = 0; index < Number(process.env.BENCH_USERS ?? 1); index++) {
      const link = await ctx.connecting.createAuthLink({
        developerId: created.developer.id,
        resource: 'SANDBOX',
      });
      const consent = Object.fromEntries(new URL(link.authUrl).searchParams) as Parameters<
        typeof decideConsent
      >[1];
      const runtimeDeps = { config, clock: ctx.clock, secretBox: ctx.secretBox };
      const back = new URL(decideConsent(runtimeDeps, consent, 'approve', newSandboxAccount()));
      const outcome = await ctx.connecting.completeCallback(
        back.pathname.split('/').pop() ?? '',
        Object.fromEntries(back.searchParams),
      );
      if (outcome.kind !== 'redirect' || outcome.outcome !== 'success')
        throw new Error('sandbox connect failed');
      userIds.push(outcome.userId);
    }
    served = { devId: created.developer.id, apiKey: created.apiKey, userIds };
    writeFileSync(file, JSON.stringify(served));
  }
  const address = runtime.app?.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const database = ctx.store.postgres;
  process.stdout.write(`${JSON.stringify({ ...served, port, database })}\n`);
}

/** What the bare route reads: the read's user's records of one type in a window, in order. */
type BareQuery = {
  database: { connectionString: string; schema: string };
  userId: string;
  type: string;
  filter: { fromAt: string; toAt: string; fromDay: string | null; toDay: string | null };
};

async function serveBare(bodyFile: string, queryFile: string | undefined) {
  const { default: Fastify } = await import('fastify');
  const document = JSON.parse(readFileSync(bodyFile, 'utf8')) as { data: unknown[] } & Record<
    string,
    unknown
  >;
  const app = Fastify();
  // Exits through process.exit, so a CPU profile (BENCH_CPU_PROFILE) is written.
  process.once('SIGTERM', () => process.exit(0));
  if (!queryFile) {
    // A fresh copy per request: a real handler builds its answer, and Fastify serializes it.
    app.get('/bare', async () => structuredClone(document));
  } else {
    // The same rows read per request, as a plain route would: one query, the driver parsing the
    // json column, the answer serialized by Fastify (JSON.stringify). The envelope's user is the
    // stored document's (the service looks its connection up too; the anchor does not).
    const { default: pg } = await import('pg');
    const query = JSON.parse(readFileSync(queryFile, 'utf8')) as BareQuery;
    const pool = new pg.Pool({ connectionString: query.database.connectionString, max: 10 });
    const table = `"${query.database.schema}".data_records`;
    const { filter } = query;
    const text =
      `SELECT summary FROM ${table} WHERE user_id = $1 AND type = $2 AND anchor_at >= $3 AND anchor_at < $4` +
      (filter.fromDay ? ' AND anchor_day >= $5 AND anchor_day < $6' : '') +
      ' ORDER BY anchor_at, identity_key';
    const values = [query.userId, query.type, filter.fromAt, filter.toAt];
    if (filter.fromDay) values.push(filter.fromDay, filter.toDay!);
    const { data: _data, type, ...owner } = document;
    app.get('/bare', async () => {
      const result = await pool.query<{ summary: unknown }>(text, values);
      return { ...owner, data: result.rows.map((row) => row.summary), type };
    });
  }
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  process.stdout.write(
    `${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`,
  );
}

// --- the load side ----------------------------------------------------------------------------

function start(
  args: string[],
  env: Record<string, string>,
): Promise<{ child: ChildProcess; served: Served; applicationName: string }> {
  // Tributary runs as `tributary serve` would start it: with the sizing it gives itself.
  const tuned = args[0] === '--serve-tributary' ? tunedLaunch(['serve'], env, []) : null;
  // The bare server too, so the two profiles can be compared (its file is the smaller one).
  const profile = process.env.BENCH_CPU_PROFILE
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROFILE}`]
    : [];
  // Its own application name, so the database's CPU for its queries can be told apart.
  const applicationName = `bench-${args[0]!.slice(2)}-${process.pid}`;
  const child = spawn(NODE, [...(tuned?.execArgv ?? []), ...profile, SELF, ...args], {
    env: { ...((tuned?.env as Record<string, string> | undefined) ?? env), PGAPPNAME: applicationName },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    // The first JSON line is the server's address; anything else (a V8 trace such as
    // BENCH_NODE_OPTIONS=--trace-gc prints to stdout) is passed on to stderr.
    let ready = false;
    lines.on('line', (line) => {
      if (!ready && line.startsWith('{')) {
        ready = true;
        resolve({ child, served: JSON.parse(line) as Served, applicationName });
      } else process.stderr.write(`${line}\n`);
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
}

async function stop(child: ChildProcess) {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000))]);
  if (child.exitCode === null) child.kill('SIGKILL');
}

function get(
  agent: Agent,
  port: number,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent, headers }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

async function fetchBody(port: number, path: string, headers: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path, headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (chunk: Buffer) => parts.push(chunk));
      res.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

/** Requests/s over `seconds` with `connections` requests always in flight (after a 1 s warm-up). */
async function load(
  port: number,
  path: string,
  headers: Record<string, string>,
  seconds: number,
  connections: number,
) {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const run = async (until: number, counter: { ok: number; failed: number; bytes: number }) => {
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (Date.now() < until) {
          const result = await get(agent, port, path, headers);
          if (result.status === 200) counter.ok++;
          else counter.failed++;
          counter.bytes += result.bytes;
        }
      }),
    );
  };
  const warmUp = { ok: 0, failed: 0, bytes: 0 };
  await run(Date.now() + 1000, warmUp);
  const counter = { ok: 0, failed: 0, bytes: 0 };
  const started = performance.now();
  await run(Date.now() + seconds * 1000, counter);
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  if (counter.failed > 0) throw new Error(`${counter.failed} requests failed`);
  return {
    perSecond: counter.ok / elapsed,
    meanBytes: counter.bytes / Math.max(1, counter.ok),
    requests: warmUp.ok + warmUp.failed + counter.ok,
  };
}

/** CPU time (user + system) a process has used so far, in ms (Linux). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime are fields 14 and 15 of stat, in clock ticks (100 a second on Linux).
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/**
 * CPU time (ms) the database's backends serving `applicationName` have used so far: each server
 * runs with its own PGAPPNAME, so its backends are told apart from everyone else's (PostgreSQL on
 * this machine only; a backend that exits takes its time with it, which the pools here, kept
 * busy, do not do during a round). Null when the database is not local or not readable.
 */
async function databaseCpuMs(connectionString: string, applicationName: string): Promise<number | null> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString });
  try {
    await client.connect();
    const { rows } = await client.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE application_name = $1',
      [applicationName],
    );
    let total = 0;
    for (const { pid } of rows) total += cpuMs(pid);
    return total;
  } catch {
    return null;
  } finally {
    await client.end().catch(() => {});
  }
}

/** Resident set size now and at its peak (Linux), in MB. */
function rssMb(pid: number): { now: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const peak = /VmHWM:\s+(\d+) kB/.exec(status);
  const now = /VmRSS:\s+(\d+) kB/.exec(status);
  if (!peak || !now) throw new Error('VmHWM/VmRSS not available (Linux only)');
  return { now: Number(now[1]) / 1024, peak: Number(peak[1]) / 1024 };
}

/** Resets the peak to the current RSS, so the next peak belongs to what follows (Linux ≥ 4.0). */
function resetPeak(pid: number) {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

async function throughput(seconds: number, connections: number, storage: string) {
  const environment = await childEnvironment(BASE_ENV);
  // The server role binds PORT itself (in-process startRuntime), not a handed-over socket.
  releaseHeldPort(environment.env);
  const tributary = await start(['--serve-tributary'], environment.env);
  const { port, devId, apiKey, userIds } = tributary.served;
  const headers = { 'dev-id': devId, 'x-api-key': apiKey };
  const path = `/v2/activity?user_id=${userIds[0]}&start_date=2024-03-01&end_date=2024-03-31&to_webhook=false`;
  const document = await fetchBody(port, path, headers); // syncs the 30 days
  const bodyFile = join(environment.env.DATA_DIR!, 'bare-body.json');
  writeFileSync(bodyFile, document);
  const fromDocument = process.env.BENCH_ANCHOR === 'document' || !tributary.served.database;
  const bareArgs = ['--serve-bare', bodyFile];
  if (!fromDocument) {
    // The service's own reading of the window, so the bare route asks for exactly the same rows.
    const { parseReadParams, filterOf } = await import('../src/features/data/params.ts');
    const params = parseReadParams(
      'activity',
      { start_date: '2024-03-01', end_date: '2024-03-31', to_webhook: 'false' },
      new Date(),
      { toWebhook: false },
    );
    const filter = filterOf(params.window!);
    const queryFile = join(environment.env.DATA_DIR!, 'bare-query.json');
    const bareQuery: BareQuery = {
      database: tributary.served.database!,
      userId: userIds[0]!,
      type: 'activity',
      filter: { ...filter, fromAt: filter.fromAt.toISOString(), toAt: filter.toAt.toISOString() },
    };
    writeFileSync(queryFile, JSON.stringify(bareQuery));
    bareArgs.push(queryFile);
  }
  const bare = await start(bareArgs, { ...environment.env });
  // Same answer from both, or the ratio compares different work.
  if ((await fetchBody(bare.served.port, '/bare', {})) !== document)
    throw new Error('the bare route does not answer the same document');
  try {
    // Alternating rounds, so a burst of other work on the machine hits both sides alike.
    type Round = {
      perSecond: number;
      meanBytes: number;
      requests: number;
      cpuMs: number;
      databaseCpuMs: number | null;
    };
    const bareRounds: Round[] = [];
    const dataRounds: Round[] = [];
    const connectionString = tributary.served.database?.connectionString;
    const databaseCpu = (applicationName: string) =>
      connectionString ? databaseCpuMs(connectionString, applicationName) : Promise.resolve(null);
    const measured = async (
      server: { child: ChildProcess; applicationName: string },
      run: () => ReturnType<typeof load>,
    ): Promise<Round> => {
      const pid = server.child.pid!;
      const before = cpuMs(pid);
      const databaseBefore = await databaseCpu(server.applicationName);
      const result = await run();
      const used = cpuMs(pid) - before;
      const databaseAfter = await databaseCpu(server.applicationName);
      return {
        ...result,
        cpuMs: used,
        databaseCpuMs:
          databaseBefore === null || databaseAfter === null ? null : databaseAfter - databaseBefore,
      };
    };
    for (let round = 0; round < 2; round++) {
      bareRounds.push(
        await measured(bare, () => load(bare.served.port, '/bare', {}, seconds / 2, connections)),
      );
      dataRounds.push(await measured(tributary, () => load(port, path, headers, seconds / 2, connections)));
    }
    const mean = (rounds: Round[]) => {
      const requests = rounds.reduce((sum, round) => sum + round.requests, 0);
      const databaseMs = rounds.every((round) => round.databaseCpuMs !== null)
        ? rounds.reduce((sum, round) => sum + round.databaseCpuMs!, 0)
        : null;
      return {
        requests,
        perSecond: rounds.reduce((sum, round) => sum + round.perSecond, 0) / rounds.length,
        meanBytes: rounds[0]!.meanBytes,
        // Includes the warm-up second's requests and CPU alike.
        cpuPerRequest: rounds.reduce((sum, round) => sum + round.cpuMs, 0) / requests,
        // The database's backends serving this server (PostgreSQL only): its queries' CPU.
        databaseCpuPerRequest: databaseMs === null ? null : databaseMs / requests,
      };
    };
    const cpuText = (result: ReturnType<typeof mean>) =>
      `${result.cpuPerRequest.toFixed(2)} CPU ms/request` +
      (result.databaseCpuPerRequest === null
        ? ''
        : `, its database backends ${result.databaseCpuPerRequest.toFixed(2)}`);
    const bareResult = mean(bareRounds);
    const dataResult = mean(dataRounds);
    const ratio = dataResult.perSecond / bareResult.perSecond;
    console.log(
      `data reads vs a bare Fastify route (${storage}; ${connections} connections; ${seconds} s each; load generator on the same machine)`,
    );
    const anchor = fromDocument ? 'the stored document from memory' : 'same rows from the database';
    console.log(
      `  bare Fastify, ${anchor}: ${bareResult.perSecond.toFixed(0)} req/s (${(bareResult.meanBytes / 1024).toFixed(1)} KiB; ${cpuText(bareResult)})`,
    );
    console.log(
      `  GET /v2/activity, 30 stored days: ${dataResult.perSecond.toFixed(0)} req/s (${(dataResult.meanBytes / 1024).toFixed(1)} KiB; ${cpuText(dataResult)}; ${dataResult.requests} requests)`,
    );
    console.log(`  ratio: ${ratio.toFixed(2)} (goal >= 0.6)`);
    reportFigures({
      bareRequestsPerSecond: bareResult.perSecond,
      dataRequestsPerSecond: dataResult.perSecond,
      dataReadRatio: ratio,
      bareCpuMsPerRequest: bareResult.cpuPerRequest,
      dataCpuMsPerRequest: dataResult.cpuPerRequest,
      ...(bareResult.databaseCpuPerRequest === null || dataResult.databaseCpuPerRequest === null
        ? {}
        : {
            bareDatabaseCpuMsPerRequest: bareResult.databaseCpuPerRequest,
            dataDatabaseCpuMsPerRequest: dataResult.databaseCpuPerRequest,
          }),
    });
  } finally {
    await stop(bare.child);
    await stop(tributary.child);
    await environment.cleanup();
  }
}

/** One cold and one warm 1,825-day with_samples=true read of a user nobody has read yet. */
async function longRead(env: Record<string, string>, userIndex: number) {
  const server = await start(['--serve-tributary'], env);
  try {
    const { port, devId, apiKey, userIds } = server.served;
    const credentials = { 'dev-id': devId, 'x-api-key': apiKey };
    const end = Math.floor(Date.now() / DAY_MS) * DAY_MS - DAY_MS;
    const path = `/v2/activity?user_id=${userIds[userIndex]}&start_date=${isoDay(end - 1825 * DAY_MS)}&end_date=${isoDay(end)}&to_webhook=false&with_samples=true`;
    const pid = server.child.pid!;
    const agent = new Agent({ keepAlive: false });
    // Start-up has its own peak (creating the embedded cluster above all); measure the read's.
    resetPeak(pid);
    const before = rssMb(pid).now;
    const timed = async () => {
      resetPeak(pid);
      const started = performance.now();
      const result = await get(agent, port, path, credentials);
      if (result.status !== 200) throw new Error(`long read failed: ${result.status}`);
      return {
        peak: rssMb(pid).peak,
        seconds: (performance.now() - started) / 1000,
        megabytes: result.bytes / 1e6,
      };
    };
    const cold = await timed();
    const warm = await timed();
    // Two of the same read at the same time (the figure): the peak of serving both at once.
    // With embedded storage its PostgreSQL serves them too: the service's and the database's
    // processes' PSS summed, sampled (goal ≤ 300 MB).
    resetPeak(pid);
    const sampler = samplePeak(pid, process.env.DATABASE_URL ? undefined : env.DATA_DIR);
    const both = await Promise.all([
      get(agent, port, path, credentials),
      get(agent, port, path, credentials),
    ]);
    const withDatabase = sampler.stop();
    if (both.some((result) => result.status !== 200)) throw new Error('a concurrent long read failed');
    return { before, cold, warm, twoAtOncePeak: rssMb(pid).peak, twoAtOnceWithDatabase: withDatabase };
  } finally {
    await stop(server.child);
  }
}

async function peakRss(storage: string) {
  const environment = await childEnvironment({ ...BASE_ENV, BENCH_USERS: '2' });
  releaseHeldPort(environment.env);
  try {
    // First start creates the store and the users; the measured starts are restarts, as on a laptop.
    await stop((await start(['--serve-tributary'], environment.env)).child);
    const runs = [
      {
        label: 'default settings (the sizing tributary serve gives itself)',
        result: await longRead(environment.env, 0),
      },
    ];
    // BENCH_UNTUNED=skip: the tuned figures alone (before/after pairs of a memory change).
    if (process.env.BENCH_UNTUNED !== 'skip') {
      runs.push({
        label: 'without that sizing (TRIBUTARY_MEMORY_TUNING=off)',
        result: await longRead({ ...environment.env, TRIBUTARY_MEMORY_TUNING: 'off' }, 1),
      });
    }
    console.log(
      `1,825-day activity read with_samples=true (${storage}): peak RSS of the server process during the read (goal ≤ 200 MB PostgreSQL, ≤ 320 MB PGlite)`,
    );
    const tuned = runs[0]!.result;
    reportFigures({
      longReadRssBeforeMb: tuned.before,
      longReadColdPeakMb: tuned.cold.peak,
      longReadWarmPeakMb: tuned.warm.peak,
      longReadPeakMb: Math.max(tuned.cold.peak, tuned.warm.peak),
      longReadTwoAtOnceWithDatabaseMb: tuned.twoAtOnceWithDatabase.totalMb,
      ...(runs[1]
        ? { longReadUntunedPeakMb: Math.max(runs[1].result.cold.peak, runs[1].result.warm.peak) }
        : {}),
      twoLongReadsPeakMb: tuned.twoAtOncePeak,
    });
    for (const { label, result } of runs) {
      console.log(`  ${label}: RSS before the read ${result.before.toFixed(0)} MB`);
      for (const [name, read] of [
        ['cold (provider sync + stream)', result.cold],
        ['warm (stream from the store)', result.warm],
      ] as const) {
        console.log(
          `    ${name.padEnd(30)} peak ${read.peak.toFixed(0)} MB; ${read.megabytes.toFixed(1)} MB sent in ${read.seconds.toFixed(1)} s`,
        );
      }
      console.log(`    ${'two warm reads at once'.padEnd(30)} peak ${result.twoAtOncePeak.toFixed(0)} MB`);
      const both = result.twoAtOnceWithDatabase;
      console.log(
        `    ${'  service + PostgreSQL (PSS)'.padEnd(30)} peak ${both.totalMb.toFixed(0)} MB ` +
          `(service ${both.serviceMb.toFixed(0)}, PostgreSQL ${both.databaseMb.toFixed(0)}; goal ≤ 300 MB)`,
      );
    }
  } finally {
    await environment.cleanup();
  }
}

// Without DATABASE_URL the default embedded storage: the helper gives a child the test PostgreSQL
// unless told `DATABASE_URL: ''`.
const BASE_ENV = {
  SANDBOX_ARRIVAL_MINUTES: 'off',
  LOG_LEVEL: 'warn',
  ...(process.env.DATABASE_URL ? {} : { DATABASE_URL: '' }),
  ...(process.env.BENCH_TRACE_MEMORY ? { BENCH_TRACE_MEMORY: '1' } : {}),
  ...(process.env.BENCH_TRACE_GC ? { BENCH_TRACE_GC: '1' } : {}),
  // BENCH_NODE_OPTIONS: V8 flags to try on the service (an operator's flag wins over its own sizing).
  ...(process.env.BENCH_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS } : {}),
  // BENCH_GLIBC_TUNABLES: malloc settings to try instead of the service's own (memory-limits.js).
  ...(process.env.BENCH_GLIBC_TUNABLES ? { GLIBC_TUNABLES: process.env.BENCH_GLIBC_TUNABLES } : {}),
};

async function main() {
  const seconds = Number(process.argv[2] ?? 10);
  const connections = Number(process.argv[3] ?? 16);
  const storage = process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded PostgreSQL';
  // BENCH_PARTS=throughput or =memory runs one half alone.
  const parts = process.env.BENCH_PARTS ?? 'throughput,memory';
  if (parts.includes('throughput')) await throughput(seconds, connections, storage);
  if (parts.includes('memory')) await peakRss(storage);
}

const role = process.argv[2];
if (role === '--serve-tributary') await serveTributary();
else if (role === '--serve-bare') await serveBare(process.argv[3]!, process.argv[4]);
else await main();
