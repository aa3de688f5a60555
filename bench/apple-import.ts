/**
 * Apple Health export import at disk speed (issue 28): the end-to-end import of a generated
 * export.xml into a real store ÷ a bare SAX scan of the same file, measured in the same run, each
 * in a fresh process of its own so its peak RSS is its own:
 *
 * - anchor: saxes over the file, every record's attributes read (what any import must at least
 *   do); run before and after the import, and the mean taken, so the machine's load drifting
 *   during the run weighs on both sides alike.
 * - import: `startImport` (the file spooled) and `runImport` into embedded PostgreSQL, or PostgreSQL
 *   with DATABASE_URL: read and normalized in the isolated reader process, every sample upserted
 *   with its checkpoint, every day's unified records rebuilt. The process runs under the
 *   server's memory settings (runtime/memory-limits.js), as `tributary serve` and
 *   `tributary import` do. Its peak RSS (the store's too, when embedded) and the reader's are
 *   printed; issue 44's goal (≤ 250 MB) is for service + database, so the importing process's own
 *   peak is held to it too.
 * - stream (with --stream): the reader alone (read, filter, parse, normalize), no store.
 *
 * The importing process's phases (wall) are printed, and the CPU of the importing process and of its
 * embedded PostgreSQL after the last batch (the rebuild of the days), sampled at each batch.
 *
 * Also sampled, from this process (a sampler inside the importing process cost it CPU and its
 * event loop's turns: reading another process's smaps_rollup walks its page tables), while the
 * import runs: every 0.5 s the PSS of the importing process, every process it started (the
 * reader) and its embedded PostgreSQL's processes, summed: issue 42's "peak during an import,
 * service + database ≤ 300 MB" (importWithDatabasePeakMb); every 0.1 s the reader's peak RSS and
 * the CPU time of each side.
 *
 * Goal (issue 44): importRatio ≥ 0.5, importPeakRssMb ≤ 250 on both stores. Figures (reportFigures):
 * importMBps, importSaxAnchorMBps, importRatio, importPeakRssMb (the importing process's peak),
 * importRssWhileImportingMb (its largest RSS sampled during the import: on PGlite the process
 * peak is the store's start-up, before any import), importReaderPeakRssMb.
 *
 *   node_modules/.bin/node bench/apple-import.ts [--mb 32] [--layout grouped|daily] [--stream] [--cpu-prof-dir DIR]
 *
 * --layout: the generated export grouped by record type (the default: every day's steps, then body
 * mass, heart rate, workouts, activity summaries, as the Health app writes an export), or day by
 * day (`daily`: what this bench generated up to issue 44's tenth pass; every batch then holds a
 * few whole days, which no real export does).
 *
 * --cpu-prof-dir: the importing process writes a V8 CPU profile (`--cpu-prof`) there.
 * BENCH_IMPORT_PSS_TRACE=FILE: every PSS sample (0.5 s) written to FILE as a line: seconds since the
 * import started, the total, the importing process's own, each process it started (pid:MB, the
 * reader) and its database's: where the peak is, and whose.
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node_modules/.bin/node bench/apple-import.ts --mb 1024
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  createReadStream,
  createWriteStream,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { SaxesParser } from 'saxes';
import { v8FlagsFor } from '../src/runtime/memory-limits.js';
import { writeExportOfSize } from '../test/helpers/apple-export.ts';
import { reportFigures } from './figures.ts';
import { createInterface } from 'node:readline';
import { postmasterOf, samplePeak } from './service-memory.ts';

const NODE = new URL('../node_modules/.bin/node', import.meta.url).pathname;
const SELF = new URL(import.meta.url).pathname;
const MB = 1_048_576;

type Measured = {
  seconds: number;
  /** CPU time (user + system) of the measuring process: a figure other processes on the machine do not skew. */
  cpuSeconds: number;
  bytes: number;
  elements: number;
  samples: number;
  peakRssMb: number;
  /** The isolated reader's peak RSS (import only). */
  readerPeakRssMb?: number;
  /**
   * Import only: the largest PSS sampled of the importing process, every process it started and,
   * on embedded storage, its PostgreSQL's processes, summed (bench/service-memory.ts).
   */
  withDatabasePeakMb?: number;
  withDatabasePeakParts?: { serviceMb: number; databaseMb: number };
  /**
   * Largest RSS sampled while the import ran (import only): the process's peak less what opening
   * the store took before (PGlite compiles its WebAssembly then, a peak of its own).
   */
  importRssMb?: number;
  /**
   * Import only, sampled from outside: CPU seconds of the importing process, its reader and (on
   * embedded storage) its PostgreSQL's processes while the import ran. A database backend that
   * ended before a sample is missed.
   */
  sidesCpuSeconds?: { import: number; reader: number; database: number };
  /**
   * Import only, sampled from outside: the part of `sidesCpuSeconds` used after the last batch was
   * stored (the rebuild of the days; the reader has ended by then).
   */
  afterBatchesCpuSeconds?: { import: number; database: number };
  /**
   * Import only, wall seconds of its phases, from the importing process: the upload spooled, then
   * to the first batch stored (the reader's start), the batches, and after the last batch (the
   * rebuild of the days).
   */
  phases?: { spool: number; firstBatch: number; batches: number; afterBatches: number };
};

