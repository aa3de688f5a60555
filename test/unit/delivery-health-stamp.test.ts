// Recording waves of a healthy destination (src/features/delivery/engine-record.ts): its
// `last_success_at` is written at most every SUCCESS_STAMP_MS, also by the waves of a batch that
// read the destination before the stamp (its snapshot still unstamped): those go out as the one
// outcome statement, not as a transaction that rewrites the destination's row again. The
// statements are seen through Kysely's query log over its dummy driver (nothing is executed).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';
import type { JobQueue } from '../../src/jobs/queue.ts';
import type { Db } from '../../src/store/db.ts';
import type { DestinationRow } from '../../src/features/delivery/destination-repo.ts';
import { createWaveRecorder, SUCCESS_STAMP_MS } from '../../src/features/delivery/engine-record.ts';
import { newWave } from '../../src/features/delivery/engine-work.ts';
import type { WebhookSettings } from '../../src/features/delivery/settings.ts';

const START = Date.parse('2026-01-01T00:00:00Z');

function harness() {
  const statements: string[] = [];
  const db = new Kysely<unknown>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (kysely) => new PostgresIntrospector(kysely),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
    log: (event) => {
      statements.push(event.query.sql);
    },
  }) as unknown as Db;
  let now = START;
  const record = createWaveRecorder({
    db,
    jobs: { sendMany: async () => undefined } as unknown as JobQueue,
    clock: { now: () => new Date(now) },
    settings: { failingAfterMs: 86_400_000, disableAfterMs: 5 * 86_400_000 } as WebhookSettings,
    hooks: { afterDelivery: async () => undefined, suppress: async () => new Map() },
  });
  return {
    statements,
    at: (ms: number) => {
      now = START + ms;
    },
    record,
  };
}

/** A batch's snapshot of a healthy webhook that has never been stamped. */
const unstamped = {
  id: 'dest_1',
  developer_id: 'dev_1',
  kind: 'webhook',
  status: 'active',
  consecutive_failures: 0,
  last_success_at: null,
  url: 'https://example.com/hooks',
} as unknown as DestinationRow;

function deliveredWave(index: number) {
  const wave = newWave();
  const at = new Date(START + index);
  wave.outcomes.push({
    id: `delivery_${index}`,
    generation: 0,
    status: 'delivered',
    nextAttemptAt: null,
    statusCode: 204,
    error: null,
    at,
    attempt: {
      developerId: 'dev_1',
      number: 1,
      url: 'https://example.com/hooks',
      attemptedAt: at,
      durationMs: 3,
      outcome: 'delivered',
    },
  });
  wave.health.set(unstamped.id, { successes: 1, failures: 0 });
  return wave;
}

const healthWrites = (statements: string[]) =>
  statements.filter((text) => /update\s+webhook_destinations/i.test(text)).length;

describe('a healthy destination’s success stamp', () => {
  test('is written once per SUCCESS_STAMP_MS, though the batch’s snapshot still shows it unstamped', async () => {
    const { statements, at, record } = harness();
    const routes = new Map([['dest_1', unstamped]]);
    await record(deliveredWave(1), routes);
    assert.equal(healthWrites(statements), 1);
    assert.equal(statements.length, 2, 'the outcomes, then the stamp');

    statements.length = 0;
    at(1_000);
    await record(deliveredWave(2), routes);
    at(SUCCESS_STAMP_MS - 1);
    await record(deliveredWave(3), routes);
    assert.equal(healthWrites(statements), 0);
    assert.equal(statements.length, 2, 'each later wave is its one outcome statement');

    statements.length = 0;
    at(SUCCESS_STAMP_MS + 1);
    await record(deliveredWave(4), routes);
    assert.equal(healthWrites(statements), 1);
  });

  test('a destination with failures on record is still reset by the next success', async () => {
    const { statements, record } = harness();
    const failing = { ...unstamped, consecutive_failures: 3, last_success_at: new Date(START) };
    await record(deliveredWave(1), new Map([['dest_1', failing]]));
    assert.equal(healthWrites(statements), 1);
  });
});
