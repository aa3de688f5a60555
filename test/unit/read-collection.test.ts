import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  COLLECT_EVERY_BYTES,
  collectAsReadsStream,
  createReadCollection,
  streamedBytes,
} from '../../src/features/data/read-collection.ts';

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

test('the process’s reads ask for collections only once the process turns them on', () => {
  const asked: unknown[] = [];
  // Off unless the process started with its own gc (an operator's --expose-gc).
  const operatorsGc = typeof (globalThis as { gc?: unknown }).gc === 'function';
  streamedBytes(COLLECT_EVERY_BYTES);
  collectAsReadsStream((options) => asked.push(options));
  streamedBytes(COLLECT_EVERY_BYTES - 1);
  assert.equal(asked.length, 0);
  streamedBytes(1);
  assert.deepEqual(asked, [{ type: 'major', execution: 'async' }]);
  collectAsReadsStream(undefined);
  streamedBytes(10 * COLLECT_EVERY_BYTES);
  assert.equal(asked.length, 1, operatorsGc ? 'with the operator’s gc' : 'without');
});
