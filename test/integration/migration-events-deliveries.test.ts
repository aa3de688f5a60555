import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { type MigrationStore, openMigrationStore } from '../helpers/migration-store.ts';

/**
 * Migration 0042: the outbox becomes events (each stored once), deliveries (one per event ×
 * destination) and attempts under deliveries. Every row already in `webhook_events` keeps its id as
 * an event and as its delivery, with its status, generation, hold and attempts; what the previous
 * release writes to `webhook_events` afterwards (it still runs during a rolling upgrade) reaches
 * the new tables in the same statement.
 */
describe('migration 0042: events and deliveries', () => {
  let scratch: MigrationStore;

  before(async () => {
    scratch = await openMigrationStore();
  });
  after(() => scratch?.close());

  test('existing events, copies and attempts are carried over; the previous release’s writes are mirrored', async () => {
    const name = '0042_events_and_deliveries';
    await scratch.migrateToJustBefore(name);
    const db = scratch.store.db;
    const copyDestination = '00000000-0000-4000-8000-000000000002';
    await sql`INSERT INTO developers (id, name, environment) VALUES ('dev-1', 'D', 'sandbox')`.execute(db);
    await sql`
      INSERT INTO webhook_destinations (id, developer_id, environment, kind, url) VALUES
        ('00000000-0000-4000-8000-000000000001', 'dev-1', 'sandbox', 'webhook', 'https://hooks.example.com/in'),
        (${copyDestination}, 'dev-1', 'sandbox', 'postgresql', 'postgres://dest@db.example.com/a')`.execute(
      db,
    );
    const at = new Date('2026-11-01T00:00:00Z');
    await sql`
      INSERT INTO webhook_events (id, developer_id, destination_id, type, user_id, suppressible, body, status,
        generation, attempts, held_at, awaiting_job, created_at, updated_at)
      VALUES
        ('evt_delivered', 'dev-1', NULL, 'sleep', 'u-1', true, '{"n":1}', 'delivered', 1, 1, NULL, false, ${at}, ${at}),
        ('evt_held', 'dev-1', NULL, 'auth', NULL, false, '{"n":2}', 'held', 3, 0, ${at}, false, ${at}, ${at}),
        ('evt_copy', 'dev-1', ${copyDestination}, 'sleep', 'u-1', true, '{"n":1}', 'pending', 2, 1, NULL, true,
          ${at}, ${at})`.execute(db);
    await sql`
      INSERT INTO webhook_attempts (event_id, developer_id, attempt, url, attempted_at, duration_ms, status_code,
        outcome)
      VALUES ('evt_delivered', 'dev-1', 1, 'https://hooks.example.com/in', ${at}, 5, 200, 'delivered'),
        ('evt_copy', 'dev-1', 1, 'postgres://dest@db.example.com/a', ${at}, 7, NULL, 'retry')`.execute(db);
    const { rows: before } = await sql<{ seq: string }>`SELECT seq FROM webhook_events ORDER BY seq`.execute(
      db,
    );

    const { error } = await scratch.migrator.migrateTo(name);
    assert.equal(error, undefined);

    const events = await sql<{ id: string; type: string; body: string; seq: string }>`
      SELECT id, type, body, seq FROM events ORDER BY seq`.execute(db);
    assert.deepEqual(
      events.rows.map(({ id, type, body }) => ({ id, type, body })),
      [
        { id: 'evt_delivered', type: 'sleep', body: '{"n":1}' },
        { id: 'evt_held', type: 'auth', body: '{"n":2}' },
        { id: 'evt_copy', type: 'sleep', body: '{"n":1}' },
      ],
    );
    assert.deepEqual(
      events.rows.map((row) => String(row.seq)),
      before.map((row) => String(row.seq)),
      'positions are kept, so a log cursor handed out before still pages',
    );
    const deliveries = await sql<Record<string, unknown>>`
      SELECT id, event_id, destination_id, status, generation, attempts, held_at IS NOT NULL AS held, awaiting_job
      FROM deliveries ORDER BY seq`.execute(db);
    assert.deepEqual(deliveries.rows, [
      {
        id: 'evt_delivered',
        event_id: 'evt_delivered',
        destination_id: null,
        status: 'delivered',
        generation: 1,
        attempts: 1,
        held: false,
        awaiting_job: false,
      },
      {
        id: 'evt_held',
        event_id: 'evt_held',
        destination_id: null,
        status: 'held',
        generation: 3,
        attempts: 0,
        held: true,
        awaiting_job: false,
      },
      {
        id: 'evt_copy',
        event_id: 'evt_copy',
        destination_id: copyDestination,
        status: 'pending',
        generation: 2,
        attempts: 1,
        held: false,
        // Its first job is the previous release's relay's to queue (it still sees the mark).
        awaiting_job: false,
      },
    ]);
    const attempts = await sql`
      SELECT delivery_id, attempt, status_code, outcome FROM delivery_attempts ORDER BY delivery_id`.execute(
      db,
    );
    assert.deepEqual(attempts.rows, [
      { delivery_id: 'evt_copy', attempt: 1, status_code: null, outcome: 'retry' },
      { delivery_id: 'evt_delivered', attempt: 1, status_code: 200, outcome: 'delivered' },
    ]);

    // The previous release, still running: it emits, records an attempt, and prunes.
    await sql`
      INSERT INTO webhook_events (id, developer_id, type, suppressible, body, status, awaiting_job, created_at,
        updated_at)
      VALUES ('evt_old_release', 'dev-1', 'deauth', false, '{"n":3}', 'pending', true, ${at}, ${at})`.execute(
      db,
    );
    await sql`
      UPDATE webhook_events SET status = 'delivered', generation = generation + 1, attempts = 1,
        delivered_at = ${at} WHERE id = 'evt_old_release'`.execute(db);
    await sql`
      INSERT INTO webhook_attempts (event_id, developer_id, attempt, url, attempted_at, duration_ms, status_code,
        outcome)
      VALUES ('evt_old_release', 'dev-1', 1, 'https://hooks.example.com/in', ${at}, 4, 204, 'delivered')`.execute(
      db,
    );
    // This release moved the held one on (a replay): the previous release's older view is not applied.
    await sql`UPDATE deliveries SET status = 'pending', generation = 4 WHERE id = 'evt_held'`.execute(db);
    await sql`UPDATE webhook_events SET status = 'dropped', generation = 3 WHERE id = 'evt_held'`.execute(db);
    await sql`DELETE FROM webhook_events WHERE id = 'evt_delivered'`.execute(db);

    const mirrored = await sql`
      SELECT d.id, e.body, d.status, d.generation, d.awaiting_job,
        (SELECT count(*)::int FROM delivery_attempts a WHERE a.delivery_id = d.id) AS attempts_logged
      FROM deliveries d JOIN events e ON e.id = d.event_id ORDER BY d.id`.execute(db);
    assert.deepEqual(mirrored.rows, [
      {
        id: 'evt_copy',
        body: '{"n":1}',
        status: 'pending',
        generation: 2,
        awaiting_job: false,
        attempts_logged: 1,
      },
      {
        id: 'evt_held',
        body: '{"n":2}',
        status: 'pending',
        generation: 4,
        awaiting_job: false,
        attempts_logged: 0,
      },
      {
        id: 'evt_old_release',
        body: '{"n":3}',
        status: 'delivered',
        generation: 1,
        awaiting_job: false,
        attempts_logged: 1,
      },
    ]);
    const newSeq = await sql<{ seq: string }>`
      INSERT INTO events (id, developer_id, type, suppressible, body, created_at)
      VALUES ('evt_new', 'dev-1', 'auth', false, '{}', ${at}) RETURNING seq`.execute(db);
    assert.ok(
      Number(newSeq.rows[0]!.seq) > Math.max(...before.map((row) => Number(row.seq))),
      'new events number after the copied ones',
    );
  });
});
