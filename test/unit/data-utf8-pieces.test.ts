import assert from 'node:assert/strict';
import { test } from 'node:test';
import { utf8Of } from '../../src/features/data/stream.ts';

test('utf8Of writes the pieces one after the other, as their joined text would encode', () => {
  const pieces = ['{"a":"', 'é', '😀', '', 'plain', '"}', 'ü'.repeat(70_000)];
  assert.deepEqual(utf8Of(pieces), Buffer.from(pieces.join(''), 'utf8'));
  assert.equal(utf8Of([]).length, 0);
});
