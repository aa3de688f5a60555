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
 * Migration 0008 moves each developer's webhook destination off `developers` into
 * `webhook_destinations`. A database left at 0007 with developers in every destination state is
 * migrated, and every URL, secret, status and health value must come out unchanged.
 * In an empty test database of its own (test/helpers/migration-store.ts).
 */
describe('migration 0008: webhook destinations get their own table', () => {
  const secretBox = createSecretBox(randomBytes(32));
  let store: Store;
  let migrator: Migrator;
  let scratch: MigrationStore | undefined;

  before(async () => {
    scratch = await openMigrationStore();
    ({ store, migrator } = scratch);
  });
  after(() => scratch?.close());

  test('every developer keeps its URL, both secrets, status and health; the old columns are gone', async () => {
    const before = await migrator.migrateTo('0007_connectors');
    assert.equal(before.error, undefined);
    assert.equal((await pendingNames(migrator))[0], '0008_webhook_destinations');

    const current = generateWebhookSecret();
    const previous = generateWebhookSecret();
    const fresh = generateWebhookSecret();
    const at = (iso: string) => new Date(iso);
    // A production developer mid-way through everything: rotated secret, failing, with history.
    const busy = {
      id: 'acme-0001',
      environment: 'production',
      webhook_url: 'https://hooks.acme.example/tributary',
      webhook_secret: secretBox.seal(current),
      webhook_secret_previous: secretBox.seal(previous),
      webhook_secret_rotated_at: at('2025-03-01T10:00:00.123Z'),
      webhook_status: 'failing',
      webhook_consecutive_failures: 17,
      webhook_failing_since: at('2025-02-27T08:00:00.000Z'),
      webhook_disabled_at: at('2025-02-20T09:30:00.000Z'),
      webhook_last_success_at: at('2025-02-27T07:59:59.999Z'),
      webhook_last_failure_at: at('2025-03-01T11:00:00.456Z'),
      created_at: at('2025-01-01T00:00:00.000Z'),
    };
    // A sandbox developer straight after creation: no URL yet, defaults everywhere.
    const idle = {
      id: 'sandbox-0002',
      environment: 'sandbox',
      webhook_url: null,
      webhook_secret: secretBox.seal(fresh),
      webhook_secret_previous: null,
      webhook_secret_rotated_at: null,
      webhook_status: 'active',
      webhook_consecutive_failures: 0,
      webhook_failing_since: null,
      webhook_disabled_at: null,
      webhook_last_success_at: null,
      webhook_last_failure_at: null,
      created_at: at('2025-01-02T00:00:00.000Z'),
    };
    // A disabled one, to cover the third status.
    const disabled = {
      ...idle,
      id: 'gone-quiet-0003',
      webhook_url: 'http://127.0.0.1:9/hook',
      webhook_status: 'disabled',
      webhook_disabled_at: at('2025-03-02T00:00:00.000Z'),
    };
    for (const developer of [busy, idle, disabled]) {
      await sql`
        INSERT INTO developers (id, name, environment, webhook_url, webhook_secret, webhook_secret_previous,
          webhook_secret_rotated_at, webhook_status, webhook_consecutive_failures, webhook_failing_since,
          webhook_disabled_at, webhook_last_success_at, webhook_last_failure_at, created_at)
        VALUES (${developer.id}, ${`Developer ${developer.id}`}, ${developer.environment},
          ${developer.webhook_url}, ${developer.webhook_secret}, ${developer.webhook_secret_previous},
          ${developer.webhook_secret_rotated_at}, ${developer.webhook_status},
          ${developer.webhook_consecutive_failures}, ${developer.webhook_failing_since},
          ${developer.webhook_disabled_at}, ${developer.webhook_last_success_at},
          ${developer.webhook_last_failure_at}, ${developer.created_at})`.execute(store.db);
    }
    await sql`
      INSERT INTO webhook_events (id, developer_id, type, user_id, reference, is_data, body, status, created_at,
        updated_at)
      VALUES ('evt_data', ${busy.id}, 'sleep', 'u-1', NULL, true, '{}', 'held', now(), now()),
        ('evt_notice', ${busy.id}, 'deauth', 'u-1', NULL, false, '{}', 'held', now(), now())`.execute(
      store.db,
    );

    // Exactly this migration: later ones may change these tables again.
    const applied = await migrator.migrateTo('0008_webhook_destinations');
    assert.equal(applied.error, undefined);
    assert.deepEqual(
      applied.results?.map((result) => [result.migrationName, result.status]),
      [['0008_webhook_destinations', 'Success']],
    );

    for (const developer of [busy, idle, disabled]) {
      // Columns as 0008 left them (later migrations change this table, so not its current type).
      const row = (await store.db
        .selectFrom('webhook_destinations')
        .selectAll()
        .where('developer_id', '=', developer.id)
        .executeTakeFirstOrThrow()) as Record<string, unknown> & { id: string };
      assert.match(row.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      assert.deepEqual(
        {
          environment: row.environment,
          url: row.url,
          secret: row.secret,
          secret_previous: row.secret_previous,
          secret_rotated_at: row.secret_rotated_at,
          status: row.status,
          consecutive_failures: row.consecutive_failures,
          failing_since: row.failing_since,
          disabled_at: row.disabled_at,
          last_success_at: row.last_success_at,
          last_failure_at: row.last_failure_at,
          created_at: row.created_at,
        },
        {
          environment: developer.environment,
          url: developer.webhook_url,
          secret: developer.webhook_secret,
          secret_previous: developer.webhook_secret_previous,
          secret_rotated_at: developer.webhook_secret_rotated_at,
          status: developer.webhook_status,
          consecutive_failures: developer.webhook_consecutive_failures,
          failing_since: developer.webhook_failing_since,
          disabled_at: developer.webhook_disabled_at,
          last_success_at: developer.webhook_last_success_at,
          last_failure_at: developer.webhook_last_failure_at,
          created_at: developer.created_at,
        },
        developer.id,
      );
    }

    // The sealed secrets still open to what they were.
    const sealed = async (developerId: string) =>
      (
        await sql<{ secret: string; secret_previous: string | null }>`
        SELECT secret, secret_previous FROM webhook_destinations WHERE developer_id = ${developerId}`.execute(
          store.db,
        )
      ).rows[0];
    const moved = await sealed(busy.id);
    assert.ok(moved);
    assert.equal(secretBox.open(moved.secret), current);
    assert.equal(secretBox.open(moved.secret_previous ?? ''), previous);
    assert.equal(secretBox.open((await sealed(idle.id))?.secret ?? ''), fresh);

    const developerColumns = await sql<{ column_name: string }>`
      SELECT column_name FROM information_schema.columns
      WHERE table_name = 'developers' AND table_schema = current_schema()
      ORDER BY column_name`.execute(store.db);
    assert.deepEqual(
      developerColumns.rows.map((row) => row.column_name),
      ['created_at', 'environment', 'hourly_days_limit', 'id', 'name', 'order_api_access', 'status'],
    );
    const { rows: events } = await sql`SELECT id, suppressible FROM webhook_events ORDER BY id`.execute(
      store.db,
    );
    assert.deepEqual(events, [
      { id: 'evt_data', suppressible: true },
      { id: 'evt_notice', suppressible: false },
    ]);

    // One destination per developer, for now; and it goes with its developer.
    await assert.rejects(
      sql`INSERT INTO webhook_destinations (id, developer_id, environment, secret)
        VALUES (gen_random_uuid(), ${busy.id}, 'production', 'x')`.execute(store.db),
    );
    await store.db.deleteFrom('developers').where('id', '=', disabled.id).execute();
    assert.equal(await sealed(disabled.id), undefined);
  });
});

async function pendingNames(migrator: Migrator): Promise<string[]> {
  return (await migrator.getMigrations()).filter((m) => m.executedAt === undefined).map((m) => m.name);
}
