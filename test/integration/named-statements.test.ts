import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { openStore, type Store } from '../../src/store/db.ts';
import { queryTemplate } from '../../src/store/query-template.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

// One connection, so the session that ran a template is the one asked about it.
let database: TestDatabase;
let store: Store;
before(async () => {
  database = await createTestDatabase();
  store = await openStore({ databaseUrl: database.url, dataDir: undefined, poolSize: 1 });
});
after(async () => {
  await store?.close();
  await database?.drop();
});

const bucketsOf = queryTemplate(['userId'], (db, input: { userId: string }) =>
  db.selectFrom('rate_buckets').selectAll().where('user_id', '=', input.userId),
);
const preparedTexts = async () =>
  (await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements`.execute(store.db)).rows.map(
    (row) => row.statement,
  );

test('a template’s statement is prepared on the connection once and reused', async () => {
  const userId = '00000000-0000-4000-8000-000000000001';
  await bucketsOf(store.db, { userId });
  await bucketsOf(store.db, { userId });
  const prepared = (await preparedTexts()).filter((text) => text.includes('"rate_buckets"'));
  assert.equal(prepared.length, 1, `prepared: ${JSON.stringify(prepared)}`);
  // Statements that are not templates stay unnamed.
  assert.equal((await preparedTexts()).filter((text) => text.includes('pg_prepared_statements')).length, 0);
});

test('a prepared statement whose result columns a migration changed is parsed again, not refused', async () => {
  const userId = '00000000-0000-4000-8000-000000000002';
  // A database of this test's own: its bucket needs no connection.
  await sql`ALTER TABLE rate_buckets DROP CONSTRAINT rate_buckets_user_id_fkey`.execute(store.db);
  await store.db
    .insertInto('rate_buckets')
    .values({ user_id: userId, bucket_start: new Date('2026-01-01T00:00:00Z'), used: 3 })
    .execute();
  assert.equal((await bucketsOf(store.db, { userId })).length, 1);
  // Another process's migration adds a column while this one runs: `select *` now has one more.
  await sql`ALTER TABLE rate_buckets ADD COLUMN note text DEFAULT 'added'`.execute(store.db);
  const rows = (await bucketsOf(store.db, { userId })) as Record<string, unknown>[];
  assert.equal(rows.length, 1);
  assert.equal(rows[0]!.note, 'added');
  assert.equal(rows[0]!.used, 3);
});

test('a statement refused inside a transaction is parsed anew by the next run outside it', async () => {
  // rate_buckets has no foreign key since the test above.
  const userId = '00000000-0000-4000-8000-000000000003';
  await store.db
    .insertInto('rate_buckets')
    .values({ user_id: userId, bucket_start: new Date('2026-01-02T00:00:00Z'), used: 5 })
    .execute();
  assert.equal((await bucketsOf(store.db, { userId })).length, 1);
  await sql`ALTER TABLE rate_buckets ADD COLUMN other text DEFAULT 'other'`.execute(store.db);
  // In a transaction the refusal stands (the transaction is aborted, nothing can be dropped in it).
  await assert.rejects(
    store.db.transaction().execute((trx) => bucketsOf(trx, { userId })),
    /cached plan must not change result type/,
  );
  // The old statement could not be dropped there; the next run prepares it under a name of its own.
  const rows = (await bucketsOf(store.db, { userId })) as Record<string, unknown>[];
  assert.equal(rows[0]!.other, 'other');
  assert.equal(rows[0]!.used, 5);
});

test('prepared statements are planned for each run’s values, so month partitions are pruned', async () => {
  // A generic plan of a keyset page cannot prune data_records' partitions by its values.
  const { rows } = await sql<{ plan_cache_mode: string }>`SHOW plan_cache_mode`.execute(store.db);
  assert.equal(rows[0]?.plan_cache_mode, 'force_custom_plan');
});
