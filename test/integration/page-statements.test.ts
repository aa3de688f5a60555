import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CompiledQuery } from 'kysely';
import { openStore, type Store } from '../../src/store/db.ts';
import { pageInput, pageRecordsQuery } from '../../src/features/data/range-reads.ts';
import { ensureRecordPartitions } from '../../src/features/data/record-partitions.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

/**
 * Issue 44: a page of records reads its rows from the month partitions (merged in order, one row
 * read ahead in each) and turns the json into text only once the page is cut. Converted in the
 * scans, every later partition's look-ahead row had its samples converted too, 35-62 ms a page
 * of a 5-year with_samples read instead of 9-15. Fails on the code before: its partition scans
 * output `(summary)::text` and `(samples)::text`.
 */
let database: TestDatabase;
let store: Store;
before(async () => {
  database = await createTestDatabase();
  store = await openStore({ databaseUrl: database.url, dataDir: undefined, poolSize: 1 });
  // A year of month partitions, so the plan merges several.
  await ensureRecordPartitions(store.db, new Date('2030-01-01T00:00:00Z'), 12);
});
after(async () => {
  await store?.close();
  await database?.drop();
});

/** Each scan of the plan (not the page's own subquery) with its output columns. */
async function scanOutputs(query: CompiledQuery): Promise<{ scan: string; output: string }[]> {
  const explained = await store.db.executeQuery<{ 'QUERY PLAN': string }>(
    CompiledQuery.raw(`EXPLAIN (VERBOSE, COSTS OFF) ${query.sql}`, [...query.parameters]),
  );
  const lines = explained.rows.map((row) => row['QUERY PLAN']);
  const scans: { scan: string; output: string }[] = [];
  lines.forEach((line, index) => {
    if (!/Scan/.test(line) || /Subquery Scan/.test(line)) return;
    const output = lines.slice(index + 1).find((next) => next.trim().startsWith('Output:'));
    scans.push({ scan: line.trim(), output: output?.trim() ?? '' });
  });
  return scans;
}

test('a page of records with samples converts its json to text after the page is cut, not in the scans', async () => {
  const input = pageInput(
    {
      userId: '00000000-0000-4000-8000-000000000001',
      type: 'activity',
      filter: {
        fromAt: new Date('2030-01-01T00:00:00Z'),
        toAt: new Date('2030-12-31T00:00:00Z'),
        fromDay: '2030-01-01',
        toDay: '2030-12-31',
      },
      limit: 16,
    },
    { at: new Date('2030-03-01T00:00:00Z'), key: 'run-1' },
    null,
  );
  for (const withSamples of [true, false]) {
    const query = pageRecordsQuery(store.db, input, {
      withSamples,
      hasAfter: true,
      hasSince: false,
    }).compile();
    const scans = await scanOutputs(query);
    assert.ok(scans.length > 1, `the plan merges several partitions: ${JSON.stringify(scans)}`);
    for (const { scan, output } of scans) assert.doesNotMatch(output, /::text/, `${scan}: ${output}`);
  }
});
