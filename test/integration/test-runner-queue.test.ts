// The test runner's queue (scripts/test-queue.ts) on small files of its own, in a scratch folder:
// the serial lane's slot takes parallel files once its own are done, each file's report and
// time are kept, and a failure fails the run. No store: these files only wait on each other.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { after, before, test } from 'node:test';
import type { QueueOptions } from '../../scripts/test-queue.ts';

const QUEUE = new URL('../../scripts/test-queue.ts', import.meta.url).pathname;

let root: string;
before(() => {
  root = mkdtempSync(join(tmpdir(), 'tributary-test-queue-'));
});
after(() => rmSync(root, { recursive: true, force: true }));

/** A test file that waits for `awaits` (a file in root, 30 s at most) to exist, then writes `writes`. */
function fixture(name: string, body: { awaits?: string; writes?: string; fails?: boolean }) {
  const path = join(root, name);
  writeFileSync(
    path,
    `import { existsSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
// Bounded, so that a queue that never starts the other file fails this one instead of hanging.
async function waitFor(path) {
  for (let tries = 0; tries < 1500 && !existsSync(path); tries++) await new Promise((r) => setTimeout(r, 20));
  if (!existsSync(path)) throw new Error('the file it waits for was never written: ' + path);
}
test(${JSON.stringify(name)}, async () => {
  ${body.awaits ? `await waitFor(${JSON.stringify(join(root, body.awaits))});` : ''}
  ${body.writes ? `writeFileSync(${JSON.stringify(join(root, body.writes))}, '');` : ''}
  ${body.fails ? "throw new Error('planted failure');" : ''}
});
`,
  );
  return name;
}

/**
 * runQueue in a process of its own, as scripts/test.ts runs it (node:test's run() runs nothing
 * inside a test file's process): whether the run passed, and its report.
 */
function runQueue(options: Omit<QueueOptions, 'root'>): Promise<{ passed: boolean; report: string }> {
  const driver = join(root, 'driver.ts');
  writeFileSync(
    driver,
    `import { runQueue } from ${JSON.stringify(QUEUE)};
const passed = await runQueue({ root: ${JSON.stringify(root)}, ...${JSON.stringify(options)} });
process.exitCode = passed ? 0 : 1;
`,
  );
  const env = { ...process.env };
  // Nor the outer run's file times: this run's go where `options` says.
  for (const name of ['NODE_TEST_CONTEXT', 'TEST_FILE_TIMES', 'TEST_FILE_CPU']) delete env[name];
  return new Promise((resolve) => {
    execFile(process.execPath, [driver], { env, cwd: root }, (error, stdout, stderr) =>
      resolve({ passed: !error, report: `${stdout}${stderr}` }),
    );
  });
}

test(
  "once its own files are done, the serial lane's slot takes parallel files",
  { timeout: 120_000 },
  async () => {
    // One parallel slot: `first` holds it until `second` has run, which only the serial slot can
    // start (a queue whose lanes keep to their own files waits here for ever).
    const first = fixture('first.test.ts', { awaits: 'second-ran' });
    const second = fixture('second.test.ts', { writes: 'second-ran' });
    const own = fixture('own.test.ts', {});
    const { passed, report } = await runQueue({
      parallel: [first, second],
      serial: [own],
      concurrency: 1,
      timesFile: join(root, 'times'),
    });
    assert.equal(passed, true, report);
    assert.match(report, /ℹ tests 3\n/);
    assert.match(report, /ℹ pass 3\n/);
    const parallelTimes = readFileSync(join(root, 'times.parallel'), 'utf8');
    assert.match(parallelTimes, /^\s*[\d.]+ s {2}ok 1 {2}first\.test\.ts$/m);
    assert.match(parallelTimes, /^\s*[\d.]+ s {2}ok 1 {2}second\.test\.ts$/m);
    assert.match(readFileSync(join(root, 'times.serial'), 'utf8'), /^\s*[\d.]+ s {2}ok 1 {2}own\.test\.ts$/m);
    // Each file's CPU and process wall, from the file's own process.
    const cpu = readFileSync(join(root, 'times.cpu'), 'utf8');
    for (const name of [first, second, own])
      assert.match(cpu, new RegExp(`s cpu +[\\d.]+ s wall  ${name}$`, 'm'));
  },
);

test('a failing file fails the run, and its failure is reported', { timeout: 120_000 }, async () => {
  const broken = fixture('broken.test.ts', { fails: true });
  const fine = fixture('fine.test.ts', {});
  const { passed, report } = await runQueue({ parallel: [fine, broken], serial: [], concurrency: 2 });
  assert.equal(passed, false, report);
  assert.match(report, /ℹ fail 1\n/);
  assert.match(report, /planted failure/);
});

test('every test of a file is reported and counted, up to its last', { timeout: 120_000 }, async () => {
  // forceExit ends a file's process as soon as its tests are done: results still queued in the
  // pipe to the runner were lost (nodejs/node#64833), so a file's last tests went uncounted at
  // random. Many small tests in a few files give it plenty to lose.
  const tests = 400;
  const files = ['many-a', 'many-b', 'many-c'].map((name) => {
    writeFileSync(
      join(root, `${name}.test.ts`),
      `import { test } from 'node:test';\nfor (let index = 0; index < ${tests}; index++) test(\`${name} \${index}\`, () => {});\n`,
    );
    return `${name}.test.ts`;
  });
  const { passed, report } = await runQueue({ parallel: files, serial: [], concurrency: 2 });
  assert.equal(passed, true, report);
  assert.match(report, new RegExp(`ℹ tests ${tests * files.length}\n`));
  for (const name of ['many-a', 'many-b', 'many-c'])
    assert.match(report, new RegExp(`✔ ${name} ${tests - 1} `));
});
