import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { Migrator } from 'kysely/migration';
import { createSecretBox } from '../../src/core/secret-box.ts';
import { generateWebhookSecret } from '../../src/features/delivery/signing.ts';
import type { Store } from '../../src/store/db.ts';
import { type MigrationStore, openMigrationStore } from '../helpers/migration-store.ts';

/**
 * Migration 0015: a destination's previous secret moves into `webhook_retired_secrets`, signing
 * until 24 h after its rotation as before, and the destinations of developers suspended at the
 * time start with their deliveries held. A database at the migration before with destinations in each state is
 * migrated. In an empty test database of its own
 * (test/helpers/migration-store.ts).
 */
describe('migration 0015: retired secrets and held deliveries of suspended developers', () => {
  const secretBox = createSecretBox(randomBytes(32));
  let store: Store;
  let migrator: Migrator;
  let scratch: MigrationStore | undefined;

  before(async () => {
    scratch = await openMigrationStore();
    ({ store, migrator } = scratch);
  });
  after(() => scratch?.close());

  test('the previous secret keeps its overlap; suspended developers are held; the old columns are gone', async () => {
    await scratch!.migrateToJustBefore('0015_webhook_secrets_and_holds');

    const current = generateWebhookSecret();
    const previous = generateWebhookSecret();
    const rotatedAt = new Date('2026-03-01T10:00:00.000Z');
    const developers = [
      { id: 'rotated-0001', status: 'active', previous: secretBox.seal(previous), rotatedAt },
      { id: 'suspended-0002', status: 'suspended', previous: null, rotatedAt: null },
    ];
    for (const developer of developers) {
      await sql`INSERT INTO developers (id, name, environment, status)
        VALUES (${developer.id}, ${developer.id}, 'sandbox', ${developer.status})`.execute(store.db);
      await sql`INSERT INTO webhook_destinations (id, developer_id, environment, url, secret, secret_previous,
          secret_rotated_at)
        VALUES (gen_random_uuid(), ${developer.id}, 'sandbox', 'http://127.0.0.1:9/hook',
          ${secretBox.seal(current)}, ${developer.previous}, ${developer.rotatedAt})`.execute(store.db);
    }

    const applied = await migrator.migrateTo('0015_webhook_secrets_and_holds');
    assert.equal(applied.error, undefined);
    assert.deepEqual(
      applied.results?.map((result) => [result.migrationName, result.status]),
      [['0015_webhook_secrets_and_holds', 'Success']],
    );

    const retired = await store.db
      .selectFrom('webhook_retired_secrets')
      .innerJoin('webhook_destinations', 'webhook_destinations.id', 'webhook_retired_secrets.destination_id')
      .select([
        'webhook_destinations.developer_id',
        'webhook_retired_secrets.secret',
        'webhook_retired_secrets.retired_at',
        'webhook_retired_secrets.signs_until',
      ])
      .execute();
    assert.equal(retired.length, 1);
    assert.equal(retired[0]?.developer_id, 'rotated-0001');
    assert.equal(secretBox.open(retired[0]?.secret ?? ''), previous);
    assert.equal(retired[0]?.retired_at.toISOString(), rotatedAt.toISOString());
    assert.equal(retired[0]?.signs_until.toISOString(), '2026-03-02T10:00:00.000Z');

    const held = await store.db
      .selectFrom('webhook_destinations')
      .select(['developer_id', 'suspended_at'])
      .orderBy('developer_id')
      .execute();
    assert.deepEqual(
      held.map((row) => [row.developer_id, row.suspended_at !== null]),
      [
        ['rotated-0001', false],
        ['suspended-0002', true],
      ],
    );
    const columns = await sql<{ column_name: string }>`
      SELECT column_name FROM information_schema.columns
      WHERE table_name = 'webhook_destinations' AND table_schema = current_schema()`.execute(store.db);
    const names12 = columns.rows.map((row) => row.column_name);
    assert.ok(!names12.includes('secret_previous') && !names12.includes('secret_rotated_at'));
  });
});
