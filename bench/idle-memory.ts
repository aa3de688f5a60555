/**
 * Idle memory of `tributary serve` (role all): spawns the service as an operator runs it,
 * waits for /ready and a few quiet seconds (recurring jobs registered, pools settled), then
 * reads the PSS of the service plus its embedded PostgreSQL's processes (bench/service-memory.ts;
 * goal ≤ 150 MB), and the service process's own resident set (VmRSS) and start-up peak (VmHWM).
 * Embedded storage by default; with DATABASE_URL, PostgreSQL (whose server is not counted).
 *
 * As `npm start` runs it: the bundle is built first if it is stale (npm's prestart,
 * scripts/build-bundle.ts) and the launcher runs it. The service's RSS from the sources
 * (TRIBUTARY_BUNDLE=off: what the launcher runs where no bundle can be built, a production
 * install without esbuild) is measured after it, the same way, and printed beside it.
 *
 *   node_modules/.bin/node bench/idle-memory.ts [settleSeconds=5]
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { childEnvironment, startService } from '../test/helpers/child-service.ts';
import { reportFigures } from './figures.ts';
import { serviceAndDatabasePssMb } from './service-memory.ts';

const settleSeconds = Number(process.argv[2] ?? 5);
const ROOT = new URL('../', import.meta.url).pathname;

// npm start's prestart: the launcher runs the bundle only while it is as fresh as the sources.
execFileSync(join(ROOT, 'node_modules/.bin/node'), [join(ROOT, 'scripts/build-bundle.ts'), '--if-stale'], {
  stdio: 'inherit',
});
const { BUNDLE_DIR, freshBundleEntry } = await import('../src/runtime/bundle-manifest.js');
const bundled = freshBundleEntry(ROOT, join(ROOT, BUNDLE_DIR)) !== undefined;

function rssMb(pid: number) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024;
  return { rss: field('VmRSS'), peak: field('VmHWM') };
}

const storage = process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded PostgreSQL';
// The helper gives a child the test PostgreSQL unless told `DATABASE_URL: ''` (embedded storage).
const environment = await childEnvironment({
  SANDBOX_ARRIVAL_MINUTES: 'off',
  // BENCH_NODE_OPTIONS: V8 flags to try on the service (an operator's flag wins over its own sizing).
  ...(process.env.BENCH_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS } : {}),
  // BENCH_GLIBC_TUNABLES: malloc settings to try instead of the service's own (memory-limits.js).
  ...(process.env.BENCH_GLIBC_TUNABLES ? { GLIBC_TUNABLES: process.env.BENCH_GLIBC_TUNABLES } : {}),
  ...(process.env.DATABASE_URL ? {} : { DATABASE_URL: '' }),
});
/** The service's idle memory: started once to create the store, then measured on a later start. */
async function idleMemory(env: Record<string, string>) {
  // The first start creates the store; the figure is for a later start, as a server restarts.
  await (await startService(env)).stop('SIGTERM');
  const service = await startService(env);
  await new Promise((resolve) => setTimeout(resolve, settleSeconds * 1000));
  const { rss, peak } = rssMb(service.process.pid!);
  const embedded = process.env.DATABASE_URL ? undefined : env.DATA_DIR;
  const pss = serviceAndDatabasePssMb(service.process.pid!, embedded);
  await service.stop('SIGTERM');
  return { rss, peak, pss };
}

try {
  const { rss, peak, pss } = await idleMemory(environment.env);
  const sources = await idleMemory({ ...environment.env, TRIBUTARY_BUNDLE: 'off' });
  console.log(
    `idle memory of tributary serve (role all, ${storage}, default settings, ` +
      `${bundled ? 'the bundle, as npm start runs it' : 'no bundle: no esbuild'})`,
  );
  console.log(
    `  PSS at idle, service + its PostgreSQL: ${pss.totalMb.toFixed(0)} MB ` +
      `(service ${pss.serviceMb.toFixed(0)} MB, PostgreSQL ${pss.databaseMb.toFixed(0)} MB; goal ≤ 150 MB)`,
  );
  console.log(`  service RSS at idle: ${rss.toFixed(0)} MB (start-up peak ${peak.toFixed(0)} MB)`);
  console.log(
    `  from the sources (TRIBUTARY_BUNDLE=off): service RSS at idle ${sources.rss.toFixed(0)} MB ` +
      `(start-up peak ${sources.peak.toFixed(0)} MB), PSS with its PostgreSQL ${sources.pss.totalMb.toFixed(0)} MB`,
  );
  reportFigures({
    idlePssMb: pss.totalMb,
    idleRssMb: rss,
    startPeakRssMb: peak,
    idleRssSourcesMb: sources.rss,
    idlePssSourcesMb: sources.pss.totalMb,
  });
} finally {
  await environment.cleanup();
}
