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
import { collectBeforeServing } from '../../src/runtime/start-up-heap.ts';

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
  // ~5 MB when the launcher collects (runtime/start-up-heap.ts): 9.6x; ~13 MB where serve did.
  assert.equal(startUpGrowingPercent(5 * MB), 860);
  assert.equal(startUpGrowingPercent(13 * MB), 269);
  assert.equal(startUpGrowingPercent(START_UP_HEAP_BUDGET_BYTES / 2), 100);
  // A heap of 36 MB (the runtime loaded from the sources) would gain 33 %: less than V8's own.
  assert.equal(startUpGrowingPercent(36 * MB), undefined);
  const asked: unknown[] = [];
  collectStartUpHeap((options) => asked.push(options), createHeapGrowth(undefined, []), 36 * MB);
  assert.deepEqual(asked, []);
});

test('the launcher collects for serve where serve sizes its memory, and not otherwise', () => {
  const tag = cachedDataVersionTag();
  // This process's heap is well under the budget, as the serving image's is before its bundle.
  assert.equal(collectBeforeServing(['serve'], undefined), true);
  assert.equal(collectBeforeServing(['serve', '--role', 'api'], undefined), true);
  assert.equal(cachedDataVersionTag(), tag);
  // A worker keeps Node's own ceiling; the tuning off, nothing is sized; other commands never.
  assert.equal(collectBeforeServing(['serve', '--role', 'worker'], undefined), false);
  assert.equal(collectBeforeServing(['serve'], 'off'), false);
  assert.equal(collectBeforeServing(['import', 'export.zip'], undefined), false);
});