const cpuSeconds = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
};
const peakRssMb = () => Math.round((process.resourceUsage().maxRSS / 1024) * 10) / 10;

/** The anchor: the file through saxes, every attribute of every element read, nothing kept. */
async function saxRole(file: string): Promise<Measured> {
  const started = process.hrtime.bigint();
  const cpuAtStart = cpuSeconds();
  const parser = new SaxesParser({ xmlns: false, position: false });
  let elements = 0;
  let attributeChars = 0;
  parser.on('opentag', (tag) => {
    elements++;
    const attributes = tag.attributes as Record<string, string>;
    for (const name in attributes) attributeChars += attributes[name]!.length;
  });
  const decoder = new TextDecoder('utf-8');
  let bytes = 0;
  // A DOCTYPE with an internal subset is skipped by saxes; the generated one is well-formed.
  for await (const chunk of createReadStream(file, { highWaterMark: 256 * 1024 })) {
    bytes += (chunk as Buffer).length;
    parser.write(decoder.decode(chunk as Buffer, { stream: true }));
  }
  parser.close();
  if (attributeChars === 0) throw new Error('no attributes read');
  return {
    seconds: Number(process.hrtime.bigint() - started) / 1e9,
    cpuSeconds: cpuSeconds() - cpuAtStart,
    bytes,
    elements,
    samples: 0,
    peakRssMb: peakRssMb(),
  };
}

async function streamRole(file: string): Promise<Measured> {
  const { readExport } = await import('../src/features/mobile/export-stream.ts');
  const { appleMobile } = await import('../src/providers/apple/mobile.ts');
  const { IMPORT_BATCH } = await import('../src/features/mobile/ports.ts');
  const spec = appleMobile.exportFile!;
  let samples = 0;
  const started = process.hrtime.bigint();
  const cpuAtStart = cpuSeconds();
  const progress = await readExport(file, spec, {
    skip: 0,
    batchSize: IMPORT_BATCH,
    onStart: async () => {},
    onBatch: async (elements) => {
      for (const element of elements) samples += spec.fromElement(element).length;
    },
  });
  return {
    seconds: Number(process.hrtime.bigint() - started) / 1e9,
    cpuSeconds: cpuSeconds() - cpuAtStart,
    bytes: progress.bytesRead,
    elements: progress.elementsRead,
    samples,
    peakRssMb: peakRssMb(),
  };
}

/** What is sampled from outside the importing process while it imports. */
type Sampled = Required<
  Pick<
    Measured,
    | 'readerPeakRssMb'
    | 'importRssMb'
    | 'withDatabasePeakMb'
    | 'withDatabasePeakParts'
    | 'sidesCpuSeconds'
    | 'afterBatchesCpuSeconds'
  >
