import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { Migrator } from 'kysely/migration';
import { mergeSamples, splitSamples } from '../../src/model/record-text.ts';
import { samplePaths } from '../../src/model/strip-samples.ts';
import type { Store } from '../../src/store/db.ts';
import { type MigrationStore, openMigrationStore } from '../helpers/migration-store.ts';

/**
 * Migration 0011 brings rows stored in the older contract's shapes to the vendor's current schema
 * (issue 14). A database left at 0010 holds records in both shapes; after the migration every
 * record reads back in the current shape, samples still split out, and current rows untouched.
 * In an empty test database of its own (test/helpers/migration-store.ts).
 */
describe('migration 0011: stored records take the current shapes', () => {
  let store: Store;
  let migrator: Migrator;
  let scratch: MigrationStore | undefined;

  before(async () => {
    scratch = await openMigrationStore();
    ({ store, migrator } = scratch);
  });
  after(() => scratch?.close());

  test('older shapes are converted, samples stay split, current rows are left alone', async () => {
    assert.equal((await migrator.migrateTo('0010_webhook_events_pending')).error, undefined);

    const userId = randomUUID();
    await sql`INSERT INTO developers (id, name, environment) VALUES ('dev-1', 'd', 'sandbox')`.execute(
      store.db,
    );
    await sql`
      INSERT INTO users (id, developer_id, provider, status) VALUES (${userId}::uuid, 'dev-1', 'SANDBOX', 'active')`.execute(
      store.db,
    );
    const day = {
      start_time: '2024-03-01T00:00:00.000000+00:00',
      end_time: '2024-03-02T00:00:00.000000+00:00',
    };
    const insert = async (type: string, key: string, record: object) => {
      const split = splitSamples(record, samplePaths[type as keyof typeof samplePaths]);
      await sql`
        INSERT INTO data_records (user_id, type, identity_key, anchor_at, anchor_day, summary, samples, sample_splices)
        VALUES (${userId}::uuid, ${type}, ${key}, '2024-03-01T00:00:00Z', '2024-03-01',
                ${split.summary}::json, ${split.samples}::json, ${split.splices})`.execute(store.db);
    };
    await insert('menstruation', 'm', {
      metadata: day,
      menstruation_data: { current_phase: 'luteal', cycle_length_days: '33', is_predicted_cycle: 'false' },
    });
    await insert('nutrition', 'n', {
      metadata: day,
      drink_samples: [
        { timestamp: day.start_time, drink_volume: 250, drink_unit: 'ml', drink_name: 'Water' },
      ],
      summary: { water_ml: 250 },
    });
    await insert('body', 'b', {
      metadata: day,
      measurements_data: { measurements: [{ estimated_fitness_age: '21' }] },
    });
    await insert('daily', 'd', {
      metadata: day,
      data_enrichment: {
        stress_contributors: [{ contributor_name: 'average_stress', contributor_score: 31 }],
      },
    });
    const current = { metadata: day, data_enrichment: { sleep_contributors: { latency: 80 } } };
    await insert('sleep', 's', current);

    assert.equal((await migrator.migrateTo('0011_current_record_shapes')).error, undefined);

    const rows = await sql<{
      type: string;
      summary: string;
      samples: string | null;
      sample_splices: number[] | null;
    }>`SELECT type, summary::text AS summary, samples::text AS samples, sample_splices FROM data_records`.execute(
      store.db,
    );
    const byType = new Map(
      rows.rows.map((row) => [
        row.type,
        { ...row, record: JSON.parse(mergeSamples(row.summary, row.samples, row.sample_splices)) },
      ]),
    );
    assert.deepEqual(byType.get('menstruation')!.record.menstruation_data, {
      current_phase: 5,
      cycle_length_days: 33,
      is_predicted_cycle: false,
    });
    const nutrition = byType.get('nutrition')!;
    assert.equal(nutrition.record.drink_samples[0].drink_unit, 8);
    assert.match(nutrition.summary, /"drink_samples":\[\]/, 'samples stay out of the summary');
    assert.equal(byType.get('body')!.record.measurements_data.measurements[0].estimated_fitness_age, 21);
    assert.deepEqual(byType.get('daily')!.record.data_enrichment.stress_contributors, { average_stress: 31 });
    assert.equal(byType.get('sleep')!.summary, JSON.stringify(current));
  });
});
