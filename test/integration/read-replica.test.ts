// Read routing to a real streaming replica (issue 28 item 5): a PostgreSQL primary and a replica
// fed by pg_basebackup, made here (test/helpers/replica-clusters.ts), and a service with
// DATABASE_URL on the primary and DATABASE_READ_URL on the replica.
//
// How the test tells which server answered: it pauses the replica's WAL replay, so the two servers
// disagree on purpose. A record deleted on the primary while replay is paused is still in a read
// of a settled window: that read was served by the replica. A window read for the first time then
// syncs (writes on the primary) and must see those writes: it is answered in full, which the
// paused replica could not have done. Once replay resumes, the replica agrees again.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import type { Db } from '../../src/store/db.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { connectSandboxUser } from '../helpers/connections.ts';
import {
  type ReplicaClusters,
  replicaSkipReason,
  startReplicaClusters,
} from '../helpers/replica-clusters.ts';
import { until } from '../helpers/until.ts';

const skip = replicaSkipReason();

type Envelope = { data: { metadata: { summary_id?: string; start_time: string } }[] };

async function query<T extends object>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

describe('reads of settled days are served by the read replica', { skip }, () => {
  let clusters: ReplicaClusters | undefined;
  let service: TestService | undefined;
  let developer: TestDeveloper;
  let userId: string;

  before(async () => {
    clusters = await startReplicaClusters();
    service = await startTestService({
      env: {
        DATABASE_URL: clusters.primaryUrl,
        DATABASE_READ_URL: clusters.replicaUrl,
        SANDBOX_ARRIVAL_MINUTES: 'off',
      },
      // No workers: nothing but the reads below writes records (no backfill after connecting).
      work: false,
    });
    developer = await createDeveloper(service.ctx);
    ({ userId } = await connectSandboxUser(service.app, developer));
  });
  after(async () => {
    await service?.close();
    await clusters?.close();
  });

  const read = async (type: string, start: string, end: string) => {
    const response = await service!.app.inject({
      method: 'GET',
      url: `/v2/${type}?user_id=${userId}&start_date=${start}&end_date=${end}&to_webhook=false`,
      headers: developer.headers,
    });
    assert.equal(response.statusCode, 200, response.body);
    return (JSON.parse(response.body) as Envelope).data;
  };
  const replicaCaughtUp = async () => {
    const [primary] = await query<{ lsn: string }>(
      clusters!.primaryUrl,
      'SELECT pg_current_wal_lsn()::text AS lsn',
    );
    await until("the replica to replay the primary's WAL", async () => {
      const [replica] = await query<{ behind: boolean }>(
        clusters!.replicaUrl,
        'SELECT pg_last_wal_replay_lsn() < $1::pg_lsn AS behind',
        [primary!.lsn],
      );
      return replica?.behind === false;
    });
  };

  test('the read connection is a replica in recovery, the primary is not', async () => {
    const recovery = async (db: Db) =>
      (
        await db
          .selectNoFrom((eb) => eb.fn<boolean>('pg_is_in_recovery', []).as('standby'))
          .executeTakeFirstOrThrow()
      ).standby;
    assert.equal(await recovery(service!.store.readDb), true);
    assert.equal(await recovery(service!.store.db), false);
  });

  test('settled reads come from the replica; reads that wrote first stay on the primary', async () => {
    const schema = service!.store.postgres!.schema;
    // A first read syncs the window from the sandbox provider: written and read on the primary.
    const first = await read('daily', '2024-03-01', '2024-03-08');
    assert.equal(first.length, 7);
    await replicaCaughtUp();

    await query(clusters!.replicaUrl, 'SELECT pg_wal_replay_pause()');
    try {
      const deleted = await query<{ key: string }>(
        clusters!.primaryUrl,
        `DELETE FROM ${schema}.data_records WHERE user_id = $1 AND type = 'daily' AND anchor_day = '2024-03-04'
         RETURNING identity_key AS key`,
        [userId],
      );
      assert.equal(deleted.length, 1);

      // Served by the replica: the record deleted on the primary is still there.
      assert.equal((await read('daily', '2024-03-01', '2024-03-08')).length, 7);
      const onReplica = await query<{ n: number }>(
        clusters!.replicaUrl,
        `SELECT count(*)::int AS n FROM ${schema}.data_records WHERE user_id = $1 AND type = 'daily'`,
        [userId],
      );
      assert.equal(onReplica[0]?.n, 7);

      // A window never read before is synced by its read: the answer must hold what it just wrote,
      // which the paused replica has not seen.
      assert.equal((await read('daily', '2024-04-01', '2024-04-06')).length, 5);
      // A window reaching today is never settled: primary, so the deletion shows there.
      const today = new Date().toISOString().slice(0, 10);
      const recent = await read('daily', '2024-03-01', today);
      assert.ok(!recent.some((record) => record.metadata.start_time.startsWith('2024-03-04')));
    } finally {
      await query(clusters!.replicaUrl, 'SELECT pg_wal_replay_resume()');
    }
    await replicaCaughtUp();
    // The replica has replayed the deletion: the same settled read now agrees with the primary.
    assert.equal((await read('daily', '2024-03-01', '2024-03-08')).length, 6);
  });
});