>;

const procText = (path: string) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return ''; // gone meanwhile
  }
};
const statusKb = (pid: number, field: string) =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(procText(`/proc/${pid}/status`))?.[1] ?? 0);
/** utime + stime in seconds (clock ticks of 1/100 s). */
const cpuOf = (pid: number) => {
  const stat = procText(`/proc/${pid}/stat`);
  if (!stat) return 0;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};
/** The direct children of `pid` (every thread's). */
function childrenOf(pid: number): number[] {
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  return tasks.flatMap((task) =>
    procText(`/proc/${pid}/task/${task}/children`).split(' ').filter(Boolean).map(Number),
  );
}

/**
 * Samples the importing process `pid` from outside (every 0.1 s): the peak RSS (VmHWM) of its
 * children that are not its database (the isolated reader), its own RSS, and the CPU each side
 * used since the start (the importing process, its reader, its embedded PostgreSQL's processes);
 * and every 0.5 s the PSS of all of them summed (bench/service-memory.ts). `batchStored` (each
 * batch the importing process reports) samples the CPU again, so what the last one saw splits off
 * what the rebuild after it used.
 */
function sampleImport(
  pid: number,
  databasePids: () => number[],
  dataDir: string,
): { batchStored(): void; stop(): Sampled } {
  const trace = process.env.BENCH_IMPORT_PSS_TRACE
    ? createWriteStream(process.env.BENCH_IMPORT_PSS_TRACE)
    : undefined;
  const traceStarted = Date.now();
  trace?.write('seconds\ttotal\tservice\tstarted\tdatabase (PSS, MB)\n');
  const whole = samplePeak(
    pid,
    process.env.DATABASE_URL ? undefined : dataDir,
    500,
    trace &&
      ((now) => {
        const [own, ...started] = now.serviceProcesses;
        trace.write(
          [
            ((Date.now() - traceStarted) / 1000).toFixed(2),
            now.totalMb.toFixed(1),
            (own?.mb ?? 0).toFixed(1),
            started.map(({ pid: of, mb }) => `${of}:${mb.toFixed(1)}`).join(',') || '-',
            now.databaseMb.toFixed(1),
          ].join('\t') + '\n',
        );
      }),
  );
  let readerKb = 0;
  let ownKb = 0;
  const cpuAtStart = new Map<number, number>();
  const cpuNow = new Map<number, { side: 'import' | 'reader' | 'database'; seconds: number }>();
  const see = (of: number, side: 'import' | 'reader' | 'database') => {
    const seconds = cpuOf(of);
    if (seconds > 0) cpuNow.set(of, { side, seconds });
  };
  const sample = () => {
    ownKb = Math.max(ownKb, statusKb(pid, 'VmRSS'));
    see(pid, 'import');
    const database = databasePids();
    for (const of of database) see(of, 'database');
    for (const child of childrenOf(pid)) {
      if (database.includes(child)) continue;
      readerKb = Math.max(readerKb, statusKb(child, 'VmHWM'));
      see(child, 'reader');
    }
  };
  const sidesNow = () => {
    const sides = { import: 0, reader: 0, database: 0 };
    for (const [of, { side, seconds }] of cpuNow) sides[side] += seconds - (cpuAtStart.get(of) ?? 0);
    return sides;
  };
  sample();
  for (const [of, { seconds }] of cpuNow) cpuAtStart.set(of, seconds);
  let atLastBatch = sidesNow();
  const timer = setInterval(sample, 100);
  return {
    batchStored() {
      sample();
      atLastBatch = sidesNow();
    },
    stop() {
      clearInterval(timer);
      sample();
      const peak = whole.stop();
      trace?.end();
      const mb = (value: number) => Math.round(value * 10) / 10;
      const sides = sidesNow();
      return {
        readerPeakRssMb: mb(readerKb / 1024),
        importRssMb: mb(ownKb / 1024),
        withDatabasePeakMb: mb(peak.totalMb),
        withDatabasePeakParts: { serviceMb: mb(peak.serviceMb), databaseMb: mb(peak.databaseMb) },
        sidesCpuSeconds: sides,
        afterBatchesCpuSeconds: {
          import: sides.import - atLastBatch.import,
          database: sides.database - atLastBatch.database,
        },
      };
    },
  };
}

