// The store's own pool marks the errors that leave it as the database's (core/errors.ts tells a
// database's socket error from any other service's by that mark). An integration test: it opens a
// real pool, which test/unit may not (unit-tests-stay-pure.test.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { databaseFault } from '../../src/core/errors.ts';
import { openStore } from '../../src/store/db.ts';
import { postgresSkipReason } from '../helpers/scratch-database.ts';

const skip = await postgresSkipReason();

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

test(
  'a connection whose backend was terminated mid-statement is not lent again: the next statement runs',
  { skip },
  async () => {
    // One connection, so a dead one taken back by the pool would be the next statement's.
    const store = await openStore({
      databaseUrl: process.env.DATABASE_URL!,
      dataDir: undefined,
      schema: 'public',
      connectLater: true,
      poolSize: 1,
    });
    const admin = await openStore({
      databaseUrl: process.env.DATABASE_URL!,
      dataDir: undefined,
      schema: 'public',
      connectLater: true,
    });
    try {
      for (let round = 0; round < 5; round++) {
        const pid = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(store.db)).rows[0]!
          .pid;
        // Its outcome is taken at once: it rejects while this test is busy terminating it.
        const waiting = sql`select pg_sleep(30)`.execute(store.db).then(
          () => assert.fail('the statement outlived its backend'),
          (caught: unknown) => caught,
        );
        // The statement is running once its backend says so; then the backend is terminated.
        for (;;) {
          const state = await sql<{ state: string | null }>`
            select state from pg_stat_activity where pid = ${pid}`.execute(admin.db);
          if (state.rows[0]?.state === 'active') break;
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        await sql`select pg_terminate_backend(${pid})`.execute(admin.db);
        const error = await waiting;
        assert.equal((error as { code?: unknown }).code, '57P01');
        // At once, as a request right after would: a fresh connection, not the dead one.
        const next = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(store.db);
        assert.notEqual(
          next.rows[0]!.pid,
          pid,
          `round ${round}: the terminated backend's connection was lent again`,
        );
      }
    } finally {
      await store.close();
      await admin.close();
    }
  },
);
