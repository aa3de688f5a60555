// `npm run test:mutation [module …] [--force]`: StrykerJS over the critical modules, one module at
// a time, each mutant judged by that module's own test files only (scripts/mutation/modules.ts).
//
// Incremental: each module keeps Stryker's incremental file in reports/mutation/<module>/, so a
// rerun tests only mutants in changed code. Stryker's command runner cannot see which tests ran,
// so it would reuse a "survived" verdict even after a new test was written; this script therefore
// fingerprints the module's test files (and the shared test helpers and fakes) and drops the
// incremental file when they changed. Those files stay out of git: they are a local cache of one
// machine's last run, rewritten by every run, and a stale committed copy would only mislead.
//
// Ends with a table of scores per module and exits non-zero when any module is under 80%.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { MUTATION_MODULES, type MutationModule } from './modules.ts';

const THRESHOLD = 80;
const REPORTS = 'reports/mutation';
const TEMP_DIR = '.stryker-tmp';
const SHARED_TEST_DIRS = ['test/helpers', 'test/fakes'];

const args = process.argv.slice(2);
const force = args.includes('--force');
const wanted = args.filter((arg) => !arg.startsWith('--'));
const unknown = wanted.filter((name) => !MUTATION_MODULES.some((module) => module.name === name));
if (unknown.length > 0) {
  console.error(
    `unknown module(s): ${unknown.join(', ')}; known: ${MUTATION_MODULES.map((m) => m.name).join(', ')}`,
  );
  process.exit(2);
}
const modules = MUTATION_MODULES.filter((module) => wanted.length === 0 || wanted.includes(module.name));

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/** Changes when anything that decides a verdict without being mutated changes. */
function testFingerprint(module: MutationModule): string {
  const hash = createHash('sha256').update(JSON.stringify(module));
  for (const file of [...module.tests, ...SHARED_TEST_DIRS.flatMap(filesUnder)]) {
    hash.update(file).update(readFileSync(file));
  }
  return hash.digest('hex');
}

function strykerConfig(module: MutationModule, dir: string) {
  const tests = module.tests.join(' ');
  return {
    $schema: '../../../node_modules/@stryker-mutator/core/schema/stryker-schema.json',
    testRunner: 'command',
    // PGlite, always: the mutation run must not depend on (or write to) a PostgreSQL server.
    commandRunner: {
      command: `env -u DATABASE_URL ${process.execPath} --test --test-concurrency=1 --test-reporter=dot ${tests}`,
    },
    coverageAnalysis: 'off',
    mutate: module.mutate,
    reporters: ['clear-text', 'json', 'html'],
    clearTextReporter: { allowColor: false, reportMutants: true, reportScoreTable: true, logTests: false },
    jsonReporter: { fileName: join(dir, 'mutation.json') },
    htmlReporter: { fileName: join(dir, 'index.html') },
    incremental: true,
    incrementalFile: join(dir, 'stryker-incremental.json'),
    force,
    concurrency: Number(process.env.MUTATION_CONCURRENCY ?? 2),
    timeoutMS: 20_000,
    thresholds: { high: 90, low: THRESHOLD, break: null },
    tempDirName: TEMP_DIR,
    ignorePatterns: ['/data', '/test-results', '/bench', '/docs', '/reports', '/.stryker-tmp'],
    logLevel: 'info',
    fileLogLevel: 'off',
  };
}

type Tally = { killed: number; timeout: number; survived: number; noCoverage: number; other: number };

function tallyOf(reportPath: string): Tally {
  const report = JSON.parse(readFileSync(reportPath, 'utf8')) as {
    files: Record<string, { mutants: { status: string }[] }>;
  };
  const tally: Tally = { killed: 0, timeout: 0, survived: 0, noCoverage: 0, other: 0 };
  for (const file of Object.values(report.files)) {
    for (const { status } of file.mutants) {
      if (status === 'Killed') tally.killed++;
      else if (status === 'Timeout') tally.timeout++;
      else if (status === 'Survived') tally.survived++;
      else if (status === 'NoCoverage') tally.noCoverage++;
      else tally.other++; // Ignored, CompileError, RuntimeError: not part of the score
    }
  }
  return tally;
}

const scoreOf = (t: Tally) => {
  const valid = t.killed + t.timeout + t.survived + t.noCoverage;
  return valid === 0 ? 100 : (100 * (t.killed + t.timeout)) / valid;
};

// Tests read the shared reference beside the repository (../shared, see test/helpers/provider-samples.ts).
// Stryker's sandboxes sit one level down, in .stryker-tmp/sandbox-*, so the reference is linked
// beside them too.
const sharedReference = resolve('..', 'shared');
if (existsSync(sharedReference) && !existsSync(join(TEMP_DIR, 'shared'))) {
  mkdirSync(TEMP_DIR, { recursive: true });
  symlinkSync(sharedReference, join(TEMP_DIR, 'shared'));
}

const results: { module: string; tally: Tally | null; seconds: number }[] = [];
for (const module of modules) {
  const dir = join(REPORTS, module.name);
  mkdirSync(dir, { recursive: true });
  const fingerprintFile = join(dir, 'tests.sha256');
  const fingerprint = testFingerprint(module);
  const incrementalFile = join(dir, 'stryker-incremental.json');
  if (existsSync(fingerprintFile) && readFileSync(fingerprintFile, 'utf8') !== fingerprint) {
    console.log(`== ${module.name}: its tests changed since the last run; every mutant is tested again`);
    rmSync(incrementalFile, { force: true });
  }
  const configFile = join(dir, 'stryker.config.json');
  writeFileSync(configFile, JSON.stringify(strykerConfig(module, dir), null, 2));
  console.log(`== ${module.name}: mutating ${module.mutate.join(', ')}; tests: ${module.tests.join(', ')}`);
  const started = Date.now();
  const run = spawnSync(
    process.execPath,
    ['node_modules/@stryker-mutator/core/bin/stryker.js', 'run', configFile],
    { stdio: 'inherit' },
  );
  const seconds = Math.round((Date.now() - started) / 1000);
  const report = join(dir, 'mutation.json');
  if (run.status === 0 && existsSync(report)) {
    writeFileSync(fingerprintFile, fingerprint);
    results.push({ module: module.name, tally: tallyOf(report), seconds });
  } else {
    results.push({ module: module.name, tally: null, seconds });
  }
}

console.log('\n== mutation score per module (killed + timed out) / (all but ignored)');
console.log('module                   score  killed timeout survived no-cov  time');
let failed = false;
for (const { module, tally, seconds } of results) {
  if (!tally) {
    failed = true;
    console.log(`${module.padEnd(24)} stryker failed                               ${seconds} s`);
    continue;
  }
  const score = scoreOf(tally);
  if (score < THRESHOLD) failed = true;
  console.log(
    `${module.padEnd(24)} ${score.toFixed(1).padStart(5)}% ${String(tally.killed).padStart(6)} ` +
      `${String(tally.timeout).padStart(7)} ${String(tally.survived).padStart(8)} ` +
      `${String(tally.noCoverage).padStart(6)}  ${seconds} s`,
  );
}
const total = results.reduce((sum, result) => sum + result.seconds, 0);
console.log(`total ${total} s; reports in ${REPORTS}/<module>/index.html`);
if (failed) {
  console.log(`at least one module is under ${THRESHOLD}% or did not run`);
  process.exit(1);
}
