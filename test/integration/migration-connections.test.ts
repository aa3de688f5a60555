import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { Migrator } from 'kysely/migration';
import type { Store } from '../../src/store/db.ts';
import { type MigrationStore, openMigrationStore } from '../helpers/migration-store.ts';

/**
 * Migration 0024: the `users` table becomes `connections` (issue 27, one vocabulary). A database
 * at the migration before, with connections in every status and rows of other tables pointing at
 * them, is migrated: every row is kept as it was, the foreign keys follow the table, and no
 * index or constraint of the table still carries the old name. In an empty test
 * database of its own (test/helpers/migration-store.ts).
 */
describe('migration 0024: users becomes connections', () => {
  let store: Store;
  let migrator: Migrator;
  let scratch: MigrationStore | undefined;

  before(async () => {
    scratch = await openMigrationStore();
    ({ store, migrator } = scratch);
  });
  after(() => scratch?.close());

  test('a populated users table becomes connections with its rows, references and indexes intact', async () => {
    await scratch!.migrateToJustBefore('0024_users_to_connections');

    await sql`INSERT INTO developers (id, name, environment, status)
      VALUES ('dev-0024', 'dev-0024', 'sandbox', 'active')`.execute(store.db);
    const rows = [
      { id: '00000000-0000-4000-8000-000000000001', status: 'pending', reference: 'person-1', account: null },
      {
        id: '00000000-0000-4000-8000-000000000002',
        status: 'active',
        reference: 'person-1',
        account: 'acct-2',
      },
      { id: '00000000-0000-4000-8000-000000000003', status: 'broken', reference: null, account: 'acct-3' },
      {
        id: '00000000-0000-4000-8000-000000000004',
        status: 'revoked',
        reference: 'person-2',
        account: 'acct-4',
      },
    ];
    for (const row of rows) {
      await sql`INSERT INTO users (id, developer_id, provider, status, reference_id, scopes, provider_user_id,
          created_at, last_webhook_update)
        VALUES (${row.id}, 'dev-0024', 'GARMIN', ${row.status}, ${row.reference}, 'a,b', ${row.account},
          '2026-01-02T03:04:05.000Z', '2026-02-03T04:05:06.000Z')`.execute(store.db);
    }
    // A row of another feature's table that references a connection (ON DELETE CASCADE).
    await sql`INSERT INTO connector_token_health (user_id, consecutive_failures)
      VALUES (${rows[1]!.id}, 2)`.execute(store.db);
    const before = await sql<Record<string, unknown>>`SELECT * FROM users ORDER BY id`.execute(store.db);

    const applied = await migrator.migrateTo('0024_users_to_connections');
    assert.equal(applied.error, undefined);
    assert.deepEqual(
      applied.results?.map((result) => [result.migrationName, result.status]),
      [['0024_users_to_connections', 'Success']],
    );

    const afterRows = await sql<Record<string, unknown>>`SELECT * FROM connections ORDER BY id`.execute(
      store.db,
    );
    assert.equal(afterRows.rows.length, rows.length);
    assert.deepEqual(afterRows.rows, before.rows);

    const oldTable = await sql<{ name: string | null }>`SELECT to_regclass('users')::text AS name`.execute(
      store.db,
    );
    assert.equal(oldTable.rows[0]?.name ?? null, null);

    const indexes = await sql<{ name: string }>`
      SELECT c.relname AS name FROM pg_index i
        JOIN pg_class c ON c.oid = i.indexrelid
       WHERE i.indrelid = 'connections'::regclass ORDER BY 1`.execute(store.db);
    assert.deepEqual(
      indexes.rows.map((row) => row.name),
      [
        'connections_by_developer',
        'connections_by_provider_account',
        'connections_by_reference',
        'connections_pkey',
      ],
    );
    // Every constraint PostgreSQL made for the table (PostgreSQL 18 also names its not-null ones).
    const constraints = await sql<{ name: string }>`
      SELECT conname AS name FROM pg_constraint WHERE conrelid = 'connections'::regclass ORDER BY 1`.execute(
      store.db,
    );
    const names = constraints.rows.map((row) => row.name);
    for (const name of ['connections_developer_id_fkey', 'connections_pkey', 'connections_status_check']) {
      assert.ok(names.includes(name), `${name} in ${names.join(', ')}`);
    }
    assert.deepEqual(
      names.filter((name) => !name.startsWith('connections_')),
      [],
    );

    // The check constraint and the foreign keys still hold under their new names.
    await assert.rejects(
      sql`UPDATE connections SET status = 'lost' WHERE id = ${rows[0]!.id}`.execute(store.db),
      /connections_status_check/,
    );
    await sql`DELETE FROM connections WHERE id = ${rows[1]!.id}`.execute(store.db);
    const health = await sql<{ n: number }>`SELECT count(*)::int AS n FROM connector_token_health`.execute(
      store.db,
    );
    assert.equal(health.rows[0]?.n, 0);
  });
});
