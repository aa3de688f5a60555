/**
 * Apple Health export import: throughput (MB/s of export.xml) and peak RSS, in two measurements,
 * each in a fresh process of its own so its peak RSS is its own:
 * 1. stream: the import's streaming pipeline over a generated export.xml — read, DTD/control
 *    filter, SAX parse, element capture, the APPLE normalizer (every element to samples) — without
 *    the store; goals: ≥ 50 MB/s, peak RSS ≤ 200 MB. Size: APPLE_BENCH_MB (default 1024 = 1 GB).
 * Wall-clock MB/s depends on what else the machine runs; MB per CPU-second of the measuring
 * process does not, so both are printed (with the load average).
 * 2. end to end: `runImport` into a real store (embedded PGlite, or PostgreSQL with DATABASE_URL):
 *    the same pipeline plus upserting every sample with its checkpoint and rebuilding every day's
 *    unified records. Size: APPLE_BENCH_STORE_MB (default 32); 0 skips it.
 *
 *   node_modules/.bin/node bench/apple-import.ts [--mb 1024] [--store-mb 32]
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { writeExportOfSize } from '../test/helpers/apple-export.ts';

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
  /** Largest live heap after a forced GC (sampled every 50 batches): what the import really holds. */
  liveHeapMb?: number;
};

const cpuSeconds = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
};
const peakRssMb = () => Math.round((process.resourceUsage().maxRSS / 1024) * 10) / 10;

