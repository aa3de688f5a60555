// What an idle worker's job queue costs: a worker role started on a fresh schema (or embedded
// PostgreSQL) with nothing to do, then BENCH_SECONDS (20) of counting the queue's fetches (every
// statement pg-boss runs, by kind) and the process's CPU. Each queue's workers fetch when woken
// (NOTIFY, or this process's own wakes: src/jobs/due-wakes.ts) and otherwise once per polling
// interval, so the fetches per second are the figure to compare between builds.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node_modules/.bin/node bench/idle-queue-polls.ts
import { createLogger } from '../src/core/log.ts';
import { startRuntime } from '../src/runtime/runtime.ts';
import { benchConfig, removeBenchConfig } from './bench-config.ts';
import { reportFigures } from './figures.ts';

type SqlRunner = { executeSql(text: string, values?: unknown[]): Promise<unknown> };

const seconds = Number(process.env.BENCH_SECONDS ?? 20);
const { config, dataDir, schema } = benchConfig();
const runtime = await startRuntime(config, 'worker', createLogger(config.logLevel));
try {
  // Every statement pg-boss sends goes through its db's executeSql: counted while `counting`.
  const db = runtime.ctx.jobs.boss().getDb() as unknown as SqlRunner;
  const execute = db.executeSql.bind(db);
  const counts = new Map<string, number>();
  let counting = false;
  db.executeSql = (text, values) => {
    if (counting) {
      const flat = text.replace(/\s+/g, ' ').trim();
      const fetch = /WHERE j\.name = '([^']+)' AND j\.state < 'active'/.exec(flat);
      const kind = fetch ? `fetch ${fetch[1]}` : flat.slice(0, 60);
      counts.set(kind, (counts.get(kind) ?? 0) + 1);
    }
    return execute(text, values);
  };
  // Past start-up (queues created, first fetches, the start-up sweep).
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const cpuFrom = process.cpuUsage();
  counting = true;
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  counting = false;
  const cpu = process.cpuUsage(cpuFrom);
  const fetches = [...counts]
    .filter(([kind]) => kind.startsWith('fetch '))
    .reduce((sum, [, n]) => sum + n, 0);
  const statements = [...counts.values()].reduce((sum, n) => sum + n, 0);
  const cpuMsPerSecond = (cpu.user + cpu.system) / 1000 / seconds;
  console.log(`idle worker over ${seconds} s: ${fetches} fetches, ${statements} queue statements in all`);
  for (const [kind, n] of [...counts].sort((a, b) => b[1] - a[1]).slice(0, 12))
    console.log(`  ${String(n).padStart(5)}  ${kind}`);
  console.log(`  process CPU ${cpuMsPerSecond.toFixed(1)} ms per second`);
  reportFigures({
    idleQueueFetchesPerSec: fetches / seconds,
    idleQueueStatementsPerSec: statements / seconds,
    idleWorkerCpuMsPerSec: cpuMsPerSecond,
  });
} finally {
  await runtime.stop();
  await removeBenchConfig({ dataDir, schema });
}
