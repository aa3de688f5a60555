import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { pruneEvents } from '../../src/features/delivery/delivery-moves.ts';
import { insertEvents } from '../../src/features/delivery/event-rows.ts';
import type { Db } from '../../src/store/db.ts';
import { type MigrationStore, openMigrationStore } from '../helpers/migration-store.ts';

/**
 * Migration 0050: events, deliveries and attempts lose their per-row foreign-key checks (issue
 * 44), and deleting still cascades, by statement: a developer takes its events, an event its
 * deliveries, a delivery its attempts, whichever way the delete comes (pruning, a destination
 * deleted, a developer deleted), and rows stored before the migration are covered as well.
 */
describe('migration 0050: delivery cascades by statement', () => {
  let scratch: MigrationStore;
  let db: Db;
  const secondary = '00000000-0000-4000-8000-000000000002';
  const old = new Date('2026-11-01T00:00:00Z');

  before(async () => {
    scratch = await openMigrationStore();
    db = scratch.store.db;
  });
  after(() => scratch?.close());

  /** An event with one delivery to the primary webhook (and one to `secondary` if asked), each with an attempt. */
  async function emit(developerId: string, eventId: string, toSecondary = false) {
    await sql`
      INSERT INTO events (id, developer_id, type, suppressible, body, created_at)
      VALUES (${eventId}, ${developerId}, 'sleep', false, '{}', ${old})`.execute(db);
    await sql`
      INSERT INTO deliveries (id, event_id, developer_id, destination_id, status, created_at, updated_at)
      VALUES (${eventId}, ${eventId}, ${developerId}, NULL, 'delivered', ${old}, ${old})`.execute(db);
    if (toSecondary)
      await sql`
        INSERT INTO deliveries (id, event_id, developer_id, destination_id, status, created_at, updated_at)
        VALUES (${`${eventId}-2`}, ${eventId}, ${developerId}, ${secondary}, 'delivered', ${old}, ${old})`.execute(
        db,
      );
    for (const deliveryId of toSecondary ? [eventId, `${eventId}-2`] : [eventId])
      await sql`
        INSERT INTO delivery_attempts (delivery_id, developer_id, attempt, url, attempted_at, duration_ms, outcome)
        VALUES (${deliveryId}, ${developerId}, 1, 'https://hooks.example.com/in', ${old}, 3, 'delivered')`.execute(
        db,
      );
  }

  const left = async () =>
    (
      await sql<{ what: string; id: string }>`
        SELECT 'event' AS what, id FROM events
        UNION ALL SELECT 'delivery', id FROM deliveries
        UNION ALL SELECT 'attempt', delivery_id FROM delivery_attempts
        ORDER BY what, id`.execute(db)
    ).rows.map(({ what, id }) => `${what} ${id}`);

  test('rows stored before it and after it go with what they hang under', async () => {
    const name = '0050_delivery_cascades_by_statement';
    await scratch.migrateToJustBefore(name);
    await sql`INSERT INTO developers (id, name, environment) VALUES ('dev-1', 'D', 'sandbox'), ('dev-2', 'E', 'sandbox')`.execute(
      db,
    );
    await sql`
      INSERT INTO webhook_destinations (id, developer_id, environment, kind, url, secondary) VALUES
        (${secondary}, 'dev-1', 'sandbox', 'webhook', 'https://hooks.example.com/two', true)`.execute(db);
    await emit('dev-1', 'evt_before', true);
    const { error } = await scratch.migrator.migrateTo(name);
    assert.equal(error, undefined);
    await emit('dev-1', 'evt_pruned');
    await emit('dev-1', 'evt_kept', true);
    await emit('dev-2', 'evt_other');

    // Pruning an event takes its deliveries and their attempts (one statement for all of them).
    await sql`UPDATE events SET created_at = ${new Date('2026-10-01T00:00:00Z')} WHERE id = 'evt_pruned'`.execute(
      db,
    );
    assert.equal(await pruneEvents(db, new Date('2026-10-15T00:00:00Z'), 10), 1);
    // Deleting a destination takes its deliveries (its foreign key) and so their attempts.
    await sql`DELETE FROM webhook_destinations WHERE id = ${secondary}`.execute(db);
    assert.deepEqual(await left(), [
      'attempt evt_before',
      'attempt evt_kept',
      'attempt evt_other',
      'delivery evt_before',
      'delivery evt_kept',
      'delivery evt_other',
      'event evt_before',
      'event evt_kept',
      'event evt_other',
    ]);

    // Deleting a developer takes its events, their deliveries and attempts; not another's.
    await sql`DELETE FROM developers WHERE id = 'dev-1'`.execute(db);
    assert.deepEqual(await left(), ['attempt evt_other', 'delivery evt_other', 'event evt_other']);
  });

  test('a delivery is stored only with its event', async () => {
    const at = new Date();
    const event = {
      id: 'evt_new',
      developer_id: 'dev-2',
      type: 'sleep',
      user_id: null,
      reference: null,
      suppressible: false,
      body: '{}',
      created_at: at,
    };
    const delivery = {
      id: 'dlv_new',
      event_id: 'evt_elsewhere',
      developer_id: 'dev-2',
      destination_id: null,
      status: 'pending' as const,
      last_error: null,
      awaiting_job: false,
      created_at: at,
      updated_at: at,
    };
    await assert.rejects(insertEvents(db, [event], [delivery]), /names an event not stored with it/);
    await insertEvents(db, [event], [{ ...delivery, event_id: 'evt_new' }]);
    assert.deepEqual(
      (await left()).filter((row) => row.endsWith('_new')),
      ['delivery dlv_new', 'event evt_new'],
    );
  });
});
