// mobile_samples has no foreign key to connections (migration 0051: checking it per row was ~40 %
// of an import batch). What it guaranteed is checked here: deleting a connection deletes its
// samples (a trigger), the erasure receipt counts them, and a batch racing the deletion leaves
// no sample behind whichever of the two takes the connection's row first (the upsert's key-share
// lock). Each race is ordered by awaiting the other side's wait on the lock, never by a delay.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { deleteConnection } from '../../src/features/connections/repo.ts';
import { upsertSamples } from '../../src/features/mobile/samples-repo.ts';
import { encodeSampleRows } from '../../src/features/mobile/sample-rows.ts';
import type { Db } from '../../src/store/db.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { sdkConnect } from '../helpers/mobile.ts';

const rowsOf = (ids: string[]) =>
  encodeSampleRows({
    ids,
    kinds: ids.map(() => 'steps'),
    days: ids.map(() => '2026-11-01'),
    // Milliseconds since the epoch, as sample-rows.ts writes them.
    starts: ids.map(() => String(Date.parse('2026-11-01T08:00:00.000Z'))),
    ends: ids.map(() => String(Date.parse('2026-11-01T08:10:00.000Z'))),
    bodies: ids.map((id) => JSON.stringify({ id })),
  });

/** A gate opened from outside: a transaction held open until the test says. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe('mobile samples without a foreign key: erased with their connection, never orphaned', () => {
  let service: TestService;
  let developer: TestDeveloper;

  before(async () => {
    // No queue workers: the races below hold two of the store's few connections at once.
    service = await startTestService({ work: false });
    developer = await createDeveloper(service.ctx);
  });
  after(async () => {
    await service?.close();
  });

  const samplesOf = async (userId: string) =>
    Number(
      (
        await service.ctx.db
          .selectFrom('mobile_samples')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where('user_id', '=', userId)
          .executeTakeFirstOrThrow()
      ).n,
    );

  /** Resolves once some backend waits on a lock that backend `pid` holds. */
  async function blockedBy(pid: number): Promise<void> {
    for (;;) {
      const { rows } = await sql<{ n: string }>`
        SELECT count(*)::text AS n FROM pg_stat_activity
        WHERE ${pid}::int = ANY (pg_blocking_pids(pid))`.execute(service.ctx.db);
      if (Number(rows[0]!.n) > 0) return;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Runs `work` in a transaction that stays open, holding its locks, until the gate opens. */
  function heldTransaction(work: (trx: Db) => Promise<unknown>) {
    const { open, opened } = gate();
    let started!: (pid: number) => void;
    let failed!: (error: unknown) => void;
    const pid = new Promise<number>((resolve, reject) => ((started = resolve), (failed = reject)));
    const done = service.ctx.db.transaction().execute(async (trx) => {
      await work(trx);
      const { rows } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(trx);
      started(rows[0]!.pid);
      await opened;
    });
    done.catch(failed);
    return { pid, commit: async () => (open(), done) };
  }

  test("deauthentication deletes the user's samples and the erasure receipt counts them", async () => {
    const { userId } = await sdkConnect(service.app, developer, 'APPLE', 'erased');
    await upsertSamples(service.ctx.db, userId, rowsOf(['a', 'b', 'c']));
    assert.equal(await samplesOf(userId), 3);

    const deauth = await service.app.inject({
      method: 'DELETE',
      url: `/v2/auth/deauthenticateUser?user_id=${userId}`,
      headers: developer.headers,
    });
    assert.equal(deauth.statusCode, 200, deauth.body);
    assert.equal(await samplesOf(userId), 0, 'samples gone with the user');
    const receipt = await service.app.inject({
      method: 'GET',
      url: `/v2/users/${userId}/erasure-receipt`,
      headers: developer.headers,
    });
    assert.equal(receipt.statusCode, 200, receipt.body);
    const { deleted_rows } = (receipt.json() as { receipt: { deleted_rows: Record<string, number> } })
      .receipt;
    assert.equal(deleted_rows['mobile_samples'], 3);
  });

  test('a batch written while a deletion holds the user waits for it, then writes nothing', async () => {
    const { userId } = await sdkConnect(service.app, developer, 'APPLE', 'deleted-first');
    const deletion = heldTransaction((trx) => deleteConnection(trx, userId));
    const deleting = await deletion.pid;
    const batch = upsertSamples(service.ctx.db, userId, rowsOf(['d', 'e']));
    await blockedBy(deleting);
    await deletion.commit();
    assert.deepEqual([...(await batch)], [], 'no day marked: nothing written');
    assert.equal(await samplesOf(userId), 0, 'no orphaned sample');
  });

  test('a deletion while a batch holds the user waits for its commit, then deletes its samples', async () => {
    const { userId } = await sdkConnect(service.app, developer, 'APPLE', 'batch-first');
    const batch = heldTransaction((trx) => upsertSamples(trx, userId, rowsOf(['f', 'g'])));
    const batching = await batch.pid;
    const deletion = service.ctx.db.transaction().execute((trx) => deleteConnection(trx, userId));
    await blockedBy(batching);
    await batch.commit();
    assert.equal(await deletion, true);
    assert.equal(await samplesOf(userId), 0, 'no orphaned sample');
  });

  test('a batch for a user already gone writes nothing', async () => {
    const { userId } = await sdkConnect(service.app, developer, 'APPLE', 'gone');
    assert.equal(await service.ctx.db.transaction().execute((trx) => deleteConnection(trx, userId)), true);
    assert.deepEqual([...(await upsertSamples(service.ctx.db, userId, rowsOf(['h'])))], []);
    assert.equal(await samplesOf(userId), 0);
  });
});
