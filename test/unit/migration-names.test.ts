// A later start decides from the migration files' names alone whether the migrator must run
// (store/migration-names.ts), without loading the migrations' code: the names must be the index's.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { knownMigrationNames } from '../../src/store/migration-names.ts';
import { migrations } from '../../src/store/migrations/index.ts';

test('the migration files are exactly the migrations the index lists, in its order', () => {
  assert.deepEqual(knownMigrationNames(), Object.keys(migrations));
});