async function importRole(file: string): Promise<Measured> {
  const { loadConfig } = await import('../src/core/config.ts');
  const { openContext } = await import('../src/runtime/runtime.ts');
  // Made by the measuring process, which finds the embedded server's postmaster.pid in it.
  const dataDir = process.env.BENCH_IMPORT_DATA_DIR!;
  // On PostgreSQL the run gets a schema of its own, dropped afterwards.
  const schema = process.env.DATABASE_URL ? `bench_${randomBytes(5).toString('hex')}` : undefined;
  const config = loadConfig({
    ...process.env,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    // A 1 GB export is above the default upload limit.
    MOBILE_IMPORT_MAX_BYTES: String(8 * 1024 * MB),
    ...(schema ? { DATABASE_SCHEMA: schema, ENCRYPTION_KEY: randomBytes(32).toString('hex') } : {}),
  });
  const { ctx, close } = await openContext(config);
  try {
    const { developer } = await ctx.developers.create({
      name: 'bench',
      environment: 'sandbox',
      orderApiAccess: false,
    });
    // The measuring process samples memory and CPU between these two lines (from outside: a
    // sampler in this process cost it CPU and its event loop's turns).
    console.log(IMPORT_STARTS);
    const started = process.hrtime.bigint();
    const cpuAtStart = cpuSeconds();
    const queued = await ctx.mobile.startImport({
      developerId: developer.id,
      format: 'apple-health',
      referenceId: 'bench',
      body: createReadStream(file),
      enqueue: false,
    });
    const spooled = process.hrtime.bigint();
    let firstBatch: bigint | undefined;
    let lastBatch: bigint | undefined;
    const final = await ctx.mobile.runImport(queued.import_id, (view) => {
      if (view.status !== 'running') return;
      console.log(BATCH_STORED);
      lastBatch = process.hrtime.bigint();
      firstBatch ??= lastBatch;
    });
    const ended = process.hrtime.bigint();
    const seconds = Number(ended - started) / 1e9;
    const between = (from: bigint, to: bigint) => Math.round(Number(to - from) / 1e7) / 100;
    const cpu = cpuSeconds() - cpuAtStart;
    console.log(IMPORT_ENDS);
    if (final?.status !== 'completed') throw new Error(`import ended ${final?.status}: ${final?.error}`);
    const stored = await ctx.db
      .selectFrom('mobile_samples')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    return {
      seconds,
      cpuSeconds: cpu,
      bytes: final.bytes_read,
      elements: final.records_read,
      samples: Number(stored.n),
      peakRssMb: peakRssMb(),
      phases: {
        spool: between(started, spooled),
        firstBatch: between(spooled, firstBatch ?? ended),
        batches: between(firstBatch ?? ended, lastBatch ?? ended),
        afterBatches: between(lastBatch ?? ended, ended),
      },
    };
  } finally {
    await close();
    if (schema) {
      const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.query(`DROP SCHEMA IF EXISTS ${schema}_jobs CASCADE`);
      await client.end();
    }
  }
}

/** The import runs as the server would: its V8 flags and malloc tuning (memory-limits.js). */
const SERVER_MEMORY = {
  flags: v8FlagsFor('all'),
  env: {
    GLIBC_TUNABLES:
      'glibc.malloc.arena_max=2:glibc.malloc.trim_threshold=32768:glibc.malloc.mmap_threshold=32768',
  },
};

