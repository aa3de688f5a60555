import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { Store } from '../../src/store/db.ts';
import { filterOf, parseWindow } from '../../src/features/data/params.ts';
import type { PreparedRecord } from '../../src/features/data/records.ts';
import * as repo from '../../src/features/data/repo.ts';
import { ensureRecordPartitions } from '../../src/features/data/record-partitions.ts';
import { type MigrationStore, openMigrationStore } from '../helpers/migration-store.ts';

/**
 * Migration 0025: `data_records` becomes partitioned by month of `anchor_day`. A database at the
 * migration before, holding records in several months (one far in the past, which only the
 * default partition takes), is migrated: every row is kept byte for byte, each sits in its
 * month's partition, reads find them, the connection's cascade still reaches them, and a record
 * whose anchor moves to another month is replaced, not duplicated. In an empty test
 * database of its own (test/helpers/migration-store.ts).
 */
const USER = '00000000-0000-4000-8000-0000000000a1';
const OTHER_USER = '00000000-0000-4000-8000-0000000000a2';

const stored = [
  {
    user: USER,
    type: 'activity',
    key: 'run-1',
    at: '2024-01-15T07:00:00Z',
    day: '2024-01-15',
    samples: '[1,2]',
  },
  {
    user: USER,
    type: 'activity',
    key: 'run-2',
    at: '2024-02-29T23:30:00Z',
    day: '2024-03-01',
    samples: null,
  },
  { user: USER, type: 'sleep', key: 'night-1', at: '2024-02-10T22:00:00Z', day: '2024-02-10', samples: null },
  { user: USER, type: 'body', key: 'old-1', at: '1990-06-01T12:00:00Z', day: '1990-06-01', samples: null },
  {
    user: OTHER_USER,
    type: 'activity',
    key: 'run-1',
    at: '2024-01-15T08:00:00Z',
    day: '2024-01-15',
    samples: null,
  },
];

function prepared(key: string, at: string, day: string): PreparedRecord {
  const summary = JSON.stringify({ metadata: { id: key, start_time: at } });
  return {
    identityKey: key,
    anchorAt: new Date(at),
    anchorDay: day,
    summary,
    samples: null,
    splices: null,
    record: null,
    bytes: summary.length,
  };
}

async function keysInRange(store: Store, userId: string, type: string, start: string, end: string) {
  const filter = filterOf(
    parseWindow({ start_date: start, end_date: end }, new Date('2026-01-01T00:00:00Z')),
  );
  const rows = await repo.pageRecords(store.db, {
    userId,
    type,
    filter,
    after: null,
    limit: 100,
    withSamples: true,
  });
  return rows.map((row) => [row.identity_key, row.samples]);
}

