import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { cachedDataVersionTag } from 'node:v8';
import { gcNow } from '../../src/core/gc-handle.ts';

test('V8’s gc, taken from a new context, collects and leaves the code-cache hash and the global as they were', async () => {
  const tag = cachedDataVersionTag();
  const globalGc = (globalThis as { gc?: unknown }).gc;
  const collect = gcNow([]);
  assert.ok(collect);
  const major = new Promise<void>((resolve) => {
    const observer = new PerformanceObserver((list) => {
      const kinds = list.getEntries().map((entry) => (entry as { detail?: { kind?: number } }).detail?.kind);
      if (kinds.includes(constants.NODE_PERFORMANCE_GC_MAJOR)) {
        observer.disconnect();
        resolve();
      }
    });
    observer.observe({ entryTypes: ['gc'] });
  });
  collect({ type: 'major', execution: 'async' });
  await major;
  // Built-in modules and the compile cache are checked against this hash: still theirs.
  assert.equal(cachedDataVersionTag(), tag);
  assert.equal((globalThis as { gc?: unknown }).gc, globalGc);
});

test('an operator’s --no-expose-gc on the command line means no collections, the last word winning', () => {
  assert.equal(gcNow(['--no-expose-gc']), undefined);
  assert.equal(gcNow(['--max-old-space-size=512', '--no_expose_gc']), undefined);
  assert.equal(gcNow(['--expose-gc', '--no-expose-gc']), undefined);
  assert.ok(gcNow(['--no-expose-gc', '--expose-gc']));
});
