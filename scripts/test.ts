// The test runner behind `npm test`, `npm run test:unit` and `npm run test:integration`:
//
//   node scripts/test.ts [unit | integration | all] [file or glob …] [-- node --test options …]
//
// 1. Store tests: once per run, test/global-setup.ts finds the PostgreSQL (test/helpers/database.ts
//    `testDatabaseUrl()`) and makes the migrated template every test service copies; dropped at
//    the end (and what killed runs left, at the start).
// 2. The files run in parallel, as many at once as the machine has cores (TEST_CONCURRENCY to
//    override), each in a process of its own;
// 3. then the SERIAL files below, one at a time: they start browsers, crash or kill processes on
//    purpose, run several services or a memory-limited child, or build images, and would slow or
//    starve the others (and be starved) in the parallel group.
// With TEST_FILE_TIMES=<path>, each file's duration and outcome is also written there
// (scripts/test-file-times.ts), slowest first.
import { spawn } from 'node:child_process';
import { globSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

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

/** Files run one at a time after the parallel group, and why. */
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
  'test/integration/new-provider.test.ts': 'type-checks the whole project',
  'test/integration/hostile-files-import.test.ts': 'memory-limited children',
  'test/integration/hostile-files-lab.test.ts': 'memory-limited children',
  'packages/client/test/packed.test.ts': 'packs and installs the package',
  'packages/sdk-client/test/packed.test.ts': 'packs and installs the package',
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

function runNodeTest(files: string[], concurrency: number, nodeOptions: string[]): Promise<number> {
  if (files.length === 0) return Promise.resolve(0);
  const timesFile = process.env.TEST_FILE_TIMES;
  const reporters = timesFile
    ? [
        '--test-reporter=spec',
        '--test-reporter-destination=stdout',
        `--test-reporter=${ROOT}scripts/test-file-times.ts`,
        `--test-reporter-destination=${timesFile}.${concurrency === 1 ? 'serial' : 'parallel'}`,
      ]
    : [];
  const args = ['--test', `--test-concurrency=${concurrency}`, ...reporters, ...nodeOptions, ...files];
  return new Promise((done) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
    child.on('exit', (code, signal) => done(code ?? (signal ? 1 : 0)));
  });
}

// Every test file (and every service or CLI process it starts) loads much of the same code: V8's
// compile cache, shared on disk, spares each process compiling it again (about half of the CPU
// a process spends loading the service).
process.env.NODE_COMPILE_CACHE ??= join(ROOT, 'node_modules/.cache/node-compile-cache');

const { patterns, nodeOptions } = parseArguments(process.argv.slice(2));
let files = filesOf(patterns);
const concurrency = Number(process.env.TEST_CONCURRENCY) || availableParallelism();

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
  }
}

let code = 1;
try {
  const serial = files.filter((file) => file in SERIAL);
  const parallel = files.filter((file) => !(file in SERIAL));
  const parallelCode = await runNodeTest(parallel, concurrency, nodeOptions);
  if (serial.length) console.log(`\n== ${serial.length} file(s) one at a time: ${serial.join(' ')} ==\n`);
  const serialCode = await runNodeTest(serial, 1, nodeOptions);
  code = parallelCode || serialCode;
} finally {
  await teardown();
}
process.exit(code);
