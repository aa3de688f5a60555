// Isolated tasks (src/core/isolation.ts): a task in a child process ends with its result, or with a typed
// reason when it breaks a limit — heap, resident memory outside the heap, CPU, wall clock, no
// progress — crashes, throws, or is cancelled; the test process (the parent) carries on each time.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  prepareIsolated,
  runIsolated,
  IsolationError,
  IsolatedTaskError,
  type IsolationLimits,
} from '../../src/core/isolation.ts';
import type { TaskInput } from '../helpers/isolation-tasks.ts';

const readProcess = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
};

const TASK = new URL('../helpers/isolation-tasks.ts', import.meta.url);
const LIMITS: IsolationLimits = { heapMb: 64, rssMb: 256, wallMs: 120_000 };

const run = (input: TaskInput, limits: Partial<IsolationLimits> = {}, signal?: AbortSignal) =>
  runIsolated<unknown, TaskInput, number, number>({
    task: TASK,
    input,
    limits: { ...LIMITS, ...limits },
    ...(signal ? { signal } : {}),
    onMessage: (value) => value * 10,
  });

async function failure(promise: Promise<unknown>): Promise<IsolationError> {
  const error = await promise.then(
    () => assert.fail('expected the isolated task to fail'),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof IsolationError, `expected a IsolationError, got ${String(error)}`);
  return error;
}

describe('sandbox', () => {
  test('a task returns its result (structured clone: dates and maps survive)', async () => {
    const value = { at: new Date(0), map: new Map([['a', 1]]), list: [1, 2, 3] };
    const { result, usage } = await run({ kind: 'echo', value });
    assert.deepEqual(result, value);
    assert.ok(usage.wallMs >= 0);
  });

  test('messages reach the parent and its answers come back, in order', async () => {
    const { result } = await run({ kind: 'chat', count: 20 });
    assert.equal(result, 10 * ((20 * 21) / 2));
  });

  test('waiting on a slow parent is not idling: the idle limit counts only while the task works', async () => {
    const { result } = await runIsolated<unknown, TaskInput, number, number>({
      task: TASK,
      input: { kind: 'chat', count: 2 },
      // Each answer takes longer than the idle limit; the limit itself leaves the child's own
      // start (a Node boot) seconds of room on a loaded machine (0.5 s did not: a failure at
      // load 25 said 'made no progress for 0.5 s' after 50 ms of CPU).
      limits: { ...LIMITS, idleMs: 2500 },
      onMessage: async (value) => {
        await new Promise((resolve) => setTimeout(resolve, 3000));
        return value;
      },
    });
    assert.equal(result, 3);
  });

  test('a heap that outgrows --max-old-space-size: out_of_memory', async () => {
    const error = await failure(run({ kind: 'heap' }, { heapMb: 48, rssMb: 4096 }));
    assert.equal(error.reason, 'out_of_memory', error.message);
  });

  test('memory outside the heap (buffers) over the resident cap: out_of_memory, by the watchdog', async () => {
    const error = await failure(run({ kind: 'buffers' }, { heapMb: 4096, rssMb: 200 }));
    assert.equal(error.reason, 'out_of_memory', error.message);
    assert.match(error.message, /more than 200 MB/);
    assert.ok(error.usage.peakRssBytes > 200 * 1024 * 1024);
  });

  test('a CPU loop: time_limit by CPU time', async () => {
    const error = await failure(run({ kind: 'spin' }, { cpuMs: 1000 }));
    assert.equal(error.reason, 'time_limit');
    assert.match(error.message, /CPU time/);
  });

  test('a task that stops sending: time_limit by the idle limit', async () => {
    const error = await failure(run({ kind: 'sleep' }, { idleMs: 1000 }));
    assert.equal(error.reason, 'time_limit');
    assert.match(error.message, /no progress/);
  });

  test('a task past its wall-clock limit: time_limit', async () => {
    const error = await failure(run({ kind: 'sleep' }, { wallMs: 1000 }));
    assert.equal(error.reason, 'time_limit');
  });

  test('a child that exits on its own: crashed, with its exit code', async () => {
    const error = await failure(run({ kind: 'exit', code: 3 }));
    assert.equal(error.reason, 'crashed');
    assert.match(error.message, /exit code 3/);
  });

  test('cancellation kills the child: cancelled', async () => {
    const controller = new AbortController();
    const running = run({ kind: 'sleep' }, {}, controller.signal);
    setTimeout(() => controller.abort(), 200);
    assert.equal((await failure(running)).reason, 'cancelled');
  });

  test('a child forked ahead runs the task it was prepared for; under other limits it is killed and another runs', async () => {
    const prepared = prepareIsolated(TASK, LIMITS, 'hint');
    const ahead = prepared.pid;
    assert.ok(ahead);
    const { result } = await runIsolated<unknown, TaskInput>({
      task: TASK,
      input: { kind: 'pid' },
      limits: LIMITS,
      prepared,
    });
    assert.deepEqual(result, { pid: ahead, preparedWith: 'hint' });

    const other = prepareIsolated(TASK, LIMITS, 'hint');
    const otherPid = other.pid!;
    const { result: fresh } = await runIsolated<{ pid: number; preparedWith?: unknown }, TaskInput>({
      task: TASK,
      input: { kind: 'pid' },
      limits: { ...LIMITS, heapMb: 48 },
      prepared: other,
    });
    assert.notEqual(fresh.pid, otherPid);
    assert.equal(fresh.preparedWith, undefined);
    // The one not taken was killed (a zombie until reaped, then gone).
    while (readProcess(otherPid).includes('isolation-host')) await sleep(5);
  });

  test("a task's own error comes back by name and message", async () => {
    const error = await run({ kind: 'throw', message: 'not a PDF' }).then(
      () => assert.fail('expected an error'),
      (caught: unknown) => caught,
    );
    assert.ok(error instanceof IsolatedTaskError);
    assert.equal(error.errorName, 'PlantedError');
    assert.equal(error.message, 'not a PDF');
  });
});
