/**
 * `npm run bench`: runs every bench of the performance table on embedded storage (the
 * PostgreSQL the service starts itself: the default path) and, when
 * DATABASE_URL is set, on PostgreSQL, and writes bench/RESULTS.md (the README links it) with
 * each figure beside its goal, the machine's load while it ran and the command that produced it.
 * Nothing asserts the figures: they are for people (and they are noisy on a shared machine).
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench
 */
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { FIGURES_PREFIX } from './figures.ts';

const NODE = new URL('../node_modules/.bin/node', import.meta.url).pathname;
const RESULTS = new URL('./RESULTS.md', import.meta.url).pathname;
const databaseUrl = process.env.DATABASE_URL;

type Store = 'embedded' | 'postgres';
type Run = { figures: Record<string, number>; load: string; command: string; error?: string };

/** One bench as its own process; its figures line is parsed, everything else is echoed. */
async function runBench(script: string, args: string[], store: Store, env: Record<string, string> = {}) {
  const childEnv: Record<string, string | undefined> = { ...process.env, ...env };
  if (store === 'embedded') delete childEnv.DATABASE_URL;
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

const stores: Store[] = databaseUrl ? ['embedded', 'postgres'] : ['embedded'];
const runs = new Map<string, Run>();
for (const store of stores) {
  runs.set(`import:${store}`, await runBench('bench/apple-import.ts', ['--mb', '32'], store));
  // The issue's 1 GB import takes tens of minutes on this 2-core machine: a second size shows how
  // the peak grows with the file instead (bench/apple-import.ts --mb 1024 measures it outright).
  runs.set(`import-large:${store}`, await runBench('bench/apple-import.ts', ['--mb', '128'], store));
  runs.set(`idle:${store}`, await runBench('bench/idle-memory.ts', [], store));
  runs.set(`data:${store}`, await runBench('bench/data-read.ts', ['10', '16'], store));
  runs.set(
    `webhooks:${store}`,
    await runBench('bench/webhook-delivery.ts', [], store, {
      // The highest rate one transaction per event sustains, found by the bench and then measured.
      BENCH_RATE: 'max',
      BENCH_SECONDS: '20',
      BENCH_EVENTS: '20000',
    }),
  );
  runs.set(
    `destinations:${store}`,
    await runBench('bench/destinations.ts', [], store, { BENCH_EVENTS: '5000' }),
  );
}
// Seven runs (fourteen later starts, each beside its own anchor, alternating): with three, one
// slow draw of the anchor moved the row's ratio between 1.6× and 1.9× from run to run (issue 42).
runs.set('cold:embedded', await runBench('bench/cold-start.ts', ['7'], 'embedded'));
// In memory: no store, so one run (under the embedded column).
runs.set('merge:embedded', await runBench('bench/merge.ts', ['365'], 'embedded'));
// A tenth of the issue's 10,000 connections × 1 year keeps `npm run bench` to minutes; the full
// size is `bench/partitions.ts --users=10000` (about 15 minutes of filling on 2 cores).
if (databaseUrl) {
  runs.set('partitions:postgres', await runBench('bench/partitions.ts', ['--users=1000'], 'postgres'));
  // The test PostgreSQL only (it starts the service in-process, as the tests do): about a minute.
  runs.set('scores:postgres', await runBench('bench/scores.ts', [], 'postgres'));
}

type Figures = Record<string, number>;
/** `value` gets its bench's figures and the store they were measured on. */
type Row = { figure: string; goal: string; bench: string; value: (f: Figures, store: Store) => string };
const has = (f: Figures, ...names: string[]) => names.every((name) => f[name] !== undefined);
const fixed = (value: number, digits = 0) => value.toFixed(digits);
const mb = (name: string) => (f: Figures) => (has(f, name) ? `${fixed(f[name]!)} MB` : '–');
/** A ratio with its two measurements beside it: `0.31 (120 ÷ 387 req/s)`. */
const ratio =
  (name: string, numerator: string, denominator: string, unit: string, suffix = '') =>
  (f: Figures) =>
    has(f, name, numerator, denominator)
      ? `${fixed(f[name]!, 2)}${suffix} (${fixed(f[numerator]!, 1)} ÷ ${fixed(f[denominator]!, 1)} ${unit})`
      : '–';

// The rows of issue 28's table, in its order, and those issue 44 added (the scores row): each
// ratio beside its anchor measured in the same run.
const rows: Row[] = [
  {
    figure: 'Apple Health export import end to end ÷ a bare SAX scan of the same file, same run',
    // Issue 44 sets the peak for the service and its database together: PSS summed over the
    // importing service, its reader and the embedded PostgreSQL's processes (on DATABASE_URL the
    // server is not the bench's to measure, so that column holds the service side alone).
    goal: '≥ 0.5×, peak ≤ 250 MB (service + database, PSS; on PostgreSQL the service side only)',
    bench: 'import',
    value: (f) =>
      has(f, 'importRatio')
        ? `${ratio('importRatio', 'importMBps', 'importSaxAnchorMBps', 'MB/s', '×')(f)}; ` +
          `peak ${mb('importWithDatabasePeakMb')(f)} (importing process RSS ${mb('importPeakRssMb')(f)})`
        : '–',
  },
  {
    figure: '30-day data read req/s ÷ a bare Fastify route reading and serializing the same rows, same run',
    goal: '≥ 0.6',
    bench: 'data',
    value: ratio('dataReadRatio', 'dataRequestsPerSecond', 'bareRequestsPerSecond', 'req/s'),
  },
  {
    figure: 'webhook deliveries/s ÷ a plain signed-POST loop to the same receiver, 100 in flight',
    goal: '≥ 0.8',
    bench: 'webhooks',
    value: ratio('webhookRatio', 'webhookDeliveriesPerSec', 'webhookPlainLoopPerSec', '/s'),
  },
  {
    figure: 'webhook emit → receipt at a fixed offered rate, one transaction per event',
    goal: 'reaches the offered rate or says not; p99 ≤ 100 ms',
    bench: 'webhooks',
    value: (f) =>
      has(f, 'webhookEmitP99Ms', 'webhookEmitP50Ms', 'webhookEmitAskedPerSec', 'webhookEmitAchievedPerSec')
        ? `p99 ${fixed(f.webhookEmitP99Ms!)} ms, p50 ${fixed(f.webhookEmitP50Ms!)} ms at ${fixed(f.webhookEmitAchievedPerSec!)}/s ` +
          `(asked ${fixed(f.webhookEmitAskedPerSec!)}/s${f.webhookEmitAchievedPerSec! < 0.95 * f.webhookEmitAskedPerSec! ? ': not reached' : ''})`
        : '–',
  },
  {
    figure:
      'deliveries/s per destination kind, 5,000 one-record events each, receivers on loopback; each ÷ the webhook kind, same run (s3-ndjson: `object_format: ndjson_gzip`)',
    goal: 'PostgreSQL and S3 ≥ 0.5 × the webhook',
    bench: 'destinations',
    value: (f) =>
      ['webhook', 'postgresql', 's3', 's3-ndjson', 'nats']
        .filter((kind) => f[`destination_${kind}_DeliveriesPerSec`] !== undefined)
        .map((kind) => {
          const rate = `${kind} ${fixed(f[`destination_${kind}_DeliveriesPerSec`]!)}/s`;
          const toWebhook = f[`destination_${kind}_WebhookRatio`];
          return toWebhook === undefined ? rate : `${rate} (${fixed(toWebhook, 2)}×)`;
        })
        .join(', ') || '–',
  },
  {
    figure:
      'later start of the embedded service to /ready ÷ bare Fastify starting the same embedded PostgreSQL on a copy of the data dir, answering after `select 1` (median, alternating)',
    goal: '≤ 1.5×',
    bench: 'cold',
    value: ratio('coldStartRatio', 'coldStartLaterMs', 'coldStartAnchorMs', 'ms', '×'),
  },
  {
    figure:
      'one person, three sources, a year with samples merged (daily, sleep, activity): CPU, peak RSS; heap while merging four-week parts (first, last, most)',
    goal: '< 1 s CPU, memory flat',
    bench: 'merge',
    value: (f) =>
      has(f, 'mergeYearCpuMs', 'mergeDayMeanCpuMs', 'mergePeakRssMb')
        ? `${fixed(f.mergeYearCpuMs!)} ms (${fixed(f.mergeDayMeanCpuMs!, 2)} ms a day), peak RSS ${mb('mergePeakRssMb')(f)}; ` +
          ['mergePartHeldFirstMb', 'mergePartHeldLastMb', 'mergePartHeldMaxMb']
            .map((key) => mb(key)(f))
            .join(', ')
        : '–',
  },
  {
    figure:
      'peak of the importing service (with its reader process) plus its embedded PostgreSQL (PSS, sampled) during an Apple Health import: 32 MB and 128 MB files',
    goal: '≤ 300 MB at 1 GB',
    bench: 'import',
    value: (f, store) => {
      const large = runs.get(`import-large:${store}`)?.figures ?? {};
      return has(f, 'importWithDatabasePeakMb')
        ? `${mb('importWithDatabasePeakMb')(f)} at ${fixed(f.importFileMb!)} MB; ` +
            (has(large, 'importWithDatabasePeakMb')
              ? `${mb('importWithDatabasePeakMb')(large)} at ${fixed(large.importFileMb!)} MB`
              : '–')
        : '–';
    },
  },
  {
    figure: 'idle memory of the service plus its embedded PostgreSQL (PSS summed over every process)',
    goal: '≤ 150 MB',
    bench: 'idle',
    value: mb('idlePssMb'),
  },
  {
    figure:
      'peak of the service plus its embedded PostgreSQL (PSS, sampled) serving two 5-year `with_samples=true` reads at once',
    goal: '≤ 300 MB',
    bench: 'data',
    value: mb('longReadTwoAtOnceWithDatabaseMb'),
  },
  {
    figure: 'server RSS at idle, default settings',
    goal: '≤ 120 MB (PostgreSQL)',
    bench: 'idle',
    value: mb('idleRssMb'),
  },
  {
    figure: 'peak RSS serving two 5-year `with_samples=true` reads at the same time (whole service)',
    goal: '≤ 200 MB (PostgreSQL)',
    bench: 'data',
    value: mb('twoLongReadsPeakMb'),
  },
  {
    figure: 'peak RSS during one 5-year `with_samples=true` read; without the memory sizing',
    goal: '(for comparison)',
    bench: 'data',
    value: (f) =>
      has(f, 'longReadPeakMb', 'longReadUntunedPeakMb')
        ? `${fixed(f.longReadPeakMb!)} MB; ${fixed(f.longReadUntunedPeakMb!)} MB`
        : '–',
  },
  {
    figure:
      "a provider's daily record written with its event (one transaction) with the scores enricher − the same write without it, alternating (median of 61 paired differences); the enricher's own time; this process's CPU added",
    goal: 'scores off the write’s critical path or ≤ 5 ms added',
    bench: 'scores',
    value: (f) =>
      has(f, 'scores_write_added_ms', 'scores_write_daily_scored_ms', 'scores_write_daily_unscored_ms')
        ? `${fixed(f.scores_write_added_ms!, 1)} ms added (${fixed(f.scores_write_daily_scored_ms!, 1)} vs ${fixed(f.scores_write_daily_unscored_ms!, 1)} ms, medians)` +
          (has(f, 'scores_write_enricher_ms')
            ? `; enricher ${fixed(f.scores_write_enricher_ms!, 1)} ms`
            : '') +
          (has(f, 'scores_write_added_cpu_ms') ? `; CPU +${fixed(f.scores_write_added_cpu_ms!, 2)} ms` : '')
        : '–',
  },
  {
    figure: 'records read p50 at a small and a large records table; partitions a one-month read scans',
    goal: 'flat in table size; pruned to the month',
    bench: 'partitions',
    value: (f) =>
      has(
        f,
        'partitionReadP50MsSmall',
        'partitionReadP50MsLarge',
        'partitionRows',
        'partitionsScanned',
        'partitionsTotal',
      )
        ? `${fixed(f.partitionReadP50MsSmall!, 2)} ms → ${fixed(f.partitionReadP50MsLarge!, 2)} ms at ${fixed(f.partitionRows!)} rows; ${fixed(f.partitionsScanned!)} of ${fixed(f.partitionsTotal!)} partitions scanned`
        : '–',
  },
];

const cell = (bench: string, store: Store, row: Row) => {
  const run = runs.get(`${bench}:${store}`);
  if (!run) return store === 'postgres' && !databaseUrl ? 'not run (set DATABASE_URL)' : 'n/a';
  return run.error ? `failed (${run.error})` : row.value(run.figures, store);
};

const lines = [
  '# Benchmark results',
  '',
  `Written by \`npm run bench\` (bench/run-all.ts) on ${new Date().toISOString()}; ${process.platform}, ` +
    `Node ${process.version}. Server and load run on the same machine, so the figures move with whatever ` +
    'else it is doing: each bench’s load average (1 min, before → after) is listed below.',
  '',
  '| Figure | Goal | Embedded PostgreSQL | PostgreSQL |',
  '|---|---|---|---|',
  ...rows.map(
    (row) =>
      `| ${row.figure} | ${row.goal} | ${cell(row.bench, 'embedded', row)} | ${cell(row.bench, 'postgres', row)} |`,
  ),
  '',
  '## Commands and machine load',
  '',
  '| Bench | Command | Load average |',
  '|---|---|---|',
  ...[...runs].map(([key, run]) => `| ${key} | \`${run.command}\` | ${run.load} |`),
  '',
];
// Sections measured by hand with their own commands are kept as they are: those after the marker
// (the lab-report reader's per-class table, the issue 44 rows) and the figures of benches this
// script does not run (too long for `npm run bench`) under "Measured separately".
const KEPT = ['<!-- sections below are kept by run-all -->', '## Measured separately'];
const previous = existsSync(RESULTS) ? readFileSync(RESULTS, 'utf8') : '';
const keptFrom = Math.min(...KEPT.map((mark) => previous.indexOf(mark)).filter((at) => at >= 0));
const kept = Number.isFinite(keptFrom) ? previous.slice(keptFrom) : '';
writeFileSync(RESULTS, lines.join('\n') + (kept ? `\n${kept}` : ''));
process.stdout.write(`\nwrote ${RESULTS}\n`);
