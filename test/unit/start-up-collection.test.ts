import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cachedDataVersionTag } from 'node:v8';
import { gcNow } from '../../src/core/gc-handle.ts';
import { collectStartUpHeap } from '../../src/core/start-up-collection.ts';

test('the start-up collection collects at once and leaves the code-cache hash as it was', () => {
  const tag = cachedDataVersionTag();
  const asked: unknown[] = [];
  const collect = gcNow([])!;
  collectStartUpHeap((options) => {
    // While it runs V8's growing flag is set: the hash is another one.
    asked.push({ ...options, hashChanged: cachedDataVersionTag() !== tag });
    collect(options);
  }, []);
  assert.deepEqual(asked, [{ type: 'major', execution: 'sync', hashChanged: true }]);
  // Built-in modules and the compile cache are checked against this hash: theirs again.
  assert.equal(cachedDataVersionTag(), tag);
});

test('an operator’s own --heap-growing-percent is left alone: no start-up collection', () => {
  const asked: unknown[] = [];
  collectStartUpHeap((options) => asked.push(options), ['--heap_growing_percent=50']);
  collectStartUpHeap((options) => asked.push(options), ['--heap-growing-percent=50']);
  assert.deepEqual(asked, []);
});
