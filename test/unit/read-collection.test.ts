import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createReadCollection } from '../../src/features/data/read-collection.ts';

test('a full collection is asked for, asynchronously, once per step streamed by all reads together', () => {
  const asked: unknown[] = [];
  const streamed = createReadCollection((options) => asked.push(options), 1000);
  streamed(400);
  streamed(500);
  assert.equal(asked.length, 0);
  streamed(100);
  assert.deepEqual(asked, [{ type: 'major', execution: 'async' }]);
  for (let index = 0; index < 25; index++) streamed(100);
  assert.equal(asked.length, 3);
});

test('without a collector (gc not exposed) streaming asks nothing', () => {
  const streamed = createReadCollection(undefined, 1);
  assert.doesNotThrow(() => streamed(10_000_000));
});
