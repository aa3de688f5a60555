// The queue's own wake-ups for jobs no NOTIFY announces (src/jobs/due-wakes.ts): a job deferred
// in this process wakes its queue's workers once it comes due, and a failure wakes its queue (and
// its dead letter) every tick for a while, so idle queues can poll rarely. Driven by a clock of
// the test's own: `tick(at)` stands for the ticker.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AFTER_FAILURE_MS, createDueWakes } from '../../src/jobs/due-wakes.ts';

function harness(start = 1_000_000_000_000) {
  let clock = start;
  const woken: string[] = [];
  const wakes = createDueWakes(
    (queue) => woken.push(queue),
    () => clock,
  );
  return {
    wakes,
    woken,
    at: (ms: number) => {
      clock = start + ms;
      wakes.tick(clock);
    },
  };
}

describe('due wakes', () => {
  test('a deferred job wakes its queue once it is due, not before, and once', () => {
    const { wakes, woken, at } = harness();
    wakes.deferred('q.later', new Date(1_000_000_000_000 + 2_500));
    at(1_000);
    at(2_000);
    assert.deepEqual(woken, []);
    at(3_000);
    assert.deepEqual(woken, ['q.later']);
    at(4_000);
    assert.deepEqual(woken, ['q.later']);
  });

  test('a delay in seconds counts from now, as pg-boss reads a number', () => {
    const { wakes, woken, at } = harness();
    wakes.deferred('q.seconds', 3);
    at(2_000);
    assert.deepEqual(woken, []);
    at(3_000);
    assert.deepEqual(woken, ['q.seconds']);
  });

  test('many jobs due in the same second wake the queue once', () => {
    const { wakes, woken, at } = harness();
    for (let i = 0; i < 100; i++) wakes.deferred('q.many', new Date(1_000_000_000_000 + 1_000 + i));
    at(2_000);
    assert.deepEqual(woken, ['q.many']);
  });

  test('a delay of 0 seconds is left to its NOTIFY (pg-boss counts it from the transaction start, as it does the NOTIFY)', () => {
    const { wakes, woken, at } = harness();
    wakes.deferred('q.zero', 0);
    at(1_000);
    assert.deepEqual(woken, []);
  });

  test('a date reached by the time the job is sent wakes its queue at the next tick (no NOTIFY announces it)', () => {
    // Sent in a transaction that began before the date was computed: pg-boss's NOTIFY compares the
    // date with the transaction's start and stays silent.
    const { wakes, woken, at } = harness();
    wakes.deferred('q.reached', new Date(1_000_000_000_000 - 5));
    assert.deepEqual(woken, []);
    at(1_000);
    assert.deepEqual(woken, ['q.reached']);
    at(2_000);
    assert.deepEqual(woken, ['q.reached']);
  });

  test('after a failure the queue and its dead letter are woken every tick until the window ends', () => {
    const { wakes, woken, at } = harness();
    wakes.failed('q.flaky', 'q.flaky.given-up');
    at(1_000);
    at(2_000);
    assert.deepEqual(woken, ['q.flaky', 'q.flaky.given-up', 'q.flaky', 'q.flaky.given-up']);
    woken.length = 0;
    at(AFTER_FAILURE_MS + 1);
    at(AFTER_FAILURE_MS + 1_001);
    assert.deepEqual(woken, []);
  });

  test('stop forgets what was due', () => {
    const { wakes, woken, at } = harness();
    wakes.deferred('q.stopped', 1);
    wakes.failed('q.stopped');
    wakes.stop();
    at(5_000);
    assert.deepEqual(woken, []);
  });
});
