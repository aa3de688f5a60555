// The queue behind scripts/test.ts: every test file is a node:test run() of its own, taken by
// the next free slot, so the runner (not node:test's fixed lists) decides what runs when:
//   - `concurrency` parallel slots take the parallel files, longest first;
//   - one serial slot takes the serial files, one at a time and longest first, beside them; once
//     those are done it takes parallel files too, so that it never idles while the parallel
//     files queue (with a fixed list per lane, a lane that finished early left its share of the
//     machine unused while the other ran on alone).
// Each file's report is held until the file ends and then shown whole, through one spec
// reporter, so that files running at once do not interleave their lines; the counts are summed
// into one summary at the end.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { finished } from 'node:stream/promises';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';
import { fileURLToPath } from 'node:url';

type Counts = Record<'tests' | 'suites' | 'passed' | 'failed' | 'cancelled' | 'skipped' | 'todo', number>;
type TestEvent = { type: string; data: { file?: string; todo?: unknown; counts?: Counts } };
const SHOWN_AS: [keyof Counts, string][] = [
  ['tests', 'tests'],
  ['suites', 'suites'],
  ['passed', 'pass'],
  ['failed', 'fail'],
  ['cancelled', 'cancelled'],
  ['skipped', 'skipped'],
  ['todo', 'todo'],
];

type Lane = 'parallel' | 'serial';

export type QueueOptions = {
  root: string;
  /** Parallel files, relative to root, in the order to start them (longest first). */
  parallel: string[];
  /** Serial files, in the order to start them. */
  serial: string[];
  /** Parallel slots. */
  concurrency: number;
  /**
   * TEST_FILE_TIMES: `<path>.parallel` and `<path>.serial` get one line per file, slowest first:
   * the seconds it held its slot (process start to end), its outcome, the file (the format
   * scripts/test-durations.txt keeps); `<path>.cpu` each file's CPU (scripts/test-file-cpu.ts).
   */
  timesFile?: string;
};

/** Runs every file; resolves to whether all passed (a failing todo test does not count). */
export async function runQueue(options: QueueOptions): Promise<boolean> {
  const { root, timesFile } = options;
  const queues: Record<Lane, string[]> = { parallel: [...options.parallel], serial: [...options.serial] };
  // Each file's process writes its results unbuffered, so that forceExit loses none of them
  // (scripts/test-file-stdout.ts); with TEST_FILE_TIMES it also notes its CPU time
  // (scripts/test-file-cpu.ts).
  const preload = (name: string) => ['--import', fileURLToPath(new URL(name, import.meta.url))];
  const execArgv = [...preload('./test-file-stdout.ts'), ...(timesFile ? preload('./test-file-cpu.ts') : [])];
  // The file the CPU lines go to, for the file processes only (a test that runs a queue of its
  // own gives it a timesFile of its own).
  const env = timesFile ? { ...process.env, TEST_FILE_CPU: `${timesFile}.cpu` } : undefined;

  // One spec reporter for the whole run (a stream of its own, piped: compose() on a plain
  // stream never ended here).
  const shown = new PassThrough({ objectMode: true });
  const report = shown.pipe(new spec());
  report.pipe(process.stdout, { end: false });

  let passed = true;
  const totals = Object.fromEntries(SHOWN_AS.map(([key]) => [key, 0])) as Counts;
  const times: Record<Lane, { seconds: number; line: string }[]> = { parallel: [], serial: [] };
  const started = performance.now();

  async function runFile(file: string, lane: Lane): Promise<void> {
    const held: TestEvent[] = [];
    let counts: Counts | undefined;
    const fileStarted = performance.now();
    const stream = run({
      files: [join(root, file)],
      concurrency: 1,
      // A file's process ends once its tests and hooks have, rather than when its event loop
      // empties: a handle a test leaves open (job-quarantine's never-settling handler kept its
      // process 215 s past its 38 s of tests) must not hold a slot. Shutdown itself is tested on
      // the service's own processes, which this does not touch.
      forceExit: true,
      cwd: root,
      execArgv,
      ...(env ? { env } : {}),
    });
    stream.on('data', (event: TestEvent) => {
      if (event.type === 'test:fail' && !event.data.todo) passed = false;
      // The run's own summary (no file): summed here and shown once at the end.
      if (event.data.file === undefined) {
        if (event.type === 'test:summary') counts = event.data.counts;
        if (['test:summary', 'test:diagnostic', 'test:plan'].includes(event.type)) return;
      }
      held.push(event);
    });
    await finished(stream);
    for (const event of held) shown.write(event);
    for (const [key] of SHOWN_AS) totals[key] += counts?.[key] ?? 0;
    const seconds = (performance.now() - fileStarted) / 1000;
    const outcome = counts?.failed ? `FAILED ${counts.failed}/${counts.tests}` : `ok ${counts?.tests ?? 0}`;
    times[lane].push({ seconds, line: `${seconds.toFixed(1).padStart(8)} s  ${outcome}  ${file}` });
  }

  async function slot(lanes: Lane[]): Promise<void> {
    for (;;) {
      const lane = lanes.find((name) => queues[name].length > 0);
      if (!lane) return;
      await runFile(queues[lane].shift()!, lane);
    }
  }
  await Promise.all([
    ...Array.from({ length: Math.max(1, options.concurrency) }, () => slot(['parallel'])),
    // Only beside serial files: without them (the unit tests) the parallel slots are the run's size.
    ...(queues.serial.length > 0 ? [slot(['serial', 'parallel'])] : []),
  ]);

  for (const [key, name] of SHOWN_AS)
    shown.write({ type: 'test:diagnostic', data: { nesting: 0, message: `${name} ${totals[key]}` } });
  const duration = (performance.now() - started).toFixed(0);
  shown.write({ type: 'test:diagnostic', data: { nesting: 0, message: `duration_ms ${duration}` } });
  shown.end();
  await finished(report);
  if (timesFile)
    for (const lane of ['parallel', 'serial'] as const) {
      const lines = times[lane].sort((a, b) => b.seconds - a.seconds).map(({ line }) => `${line}\n`);
      writeFileSync(`${timesFile}.${lane}`, lines.join(''));
    }
  return passed;
}
