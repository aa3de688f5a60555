import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { type MigrationStore, openMigrationStore } from '../helpers/migration-store.ts';

/**
 * Migration 0041: what the delivery log shows of a destination of another kind (its target, each
 * attempt's `url`) loses any query string saved before query strings were refused, so a
 * `?password=…` written then is no longer shown. The webhook's own URLs stay as they are. On
 * embedded PGlite, or on PostgreSQL (in a schema of its own) when DATABASE_URL is set.
 */
describe('migration 0041: destination targets without query strings', () => {
  let scratch: MigrationStore;

  before(async () => {
    scratch = await openMigrationStore();
  });
  after(() => scratch?.close());

  test('a stored ?password= is removed from the target and the attempt log, webhook URLs are kept', async () => {
    const name = '0041_destination_targets_without_queries';
    await scratch.migrateToJustBefore(name);
    const db = scratch.store.db;
    const legacy =
      'postgres://dest:***@db.example.com:5432/analytics?password=hunter2&sslmode=require#tributary';
    const webhookUrl = 'https://hooks.example.com/in?token=kept';
    await sql`INSERT INTO developers (id, name, environment) VALUES ('dev-1', 'D', 'sandbox')`.execute(db);
    await sql`
      INSERT INTO webhook_destinations (id, developer_id, environment, kind, url) VALUES
        ('00000000-0000-4000-8000-000000000001', 'dev-1', 'sandbox', 'webhook', ${webhookUrl}),
        ('00000000-0000-4000-8000-000000000002', 'dev-1', 'sandbox', 'postgresql', ${legacy})`.execute(db);
    const at = new Date('2026-11-01T00:00:00Z');
    for (const [id, destination, url] of [
      ['evt_webhook', null, webhookUrl],
      ['evt_copy', '00000000-0000-4000-8000-000000000002', legacy],
    ] as const) {
      await sql`
        INSERT INTO webhook_events (id, developer_id, type, suppressible, body, status, created_at, updated_at, destination_id)
        VALUES (${id}, 'dev-1', 'healthcheck', false, '{}', 'failed', ${at}, ${at}, ${destination})`.execute(
        db,
      );
      await sql`
        INSERT INTO webhook_attempts (event_id, developer_id, attempt, url, attempted_at, duration_ms, outcome)
        VALUES (${id}, 'dev-1', 1, ${url}, ${at}, 5, 'failed')`.execute(db);
    }

    const { error } = await scratch.migrator.migrateTo(name);
    assert.equal(error, undefined);

    const targets = await sql<{ kind: string; url: string }>`
      SELECT kind, url FROM webhook_destinations ORDER BY kind DESC`.execute(db);
    assert.deepEqual(targets.rows, [
      { kind: 'webhook', url: webhookUrl },
      { kind: 'postgresql', url: 'postgres://dest:***@db.example.com:5432/analytics#tributary' },
    ]);
    const attempts = await sql<{ event_id: string; url: string }>`
      SELECT event_id, url FROM webhook_attempts ORDER BY event_id`.execute(db);
    assert.deepEqual(attempts.rows, [
      { event_id: 'evt_copy', url: 'postgres://dest:***@db.example.com:5432/analytics#tributary' },
      { event_id: 'evt_webhook', url: webhookUrl },
    ]);
  });
});
