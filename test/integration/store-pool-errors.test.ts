// The store's own pool marks the errors that leave it as the database's (core/errors.ts tells a
// database's socket error from any other service's by that mark). An integration test: it opens a
// real pool, which test/unit may not (unit-tests-stay-pure.test.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { databaseFault } from '../../src/core/errors.ts';
import { openStore } from '../../src/store/db.ts';

test("the store's pool marks its refused connections as the database's", async () => {
  // Nothing listens on port 1: the pool's connection is refused at once.
  const store = await openStore({
    databaseUrl: 'postgres://postgres@127.0.0.1:1/none',
    dataDir: undefined,
    schema: 'public',
    connectLater: true,
  });
  try {
    const error = await sql`select 1`.execute(store.db).then(
      () => assert.fail('connected to port 1'),
      (caught: unknown) => caught,
    );
    assert.equal((error as { code?: unknown }).code, 'ECONNREFUSED');
    assert.match(databaseFault(error)!.message, /the database is unreachable/);
  } finally {
    await store.close();
  }
});