function runRole(role: string, file: string): Measured {
  const child = spawnSync(NODE, [SELF, '--role', role, file], { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (child.status !== 0) throw new Error(`${role} run failed (${child.status}): ${child.stderr}`);
  return JSON.parse(child.stdout.trim().split('\n').at(-1)!) as Measured;
}

const IMPORT_STARTS = 'bench: import starts';
const IMPORT_ENDS = 'bench: import ends';
/** Printed after each stored batch: the measuring process samples the CPU again. */
const BATCH_STORED = 'bench: batch stored';

/**
 * The import role, measured from here while it imports: its memory with its reader's and its
 * embedded PostgreSQL's (PSS), the reader's peak RSS, and the CPU of each side.
 */
async function runImportRole(file: string): Promise<Measured> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tributary-bench-import-'));
  const embedded = !process.env.DATABASE_URL;
  try {
    const child = spawn(
      NODE,
      [
        ...SERVER_MEMORY.flags,
        ...(values['cpu-prof-dir'] ? ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof-dir']}`] : []),
        ...(process.env.BENCH_IMPORT_FLAGS?.split(' ').filter(Boolean) ?? []),
        SELF,
        '--role',
        'import',
        file,
      ],
      {
        env: { ...process.env, ...SERVER_MEMORY.env, BENCH_IMPORT_DATA_DIR: dataDir },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const pid = child.pid!;
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-65536)));
    const trace = process.env.BENCH_IMPORT_TRACE
      ? createWriteStream(process.env.BENCH_IMPORT_TRACE)
      : undefined;
    const databasePids = () => {
      const postmaster = embedded ? postmasterOf(dataDir) : undefined;
      return postmaster ? [postmaster, ...childrenOf(postmaster)] : [];
    };
    let sampling: ReturnType<typeof sampleImport> | undefined;
    let sampled: Sampled | undefined;
    let last = '';
    for await (const line of createInterface({ input: child.stdout })) {
      if (line === IMPORT_STARTS || line === IMPORT_ENDS) trace?.write(`${line}\n`);
      if (line === BATCH_STORED) sampling?.batchStored();
      else if (line === IMPORT_STARTS) sampling = sampleImport(pid, databasePids, dataDir);
      else if (line === IMPORT_ENDS) sampled = sampling?.stop();
      else {
        trace?.write(`${line}\n`);
        last = line;
      }
    }
    const code = await new Promise<number | null>((done) =>
      child.exitCode !== null ? done(child.exitCode) : child.once('exit', done),
    );
    if (code !== 0 || !sampled) throw new Error(`import run failed (${code}): ${stderr}`);
    return { ...(JSON.parse(last) as Measured), ...sampled };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const mbPerSecond = (measured: Measured) => measured.bytes / MB / measured.seconds;

function report(label: string, measured: Measured) {
  console.log(
    `${label}: ${(measured.bytes / MB).toFixed(1)} MB, ${measured.elements} elements` +
      (measured.samples ? ` -> ${measured.samples} samples` : '') +
      ` in ${measured.seconds.toFixed(2)} s = ${mbPerSecond(measured).toFixed(1)} MB/s wall, ` +
      `${(measured.bytes / MB / measured.cpuSeconds).toFixed(1)} MB/s per CPU-second of its process ` +
      `(${measured.cpuSeconds.toFixed(2)} s CPU); peak RSS ${measured.peakRssMb} MB` +
      (measured.importRssMb !== undefined ? ` (${measured.importRssMb} MB while importing)` : '') +
      (measured.readerPeakRssMb !== undefined ? `, reader process ${measured.readerPeakRssMb} MB` : '') +
      (measured.sidesCpuSeconds
        ? `; CPU sampled from outside: ${measured.sidesCpuSeconds.import.toFixed(2)} s importing process, ` +
          `${measured.sidesCpuSeconds.reader.toFixed(2)} s reader` +
          (process.env.DATABASE_URL ? '' : `, ${measured.sidesCpuSeconds.database.toFixed(2)} s PostgreSQL`)
        : '') +
      (measured.phases
        ? `; phases: spool ${measured.phases.spool} s, to the first batch ${measured.phases.firstBatch} s, ` +
          `batches ${measured.phases.batches} s, after the last batch ${measured.phases.afterBatches} s`
        : '') +
      (measured.afterBatchesCpuSeconds
        ? `; CPU after the last batch: ${measured.afterBatchesCpuSeconds.import.toFixed(2)} s importing process` +
          (process.env.DATABASE_URL
            ? ''
            : `, ${measured.afterBatchesCpuSeconds.database.toFixed(2)} s PostgreSQL`)
        : '') +
      (measured.withDatabasePeakMb !== undefined
        ? `; with every process it started and its database's, PSS peak ${measured.withDatabasePeakMb} MB ` +
          `(${measured.withDatabasePeakParts?.serviceMb} MB service side, ${measured.withDatabasePeakParts?.databaseMb} MB PostgreSQL)`
        : ''),
  );
}

const { values } = parseArgs({
  options: {
    role: { type: 'string' },
    mb: { type: 'string', default: process.env.APPLE_BENCH_MB ?? '32' },
    stream: { type: 'boolean', default: false },
    layout: { type: 'string', default: 'grouped' },
    'cpu-prof-dir': { type: 'string' },
  },
  allowPositionals: true,
  args: process.argv.slice(2),
});

if (values.role) {
  const file = process.argv.at(-1)!;
  const roles: Record<string, (file: string) => Promise<Measured>> = {
    sax: saxRole,
    stream: streamRole,
    import: importRole,
  };
  console.log(JSON.stringify(await roles[values.role]!(file)));
} else {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-apple-bench-'));
  try {
    const file = join(dir, 'export.xml');
    const generated = Date.now();
    // Ending yesterday: every sample plausible, however many years the size makes.
    const today = new Date().toISOString().slice(0, 10);
    if (values.layout !== 'grouped' && values.layout !== 'daily')
      throw new Error(`--layout is grouped or daily, not ${values.layout}`);
    const written = await writeExportOfSize(file, Number(values.mb) * MB, today, {
      groupedByType: values.layout === 'grouped',
    });
    const load = () =>
      loadavg()
        .map((value) => value.toFixed(2))
        .join(' ');
    console.log(`load average: ${load()}; ${cpus().length} CPUs`);
    console.log(
      `generated export.xml (${values.layout === 'grouped' ? 'grouped by record type' : 'day by day'}): ${(statSync(file).size / MB).toFixed(1)} MB, ${written.days} days, in ${((Date.now() - generated) / 1000).toFixed(1)} s`,
    );
    const store = process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded PostgreSQL';
    const before = runRole('sax', file);
    report('anchor: bare saxes scan, every attribute read (before)', before);
    if (values.stream)
      report('stream: the reader alone (read, filter, parse, normalize)', runRole('stream', file));
    const imported = await runImportRole(file);
    report(`import end to end into ${store} (spool, read, upsert, checkpoints, day rebuilds)`, imported);
    const afterwards = runRole('sax', file);
    report('anchor: bare saxes scan, every attribute read (after)', afterwards);
    const anchor = (mbPerSecond(before) + mbPerSecond(afterwards)) / 2;
    const ratio = mbPerSecond(imported) / anchor;
    console.log(
      `import ÷ anchor: ${ratio.toFixed(3)}× (goal ≥ 0.5 ${ratio >= 0.5 ? 'met' : 'NOT met'}); ` +
        `peak RSS ${imported.peakRssMb} MB (goal ≤ 250 ${imported.peakRssMb <= 250 ? 'met' : 'NOT met'}); ` +
        `load average now ${load()}`,
    );
    reportFigures({
      importMBps: mbPerSecond(imported),
      importSaxAnchorMBps: anchor,
      importRatio: ratio,
      importPeakRssMb: imported.peakRssMb,
      importRssWhileImportingMb: imported.importRssMb ?? 0,
      importReaderPeakRssMb: imported.readerPeakRssMb ?? 0,
      importWithDatabasePeakMb: imported.withDatabasePeakMb ?? 0,
      importFileMb: imported.bytes / MB,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