async function streamRole(file: string): Promise<Measured> {
  const { readExport } = await import('../src/features/mobile/export-stream.ts');
  const { appleMobile } = await import('../src/providers/apple/mobile.ts');
  const { IMPORT_BATCH } = await import('../src/features/mobile/ports.ts');
  const spec = appleMobile.exportFile!;
  let samples = 0;
  let batches = 0;
  let liveHeap = 0;
  const gc = (globalThis as { gc?: () => void }).gc;
  const started = process.hrtime.bigint();
  const cpuAtStart = cpuSeconds();
  const progress = await readExport(file, spec, {
    skip: 0,
    batchSize: IMPORT_BATCH,
    onStart: async () => {},
    onBatch: async (elements) => {
      for (const element of elements) samples += spec.fromElement(element).length;
      if (gc && ++batches % 50 === 0) {
        gc();
        liveHeap = Math.max(liveHeap, process.memoryUsage().heapUsed);
      }
    },
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = cpuSeconds() - cpuAtStart;
  return {
    seconds,
    cpuSeconds: cpu,
    bytes: progress.bytesRead,
    elements: progress.elementsRead,
    samples,
    peakRssMb: peakRssMb(),
    liveHeapMb: Math.round((liveHeap / MB) * 10) / 10,
  };
}

async function storeRole(file: string): Promise<Measured> {
  const { createReadStream } = await import('node:fs');
  const { loadConfig } = await import('../src/core/config.ts');
  const { openContext } = await import('../src/runtime/runtime.ts');
  const dataDir = mkdtempSync(join(tmpdir(), 'tributary-bench-import-'));
  // On PostgreSQL the run gets a schema of its own, dropped afterwards.
  const schema = process.env.DATABASE_URL ? `bench_${randomBytes(5).toString('hex')}` : undefined;
  const config = loadConfig({
    ...process.env,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    ...(schema ? { DATABASE_SCHEMA: schema, ENCRYPTION_KEY: randomBytes(32).toString('hex') } : {}),
  });
  const { ctx, close } = await openContext(config);
  try {
    const { developer } = await ctx.developers.create({
      name: 'bench',
      environment: 'sandbox',
      orderApiAccess: false,
    });
    const started = process.hrtime.bigint();
    const cpuAtStart = cpuSeconds();
    const queued = await ctx.mobile.startImport({
      developerId: developer.id,
      format: 'apple-health',
      referenceId: 'bench',
      body: createReadStream(file),
      enqueue: false,
    });
    let batches = 0;
    let liveHeap = 0;
    const gc = (globalThis as { gc?: () => void }).gc;
    const final = await ctx.mobile.runImport(queued.import_id, () => {
      if (gc && ++batches % 50 === 0) {
        gc();
        liveHeap = Math.max(liveHeap, process.memoryUsage().heapUsed);
      }
    });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const cpu = cpuSeconds() - cpuAtStart;
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
      liveHeapMb: Math.round((liveHeap / MB) * 10) / 10,
    };
  } finally {
    await close();
    rmSync(dataDir, { recursive: true, force: true });
    if (schema) {
      const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.query(`DROP SCHEMA IF EXISTS ${schema}_jobs CASCADE`);
      await client.end();
    }
  }
}

function runRole(role: string, file: string): Measured {
  // APPLE_BENCH_NODE_FLAGS: V8 flags for the measured process (e.g. --max-semi-space-size=4).
  const flags = (process.env.APPLE_BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const child = spawnSync(NODE, ['--expose-gc', ...flags, SELF, '--role', role, file], {
    encoding: 'utf8',
    env: process.env,
    maxBuffer: 1 << 24,
  });
  if (child.status !== 0) throw new Error(`${role} run failed (${child.status}): ${child.stderr}`);
  return JSON.parse(child.stdout.trim().split('\n').at(-1)!) as Measured;
}

function report(label: string, measured: Measured, goals: boolean) {
  const mbPerSecond = measured.bytes / MB / measured.seconds;
  const mbPerCpuSecond = measured.bytes / MB / measured.cpuSeconds;
  console.log(
    `${label}: ${(measured.bytes / MB).toFixed(1)} MB, ${measured.elements} elements -> ${measured.samples} samples in ` +
      `${measured.seconds.toFixed(2)} s = ${mbPerSecond.toFixed(1)} MB/s wall, ${mbPerCpuSecond.toFixed(1)} MB/s per CPU-second ` +
      `(${measured.cpuSeconds.toFixed(2)} s CPU); peak RSS ${measured.peakRssMb} MB` +
      (measured.liveHeapMb ? ` (live heap after GC ≤ ${measured.liveHeapMb} MB)` : '') +
      (goals
        ? `  [goals: ≥ 50 MB/s ${mbPerSecond >= 50 ? 'met' : 'NOT met'} (per CPU-second: ${mbPerCpuSecond >= 50 ? 'met' : 'NOT met'}), ` +
          `≤ 200 MB ${measured.peakRssMb <= 200 ? 'met' : 'NOT met'}]`
        : ''),
  );
}

const { values } = parseArgs({
  options: {
    role: { type: 'string' },
    mb: { type: 'string', default: process.env.APPLE_BENCH_MB ?? '1024' },
    'store-mb': { type: 'string', default: process.env.APPLE_BENCH_STORE_MB ?? '32' },
  },
  allowPositionals: true,
  args: process.argv.slice(2),
});

if (values.role) {
  const file = process.argv.at(-1)!;
  const measured = values.role === 'stream' ? await streamRole(file) : await storeRole(file);
  console.log(JSON.stringify(measured));
} else {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-apple-bench-'));
  try {
    const size = Number(values.mb) * MB;
    const file = join(dir, 'export.xml');
    const generated = Date.now();
    const written = await writeExportOfSize(file, size);
    console.log(
      `load average: ${loadavg()
        .map((value) => value.toFixed(2))
        .join(' ')}; ${cpus().length} CPUs`,
    );
    console.log(
      `generated export.xml: ${(statSync(file).size / MB).toFixed(1)} MB, ${written.days} days, in ${((Date.now() - generated) / 1000).toFixed(1)} s`,
    );
    report('stream (read, filter, parse, normalize)', runRole('stream', file), true);
    rmSync(file);
    const storeMb = Number(values['store-mb']);
    if (storeMb > 0) {
      const small = join(dir, 'export-store.xml');
      await writeExportOfSize(small, storeMb * MB);
      report(
        `end to end into ${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'} (+ upserts, checkpoints, day rebuilds)`,
        runRole('store', small),
        false,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
