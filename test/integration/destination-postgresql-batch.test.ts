import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { systemResolver } from '../../src/features/delivery/destination-policy.ts';
import type { KindConnection, KindEvent } from '../../src/features/delivery/kinds/kind.ts';
import { postgresqlKind } from '../../src/features/delivery/kinds/postgresql.ts';
import { withClient } from '../helpers/database.ts';
import {
  createDestinationDatabase,
  DESTINATION_SERVER as SERVER,
  destinationServerSkipReason,
  dropDestinationDatabase,
} from '../helpers/destination-database.ts';

/**
 * The PostgreSQL kind's batches (one transaction for many events) leave the developer's tables
 * exactly as the same events sent one at a time do: newer wins per record and per user, a deauth
 * deletes what came before it and keeps older events from writing again, an athlete is upserted;
 * a batch sent again changes nothing; one event the database refuses is rejected alone.
 */
const skip = await destinationServerSkipReason();

const policy = { environment: 'sandbox' as const, resolve: systemResolver, ownDatabases: [] };
const options = {
  ...policy,
  log: pino({ level: 'silent' }),
  connectTimeoutMs: 5_000,
  deadlineMs: 30_000,
};

let sequence = 0;
function event(type: string, at: number, payload: Record<string, unknown>, id?: string): KindEvent {
  return {
    id: id ?? `evt_batch_${++sequence}`,
    developerId: 'dev_batch',
    type,
    userId: (payload.user as { user_id?: string } | undefined)?.user_id ?? null,
    createdAt: new Date(Date.UTC(2026, 0, 1) + at * 60_000),
    reference: null,
    body: JSON.stringify({ type, ...payload }),
  };
}
const user = (id: string, active = true) => ({
  user_id: id,
  provider: 'OURA',
  reference_id: `ref-${id}`,
  active,
});
const night = (summary: string, asleep: number) => ({
  metadata: { summary_id: summary, start_time: '2026-01-01T23:00:00Z', end_time: '2026-01-02T07:00:00Z' },
  sleep_durations_data: { asleep: { duration_asleep_state_seconds: asleep } },
});

/** One scenario, in delivery order. */
function scenario(): KindEvent[] {
  return [
    event('sleep', 10, { user: user('u1'), data: [night('A', 1), night('A', 2)] }),
    event('sleep', 5, { user: user('u1'), data: [night('A', 99)] }), // older: never wins
    event('sleep', 11, { user: user('u1'), data: [night('B', 3)] }),
    event('sleep', 11, { user: user('u2'), data: [night('A', 4)] }),
    event('athlete', 11, { user: user('u2'), athlete: { first_name: 'Ada' } }),
    event('athlete', 9, { user: user('u2'), athlete: { first_name: 'Old' } }), // older: never wins
    event('deauth', 12, { user: user('u1', false) }),
    event('sleep', 11.5, { user: user('u1'), data: [night('C', 5)] }), // before the deauth: not written
    event('sleep', 13, { user: user('u1'), data: [night('D', 6)] }), // after it: written
    event('sleep', 13, { user: user('u2'), data: [night('A', 7)] }), // a tie: the later one wins
  ];
}

describe('PostgreSQL destination batches', { ...(skip ? { skip } : {}) }, () => {
  const database = `tributary_batch_${randomBytes(5).toString('hex')}`;
  let url = '';
  const connections: KindConnection[] = [];

  async function connect(schema: string): Promise<KindConnection> {
    const settings = await postgresqlKind.parse({ url, schema }, policy);
    const connection = postgresqlKind.connect(settings, options);
    connections.push(connection);
    return connection;
  }

  /** The schema's tables as comparable rows (no timestamps of when they were written). */
  async function contents(schema: string) {
    return withClient(url, async (client) => {
      const rows = async (text: string) => (await client.query(text)).rows as unknown[];
      return {
        events: await rows(
          `SELECT event_id, type, user_id, created_at, payload FROM "${schema}".events ORDER BY 1`,
        ),
        users: await rows(
          `SELECT user_id, provider, reference_id, active, "user", event_created_at, deauthenticated_at FROM "${schema}".users ORDER BY 1`,
        ),
        sleep: await rows(
          `SELECT user_id, record_id, record, event_id, event_created_at FROM "${schema}".sleep ORDER BY 1, 2`,
        ),
        athlete: await rows(
          `SELECT user_id, athlete, event_id, event_created_at FROM "${schema}".athlete ORDER BY 1`,
        ),
      };
    });
  }

  before(async () => {
    url = (await createDestinationDatabase(SERVER, database)).href;
  });
  after(async () => {
    for (const connection of connections) await connection.close();
    await dropDestinationDatabase(SERVER, database).catch(() => undefined);
  });

  test('a batch leaves the tables as the same events one at a time do; sent again, nothing changes', async () => {
    const events = scenario();
    const single = await connect('one_by_one');
    for (const one of events) {
      const result = await single.send(one, new AbortController().signal);
      assert.equal(result.outcome, 'delivered', result.error ?? '');
    }
    const batched = await connect('batched');
    assert.ok(batched.sendBatch, 'the kind takes batches');
    const results = await batched.sendBatch(events, new AbortController().signal);
    assert.deepEqual(
      results.map((result) => result.outcome),
      events.map(() => 'delivered'),
    );
    const expected = await contents('one_by_one');
    assert.deepEqual(await contents('batched'), expected);
    // What the scenario promises, read from the one-at-a-time tables.
    const sleep = expected.sleep as { user_id: string; record: { metadata: { summary_id: string } } }[];
    assert.deepEqual(
      sleep.map((row) => `${row.user_id}:${row.record.metadata.summary_id}`),
      ['u1:D', 'u2:A'],
    );
    await batched.sendBatch(events, new AbortController().signal);
    assert.deepEqual(await contents('batched'), expected, 'the batch again changes nothing');
  });

  test('an event the database refuses is rejected alone; one that is no JSON object too', async () => {
    const connection = await connect('refusing');
    const events = [
      event('sleep', 1, { user: user('u3'), data: [night('E', 1)] }),
      // jsonb holds no \u0000: a data exception (class 22) for this event, which fails the transaction.
      event('sleep', 2, { user: user('u3'), data: [night('bad\u0000id', 2)] }),
      { ...event('sleep', 3, {}), body: '[1]' },
      event('sleep', 4, { user: user('u3'), data: [night('F', 3)] }),
    ];
    const results = await connection.sendBatch!(events, new AbortController().signal);
    assert.deepEqual(
      results.map((result) => result.outcome),
      ['delivered', 'rejected', 'rejected', 'delivered'],
    );
    const stored = await contents('refusing');
    assert.deepEqual(
      (stored.sleep as { record_id: string }[]).map((row) => row.record_id),
      ['E', 'F'],
    );
  });
});
