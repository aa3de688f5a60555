// The test runner behind `npm test`, `npm run test:unit` and `npm run test:integration`:
//
//   node scripts/test.ts [unit | integration | all] [file or glob …] [-- node --test options …]
//
// 1. Store tests: once per run, test/global-setup.ts finds the PostgreSQL (test/helpers/database.ts
//    `testDatabaseUrl()`) and makes the migrated template every test service copies; dropped at
//    the end (and what killed runs left, at the start).
// 2. Two lanes start together:
//    - the parallel lane: every file not in SERIAL, as many at once as the machine has cores
//      (TEST_CONCURRENCY to override), each in a process of its own; fewer when the PostgreSQL
//      has too few connections to spare for them (max_connections: test/helpers/connection-budget.ts),
//      said in one line;
//    - the serial lane: the SERIAL files below, one at a time. They drive a browser, crash or
//      kill processes on purpose, run several services, build an image or measure memory: two of
//      them at once would starve each other. One at a time they use about half a core (some
//      240 s of CPU in the 514–584 s they took after the parallel files: much of it waiting for a
//      heartbeat to lapse, a child to start, a page to render), so beside the parallel files they
//      add far less than their own time.
//    Each lane starts its longest files first (scripts/test-durations.txt, from an earlier run),
//    so that no long file starts last and runs on alone; the serial lane's slot, once its own
//    files are done, takes parallel files too (scripts/test-queue.ts), so that it does not idle
//    while they queue.
// With TEST_FILE_TIMES=<path>, each file's time (process start to end) and outcome is also
// written there, slowest first: `<path>.parallel` and `<path>.serial`; and each file's CPU time
// (its process and the children it waited for; scripts/test-file-cpu.ts): `<path>.cpu`.
// With node --test options after `--`, the files go to `node --test` as before (sorted by name,
// then the serial ones one at a time).
import { spawn } from 'node:child_process';
import { existsSync, globSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runQueue } from './test-queue.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

const GROUPS = {
  unit: ['test/unit/**/*.test.ts'],
  integration: [
    'test/integration/**/*.test.ts',
    'test/e2e/**/*.test.ts',
    'test/fakes-check/**/*.test.ts',
    'packages/*/test/**/*.test.ts',
  ],
};

/**
 * Files run one at a time, beside the parallel ones, and why. Only files whose outcome depends on
 * timing or on the machine's share they get belong here: this lane's files can run in no other
 * slot, so too many of them would make it the run's long pole. Files that are merely heavy
 * (new-provider's type-check, the packed packages' npm pack and install) run in the parallel
 * slots: nothing in them waits against a clock.
 */
const SERIAL: Record<string, string> = {
  'test/e2e/activation.test.ts': 'drives Chromium',
  'test/e2e/dashboard.test.ts': 'drives Chromium',
  'test/e2e/widget.test.ts': 'drives Chromium',
  'test/integration/fault-crash.test.ts': 'SIGKILLs the service mid-import and mid-delivery',
  'test/integration/webhook-crash.test.ts': 'SIGKILLs a delivering process',
  'test/integration/fhir-export-crash.test.ts': 'SIGKILLs an export worker',
  'test/integration/scale-out.test.ts': 'four service processes under load',
  'test/integration/upgrade-side-by-side.test.ts': 'the previous release and this one side by side',
  'test/integration/container-image.test.ts': 'builds and runs a container image',
  'test/integration/read-replica.test.ts': 'a primary and a streaming replica of its own',
  'test/integration/recurring-jobs.test.ts': 'several queue instances keep time together',
  'test/integration/destination-contract.test.ts': 'a child service per destination kind',
  'test/integration/hostile-files-import.test.ts': 'memory-limited children',
  'test/integration/hostile-files-lab.test.ts': 'memory-limited children',
};

function parseArguments(argv: string[]) {
  const separator = argv.indexOf('--');
  const ours = separator === -1 ? argv : argv.slice(0, separator);
  const nodeOptions = separator === -1 ? [] : argv.slice(separator + 1);
  const group = ours[0] === 'unit' || ours[0] === 'integration' || ours[0] === 'all' ? ours.shift()! : 'all';
  const patterns =
    ours.length > 0
      ? ours
      : group === 'unit'
        ? GROUPS.unit
        : group === 'integration'
          ? GROUPS.integration
          : [...GROUPS.unit, ...GROUPS.integration];
  return { group, patterns, nodeOptions };
}

function filesOf(patterns: string[]): string[] {
  const files = new Set<string>();
  for (const pattern of patterns)
    for (const file of globSync(pattern, { cwd: ROOT })) files.add(relative(ROOT, resolve(ROOT, file)));
  return [...files].sort();
}

