import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cachedDataVersionTag } from 'node:v8';
import { gcNow } from '../../src/core/gc-handle.ts';
import { createHeapGrowth } from '../../src/core/heap-growth.ts';
import {
  collectStartUpHeap,
  START_UP_HEAP_BUDGET_BYTES,
  startUpGrowingPercent,
} from '../../src/core/start-up-collection.ts';

const MB = 1_048_576;

test('the start-up collection collects at once and leaves the code-cache hash as it was', () => {
  const tag = cachedDataVersionTag();
  const asked: unknown[] = [];
  const collect = gcNow([])!;
  collectStartUpHeap(
    (options) => {
      // While it runs V8's growing flag is set: the hash is another one.
      asked.push({ ...options, hashChanged: cachedDataVersionTag() !== tag });
      collect(options);
    },
    createHeapGrowth(undefined, []),
    12 * MB,
  );
  assert.deepEqual(asked, [{ type: 'major', execution: 'sync', hashChanged: true }]);
  // Built-in modules and the compile cache are checked against this hash: theirs again.
  assert.equal(cachedDataVersionTag(), tag);
});

test('an operator’s own --heap-growing-percent is left alone: no start-up collection', () => {
  const asked: unknown[] = [];
  collectStartUpHeap(
    (options) => asked.push(options),
    createHeapGrowth(undefined, ['--heap_growing_percent=50']),
    12 * MB,
  );
  collectStartUpHeap(
    (options) => asked.push(options),
    createHeapGrowth(undefined, ['--heap-growing-percent=50']),
    12 * MB,
  );
  assert.deepEqual(asked, []);
});

test('the growth sets the next trigger at the budget, and a heap already near it is not collected', () => {
  // ~13 MB when serve collects (its bundle loaded, not yet the runtime): 3.7x.
  assert.equal(startUpGrowingPercent(13 * MB), 269);
  assert.equal(startUpGrowingPercent(START_UP_HEAP_BUDGET_BYTES / 2), 100);
  // A heap of 36 MB (the runtime loaded from the sources) would gain 33 %: less than V8's own.
  assert.equal(startUpGrowingPercent(36 * MB), undefined);
  const asked: unknown[] = [];
  collectStartUpHeap((options) => asked.push(options), createHeapGrowth(undefined, []), 36 * MB);
  assert.deepEqual(asked, []);
});