describe('migration 0025: data_records partitioned by month of anchor_day', () => {
  let store: Store;
  let scratch: MigrationStore | undefined;

  before(async () => {
    scratch = await openMigrationStore();
    store = scratch.store;
  });
  after(() => scratch?.close());

  test('a populated table is moved into partitions with its rows, reads and cascade intact', async () => {
    await scratch!.migrateToJustBefore('0025_partitioned_records');
    await sql`INSERT INTO developers (id, name, environment, status)
      VALUES ('dev-0025', 'dev-0025', 'sandbox', 'active')`.execute(store.db);
    for (const id of [USER, OTHER_USER]) {
      await sql`INSERT INTO connections (id, developer_id, provider, status) VALUES (${id}, 'dev-0025', 'GARMIN', 'active')`.execute(
        store.db,
      );
    }
    for (const row of stored) {
      await sql`INSERT INTO data_records (user_id, type, identity_key, anchor_at, anchor_day, summary, samples,
          sample_splices, updated_at)
        VALUES (${row.user}, ${row.type}, ${row.key}, ${row.at}, ${row.day}, ${`{"id":"${row.key}"}`}::json,
          ${row.samples}::json, ${row.samples ? [7] : null}, '2025-05-05T05:05:05Z')`.execute(store.db);
    }
    const everything = sql<Record<string, unknown>>`
      SELECT user_id, type, identity_key, anchor_at, anchor_day::text AS anchor_day, summary::text AS summary,
             samples::text AS samples, sample_splices, updated_at
      FROM data_records ORDER BY user_id, type, identity_key`;
    const before = await everything.execute(store.db);

    const applied = await scratch!.migrator.migrateTo('0025_partitioned_records');
    assert.equal(applied.error, undefined);
    assert.deepEqual(
      applied.results?.map((result) => [result.migrationName, result.status]),
      [['0025_partitioned_records', 'Success']],
    );

    assert.deepEqual((await everything.execute(store.db)).rows, before.rows);
    const kind = await sql<{ kind: string }>`
      SELECT relkind::text AS kind FROM pg_class WHERE oid = 'data_records'::regclass`.execute(store.db);
    assert.equal(kind.rows[0]?.kind, 'p');
    const placed = await sql<{ key: string; partition: string }>`
      SELECT identity_key AS key, tableoid::regclass::text AS partition FROM data_records
      WHERE user_id = ${USER} ORDER BY identity_key`.execute(store.db);
    assert.deepEqual(
      placed.rows.map((row) => [row.key, row.partition.replace(/^.*\./, '')]),
      [
        ['night-1', 'data_records_2024_02'],
        ['old-1', 'data_records_default'],
        ['run-1', 'data_records_2024_01'],
        ['run-2', 'data_records_2024_03'],
      ],
    );
    const leftover = await sql<{ name: string | null }>`
      SELECT to_regclass('data_records_unpartitioned')::text AS name`.execute(store.db);
    assert.equal(leftover.rows[0]?.name ?? null, null);

    // Reads through the repository find each record in its window, samples included.
    assert.deepEqual(await keysInRange(store, USER, 'activity', '2024-01-01', '2024-03-02'), [
      ['run-1', '[1,2]'],
      ['run-2', null],
    ]);
    assert.deepEqual(await keysInRange(store, USER, 'body', '1990-05-01', '1990-07-01'), [['old-1', null]]);
    // An instant window (unix seconds) reaches the record anchored on the next local day.
    const instant = filterOf(
      parseWindow(
        {
          start_date: String(Date.parse('2024-02-29T23:00:00Z') / 1000),
          end_date: String(Date.parse('2024-03-01T00:00:00Z') / 1000),
        },
        new Date('2026-01-01T00:00:00Z'),
      ),
    );
    const byInstant = await repo.pageRecords(store.db, {
      userId: USER,
      type: 'activity',
      filter: instant,
      after: null,
      limit: 10,
      withSamples: false,
    });
    assert.deepEqual(
      byInstant.map((row) => row.identity_key),
      ['run-2'],
    );

    // The connection's ON DELETE CASCADE reaches every partition.
    await sql`DELETE FROM connections WHERE id = ${OTHER_USER}`.execute(store.db);
    const left = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM data_records WHERE user_id = ${OTHER_USER}`.execute(store.db);
    assert.equal(left.rows[0]?.n, 0);
  });

  test('a record whose anchor moves to another day or month replaces its row, never duplicates it', async () => {
    const count = async (key: string) =>
      (
        await sql<{ n: number; day: string }>`
          SELECT count(*)::int AS n, max(anchor_day)::text AS day FROM data_records
          WHERE user_id = ${USER} AND type = 'activity' AND identity_key = ${key}`.execute(store.db)
      ).rows[0]!;
    // run-1 was on 2024-01-15: the provider now says it started on 2024-02-02 (another partition).
    await repo.upsertRecords(
      store.db,
      USER,
      'activity',
      [
        prepared('run-1', '2024-02-02T07:00:00Z', '2024-02-02'),
        prepared('run-3', '2024-02-03T07:00:00Z', '2024-02-03'),
      ],
      new Date('2025-06-01T00:00:00Z'),
    );
    assert.deepEqual(await count('run-1'), { n: 1, day: '2024-02-02' });
    // Then a day later within the same month, then back to a time on the same day (an update).
    await repo.upsertRecords(
      store.db,
      USER,
      'activity',
      [prepared('run-1', '2024-02-03T07:00:00Z', '2024-02-03')],
      new Date(),
    );
    await repo.upsertRecords(
      store.db,
      USER,
      'activity',
      [prepared('run-1', '2024-02-03T09:00:00Z', '2024-02-03')],
      new Date(),
    );
    assert.deepEqual(await count('run-1'), { n: 1, day: '2024-02-03' });
    assert.deepEqual(await count('run-3'), { n: 1, day: '2024-02-03' });
    assert.deepEqual(
      (await keysInRange(store, USER, 'activity', '2024-01-01', '2024-03-02')).map(([key]) => key),
      ['run-3', 'run-1', 'run-2'],
    );
  });

  test('the partitions job makes the coming months, moving what the default partition held for them', async () => {
    // A planned record years ahead: no month partition yet, so the default one holds it.
    await repo.upsertRecords(
      store.db,
      USER,
      'plannedWorkout',
      [prepared('plan-1', '2091-05-20T06:00:00Z', '2091-05-20')],
      new Date(),
    );
    const partitionOf = async (key: string) =>
      (
        await sql<{ partition: string }>`
          SELECT tableoid::regclass::text AS partition FROM data_records
          WHERE user_id = ${USER} AND identity_key = ${key}`.execute(store.db)
      ).rows.map((row) => row.partition.replace(/^.*\./, ''));
    assert.deepEqual(await partitionOf('plan-1'), ['data_records_default']);

    const created = await ensureRecordPartitions(store.db, new Date('2091-04-02T00:00:00Z'), 1);
    assert.deepEqual(created, ['2091-04-01', '2091-05-01']);
    assert.deepEqual(await partitionOf('plan-1'), ['data_records_2091_05']);
    assert.deepEqual(await ensureRecordPartitions(store.db, new Date('2091-04-02T00:00:00Z'), 1), []);
    // The carved month is a full partition: key, index and the connection's cascade.
    await repo.upsertRecords(
      store.db,
      USER,
      'plannedWorkout',
      [prepared('plan-1', '2091-05-21T06:00:00Z', '2091-05-21')],
      new Date(),
    );
    assert.deepEqual(await partitionOf('plan-1'), ['data_records_2091_05']);
    const indexes = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM pg_index WHERE indrelid = 'data_records_2091_05'::regclass`.execute(
      store.db,
    );
    assert.equal(indexes.rows[0]?.n, 2);
    assert.deepEqual(
      (await keysInRange(store, USER, 'plannedWorkout', '2091-05-01', '2091-06-01')).map(([key]) => key),
      ['plan-1'],
    );
    await sql`DELETE FROM connections WHERE id = ${USER}`.execute(store.db);
    const left = await sql<{ n: number }>`SELECT count(*)::int AS n FROM data_records_2091_05`.execute(
      store.db,
    );
    assert.equal(left.rows[0]?.n, 0);
  });
});
