import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cachedDataVersionTag } from 'node:v8';
import { createHeapGrowth } from '../../src/core/heap-growth.ts';

test('heap growth: the first hold sets V8’s growing percent, the last release gives V8 its own factor back', () => {
  const set: string[] = [];
  const growth = createHeapGrowth((flags) => set.push(flags), []);
  assert.equal(growth.held(), false);
  const first = growth.hold();
  const second = growth.hold();
  assert.deepEqual(set, ['--heap-growing-percent=100']);
  assert.equal(growth.held(), true);
  first();
  first(); // a second call of one release does not count twice
  assert.deepEqual(set, ['--heap-growing-percent=100']);
  assert.equal(growth.held(), true);
  second();
  assert.deepEqual(set, ['--heap-growing-percent=100', '--heap-growing-percent=0']);
  assert.equal(growth.held(), false);
  growth.hold()();
  assert.equal(set.length, 4);
});

test('heap growth: an operator’s own --heap-growing-percent is left as it is', () => {
  const set: string[] = [];
  const growth = createHeapGrowth((flags) => set.push(flags), ['--heap_growing_percent=30']);
  const release = growth.hold();
  assert.equal(growth.held(), true);
  release();
  assert.deepEqual(set, []);
});

test('heap growth with V8’s own setter: released, the code-cache hash is the process’s again', () => {
  const tag = cachedDataVersionTag();
  const growth = createHeapGrowth(undefined, []);
  const release = growth.hold();
  release();
  assert.equal(cachedDataVersionTag(), tag);
});

test('heap growth during one run: set for it, then back to what holds it (held or V8’s own); an operator’s own is left alone', () => {
  const set: string[] = [];
  const growth = createHeapGrowth((flags) => set.push(flags), []);
  assert.equal(
    growth.during(250, () => set.push('run')),
    true,
  );
  const release = growth.hold();
  growth.during(250, () => set.push('run'));
  release();
  assert.deepEqual(set, [
    '--heap-growing-percent=250',
    'run',
    '--heap-growing-percent=0',
    '--heap-growing-percent=100',
    '--heap-growing-percent=250',
    'run',
    '--heap-growing-percent=100',
    '--heap-growing-percent=0',
  ]);
  const operators = createHeapGrowth((flags) => set.push(flags), ['--heap-growing-percent=30']);
  assert.equal(
    operators.during(250, () => set.push('run')),
    false,
  );
  assert.equal(set.length, 8);
});
