/**
 * `npm run bench`: runs every bench of the performance table on embedded PGlite and, when
 * DATABASE_URL is set, on PostgreSQL, and writes bench/RESULTS.md (the README links it) with
 * each figure beside its goal, the machine's load while it ran and the command that produced it.
 * Nothing asserts the figures: they are for people (and they are noisy on a shared machine).
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench
 */
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { writeFileSync } from 'node:fs';
import { FIGURES_PREFIX } from './figures.ts';

const NODE = new URL('../node_modules/.bin/node', import.meta.url).pathname;
const RESULTS = new URL('./RESULTS.md', import.meta.url).pathname;
const databaseUrl = process.env.DATABASE_URL;

type Store = 'pglite' | 'postgres';
type Run = { figures: Record<string, number>; load: string; command: string; error?: string };

/** One bench as its own process; its figures line is parsed, everything else is echoed. */
async function runBench(script: string, args: string[], store: Store, env: Record<string, string> = {}) {
  const childEnv: Record<string, string | undefined> = { ...process.env, ...env };
  if (store === 'pglite') delete childEnv.DATABASE_URL;
  const prefix = Object.entries(env)
    .map(([name, value]) => `${name}=${value} `)
    .join('');
  const command =
    `${store === 'postgres' ? 'DATABASE_URL=… ' : ''}${prefix}node ${script} ${args.join(' ')}`.trim();
  process.stdout.write(`\n$ ${command}\n`);
  const loadBefore = loadavg()[0]!;
  const figures: Record<string, number> = {};
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(NODE, [script, ...args], { env: childEnv, stdio: ['ignore', 'pipe', 'inherit'] });
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        if (line.startsWith(FIGURES_PREFIX))
          Object.assign(figures, JSON.parse(line.slice(FIGURES_PREFIX.length)) as object);
        else process.stdout.write(`${line}\n`);
      }
    });
    child.once('exit', resolve);
  });
  const load = `${loadBefore.toFixed(1)} → ${loadavg()[0]!.toFixed(1)}`;
  const run: Run = { figures, load, command };
  if (code !== 0) run.error = `exited with ${code}`;
  return run;
}

const stores: Store[] = databaseUrl ? ['pglite', 'postgres'] : ['pglite'];
const runs = new Map<string, Run>();
for (const store of stores) {
  runs.set(`idle:${store}`, await runBench('bench/idle-memory.ts', [], store));
  runs.set(`data:${store}`, await runBench('bench/data-read.ts', ['10', '16'], store));
  runs.set(
    `webhooks:${store}`,
    await runBench('bench/webhook-delivery.ts', [], store, {
      BENCH_RATE: store === 'postgres' ? '1000' : '500',
      BENCH_SECONDS: '20',
      BENCH_EVENTS: '20000',
    }),
  );
}
runs.set('cold:pglite', await runBench('bench/cold-start.ts', ['3'], 'pglite'));

type Row = { figure: string; goal: string; bench: string; value: (f: Record<string, number>) => string };
const mb = (name: string) => (f: Record<string, number>) =>
  f[name] === undefined ? '–' : `${f[name]!.toFixed(0)} MB`;
const rows: Row[] = [
  {
    figure: 'server RSS at idle, default settings',
    goal: '≤ 120 MB (PostgreSQL)',
    bench: 'idle',
    value: mb('idleRssMb'),
  },
  {
    figure: 'peak RSS during a 5-year `with_samples=true` read, default settings (whole service)',
    goal: '≤ 200 MB PostgreSQL, ≤ 320 MB PGlite',
    bench: 'data',
    value: mb('longReadPeakMb'),
  },
  {
    figure: 'the same without the service’s own memory sizing (TRIBUTARY_MEMORY_TUNING=off)',
    goal: '(for comparison)',
    bench: 'data',
    value: mb('longReadUntunedPeakMb'),
  },
  {
    figure: 'webhook emit → receipt p99, steady rate, one transaction per event',
    goal: '≤ 250 ms at 500/s PGlite; ≤ 100 ms at 1,000/s PostgreSQL',
    bench: 'webhooks',
    value: (f) =>
      f.latencyP99Ms === undefined
        ? '–'
        : `p99 ${f.latencyP99Ms.toFixed(0)} ms, p50 ${f.latencyP50Ms!.toFixed(0)} ms (asked ${f.latencyRate}/s, achieved ${f.achievedRate!.toFixed(0)}/s)`,
  },
  {
    figure: 'webhook deliveries/s to a local receiver',
    goal: '≥ 5,000 PostgreSQL',
    bench: 'webhooks',
    value: (f) => (f.deliveriesPerSecond === undefined ? '–' : `${f.deliveriesPerSecond.toFixed(0)}/s`),
  },
  {
    figure: 'data read req/s ÷ bare Fastify serving the same JSON, same run',
    goal: '≥ 0.6',
    bench: 'data',
    value: (f) =>
      f.dataReadRatio === undefined
        ? '–'
        : `${f.dataReadRatio.toFixed(2)} (${f.dataRequestsPerSecond!.toFixed(0)} ÷ ${f.bareRequestsPerSecond!.toFixed(0)} req/s)`,
  },
  {
    figure: 'cold start to /ready, embedded, later starts (median)',
    goal: '≤ 1 s',
    bench: 'cold',
    value: (f) => (f.coldStartLaterMs === undefined ? '–' : `${f.coldStartLaterMs.toFixed(0)} ms`),
  },
];

const cell = (bench: string, store: Store, row: Row) => {
  const run = runs.get(`${bench}:${store}`);
  if (!run) return store === 'postgres' && !databaseUrl ? 'not run (set DATABASE_URL)' : 'n/a';
  return run.error ? `failed (${run.error})` : row.value(run.figures);
};

const lines = [
  '# Benchmark results',
  '',
  `Written by \`npm run bench\` (bench/run-all.ts) on ${new Date().toISOString()}; ${process.platform}, ` +
    `Node ${process.version}. Server and load run on the same machine, so the figures move with whatever ` +
    'else it is doing: each bench’s load average (1 min, before → after) is listed below.',
  '',
  '| Figure | Goal | Embedded PGlite | PostgreSQL |',
  '|---|---|---|---|',
  ...rows.map(
    (row) =>
      `| ${row.figure} | ${row.goal} | ${cell(row.bench, 'pglite', row)} | ${cell(row.bench, 'postgres', row)} |`,
  ),
  '',
  '## Commands and machine load',
  '',
  '| Bench | Command | Load average |',
  '|---|---|---|',
  ...[...runs].map(([key, run]) => `| ${key} | \`${run.command}\` | ${run.load} |`),
  '',
];
writeFileSync(RESULTS, lines.join('\n'));
process.stdout.write(`\nwrote ${RESULTS}\n`);