/**
 * Each file's duration in an earlier run (scripts/test-durations.txt: TEST_FILE_TIMES output,
 * `<seconds> s  <outcome>  <file>` a line), to start the longest first. To refresh it:
 * `TEST_FILE_TIMES=/tmp/t npm test && cat /tmp/t.* > scripts/test-durations.txt`.
 */
function knownDurations(): Map<string, number> {
  const path = join(ROOT, 'scripts/test-durations.txt');
  const durations = new Map<string, number>();
  if (!existsSync(path)) return durations;
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const match = /^\s*([\d.]+) s\s.*\s(\S+\.test\.ts)$/.exec(line);
    if (match) durations.set(match[2]!, Number(match[1]));
  }
  return durations;
}

/** Longest first; a file not timed yet (new) counts as a middling one. */
function longestFirst(files: string[], durations: Map<string, number>): string[] {
  const known = [...durations.values()].sort((a, b) => a - b);
  const middling = known[Math.floor(known.length / 2)] ?? 0;
  const expected = (file: string) => durations.get(file) ?? middling;
  return [...files].sort((a, b) => expected(b) - expected(a) || a.localeCompare(b));
}

/** With node --test options: the files through `node --test`, as they were before the lanes. */
function runNodeTest(files: string[], concurrency: number, nodeOptions: string[]): Promise<boolean> {
  if (files.length === 0) return Promise.resolve(true);
  const args = ['--test', `--test-concurrency=${concurrency}`, ...nodeOptions, ...files];
  return new Promise((done) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
    child.on('exit', (code, signal) => done(code === 0 && !signal));
  });
}

// Every test file (and every service or CLI process it starts) loads much of the same code: V8's
// compile cache, shared on disk, spares each process compiling it again (about half of the CPU
// a process spends loading the service).
process.env.NODE_COMPILE_CACHE ??= join(ROOT, 'node_modules/.cache/node-compile-cache');

const { patterns, nodeOptions } = parseArguments(process.argv.slice(2));
let files = filesOf(patterns);
let concurrency = Number(process.env.TEST_CONCURRENCY) || availableParallelism();

// The store's modules are loaded only when a file needs the store (not for the unit tests).
let teardown = async () => {};
const needsStore = files.some((file) => !file.startsWith('test/unit/'));
if (needsStore) {
  const { databaseSkipReason } = await import('../test/helpers/database.ts');
  const skip = await databaseSkipReason();
  if (skip) {
    const notRun = files.filter((file) => !file.startsWith('test/unit/'));
    console.error(`\n== ${notRun.length} store test file(s) not run: ${skip} ==\n`);
    if (process.env.CI) process.exit(1);
    files = files.filter((file) => file.startsWith('test/unit/'));
  } else {
    const { globalSetup, globalTeardown } = await import('../test/global-setup.ts');
    await globalSetup();
    teardown = globalTeardown;
    concurrency = await concurrencyTheServerAllows(files, concurrency);
  }
}

/**
 * Fewer files at once when the PostgreSQL has too few connections to spare for them
 * (test/helpers/connection-budget.ts), said in one line; unchanged when it cannot tell.
 */
async function concurrencyTheServerAllows(files: string[], requested: number): Promise<number> {
  const parallelFiles = files.filter((file) => !(file in SERIAL) && !file.startsWith('test/unit/')).length;
  if (parallelFiles <= 1 && !files.some((file) => file in SERIAL)) return requested;
  const { testDatabaseUrl } = await import('../test/helpers/database.ts');
  const { fitConcurrency, readServerConnections } = await import('../test/helpers/connection-budget.ts');
  const server = await readServerConnections(await testDatabaseUrl());
  if ('unknown' in server) {
    console.log(
      `== could not read PostgreSQL's max_connections (${server.unknown}); ${requested} file(s) at once ==`,
    );
    return requested;
  }
  const serialLane = files.some((file) => file in SERIAL);
  const fit = fitConcurrency(server, Math.min(requested, Math.max(1, parallelFiles)), serialLane);
  if (fit.note) console.log(`\n${fit.note}\n`);
  return fit.note ? fit.concurrency : requested;
}

let passed = false;
try {
  const parallel = files.filter((file) => !(file in SERIAL));
  const serial = files.filter((file) => file in SERIAL);
  if (nodeOptions.length > 0) {
    const parallelPassed = await runNodeTest(parallel, concurrency, nodeOptions);
    passed = (await runNodeTest(serial, 1, nodeOptions)) && parallelPassed;
  } else {
    const durations = knownDurations();
    const serialOrder = longestFirst(serial, durations);
    if (serial.length)
      console.log(`\n== beside the parallel files, one at a time: ${serialOrder.join(' ')} ==\n`);
    passed = await runQueue({
      root: ROOT,
      parallel: longestFirst(parallel, durations),
      serial: serialOrder,
      concurrency,
      timesFile: process.env.TEST_FILE_TIMES,
    });
  }
} finally {
  await teardown();
}
process.exit(passed ? 0 : 1);
