// Start-up migrations on a PostgreSQL database that others use at the same time: schemas of other
// applications (or other Tributary deployments) are created and dropped while ours migrates. The
// migrator must only look at its own schema; reading every schema's tables, it failed whenever one
// disappeared mid-query ("schema … does not exist", seen in CI-like runs beside other test runs).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { openStore } from '../../src/store/db.ts';
import { migrateToLatest, pendingMigrations } from '../../src/store/migrate.ts';
import { createTestDatabase, databaseSkipReason, type TestDatabase } from '../helpers/database.ts';

const skip = await databaseSkipReason();

describe('migrations on a database shared with others', { skip }, () => {
  // A database of this test's own, which the churner and the migrations share.
  let database: TestDatabase;
  let churn: pg.Client;
  let churning = true;
  let churned = 0;
  let churner: Promise<void>;

  before(async () => {
    database = await createTestDatabase('empty');
    churn = new pg.Client({ connectionString: database.url });
    churn.on('error', () => {});
    await churn.connect();
    // Another tenant of the database: a schema with a serial column (what Kysely's introspection
    // resolves by name), created and dropped in a loop until the test ends.
    churner = (async () => {
      while (churning) {
        const name = `churn_${randomBytes(4).toString('hex')}`;
        await churn.query(`CREATE SCHEMA ${name}; CREATE TABLE ${name}.t (id serial, a int, b text)`);
        await churn.query(`DROP SCHEMA ${name} CASCADE`);
        churned += 1;
      }
    })();
  });

  after(async () => {
    churning = false;
    await churner.catch(() => {});
    await churn.end();
    await database.drop();
  });

  test('every migration run succeeds while other schemas come and go', async (t) => {
    for (let run = 0; run < 6; run++) {
      const schema = `mshared_${randomBytes(5).toString('hex')}`;
      const store = await openStore({ databaseUrl: database.url, dataDir: undefined, schema });
      try {
        const applied = await migrateToLatest(store.db, schema);
        assert.ok(applied.length > 0, 'a fresh schema gets every migration');
        assert.deepEqual(await pendingMigrations(store.db, schema), []);
        // Run again: the bookkeeping tables are found in our schema and nothing is applied twice.
        assert.deepEqual(await migrateToLatest(store.db, schema), []);
      } finally {
        await sql`DROP SCHEMA IF EXISTS ${sql.id(schema)} CASCADE`.execute(store.db);
        await store.close();
      }
    }
    t.diagnostic(`${churned} other schemas were created and dropped meanwhile`);
    assert.ok(churned > 0, 'the other tenant was active during the runs');
  });
});
