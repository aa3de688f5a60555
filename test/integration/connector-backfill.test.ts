// Backfill chunks on the real store with a scripted sync: newest chunk first, the cursor only
// moves once a chunk is stored (so a failed or crashed chunk is simply run again), a rate limit
// parks the chain until the window reopens, a refused connection stops it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  BACKFILL_QUEUE,
  type BackfillJob,
  type BackfillSync,
} from '../../src/features/connectors/backfill.ts';
import { addDays, dayNumberToIsoDate, MS_PER_DAY } from '../../src/model/time.ts';
import { ProviderDataError } from '../../src/provider-kit/data-source.ts';
import { createDeveloper, startTestService, type TestService } from '../helpers/app.ts';
import { insertUser } from '../helpers/users.ts';

describe('backfill chunks', () => {
  let service: TestService;
  let developerId: string;
  const calls: [string, string][] = [];
  let failWith: ProviderDataError | null = null;
  const sync: BackfillSync = {
    async syncDays(_user, _type, from, to) {
      calls.push([from, to]);
      if (failWith) throw failWith;
    },
    async syncAthlete() {},
  };
  const progressOf = async (userId: string) => (await service.ctx.connectors.backfill.progress(userId))[0];
  const queued = async (userId: string) => {
    const rows = await service.ctx.jobs
      .boss()
      .findJobs<BackfillJob>(BACKFILL_QUEUE, { data: { userId, type: 'activity' }, queued: true });
    return rows;
  };

  before(async () => {
    // Workers off: the test runs each chunk itself.
    service = await startTestService({
      env: { WHOOP_CLIENT_ID: 'id', WHOOP_CLIENT_SECRET: 'secret' },
      work: false,
    });
    developerId = (await createDeveloper(service.ctx)).devId;
  });
  after(async () => service?.close());

  test('90 days newest first in 30-day chunks; a failed chunk leaves the cursor where it was', async () => {
    const userId = await insertUser(service.ctx, { developerId, provider: 'WHOOP' });
    await service.ctx.db
      .transaction()
      .execute((trx) => service.ctx.connectors.onConnected(trx, { userId, provider: 'WHOOP' }));
    const all = await service.ctx.connectors.backfill.progress(userId);
    assert.deepEqual(all.map((row) => row.type).sort(), ['activity', 'athlete', 'body', 'daily', 'sleep']);
    // Only one type is driven below; the rest stay planned.
    await service.ctx.db
      .deleteFrom('connector_backfills')
      .where('user_id', '=', userId)
      .where('type', '!=', 'activity')
      .execute();
    const end = dayNumberToIsoDate(Math.floor(Date.now() / MS_PER_DAY) + 1);
    const job: BackfillJob = { userId, type: 'activity' };
    assert.ok((await queued(userId)).length >= 1, 'the first chunk was queued with the connection');

    await service.ctx.connectors.backfill.runChunk(job, sync);
    assert.deepEqual(calls.at(-1), [addDays(end, -30), end]);
    assert.equal((await progressOf(userId))?.cursorDay, addDays(end, -30));

    failWith = new ProviderDataError('unavailable', 'provider down');
    await assert.rejects(service.ctx.connectors.backfill.runChunk(job, sync), ProviderDataError);
    let progress = await progressOf(userId);
    assert.equal(progress?.cursorDay, addDays(end, -30), 'not moved: the retry runs the same chunk');
    assert.equal(progress?.lastError, 'provider down');

    failWith = new ProviderDataError('rate_limited', 'slow down', { retryAfterSeconds: 600 });
    await service.ctx.connectors.backfill.runChunk(job, sync);
    progress = await progressOf(userId);
    assert.equal(progress?.status, 'waiting');
    assert.equal(progress?.cursorDay, addDays(end, -30));
    const parked = (await queued(userId)).find((row) => row.startAfter.getTime() > Date.now() + 500_000);
    assert.ok(parked, 'the chunk is queued again for when the window reopens');

    failWith = null;
    await service.ctx.connectors.backfill.runChunk(job, sync);
    await service.ctx.connectors.backfill.runChunk(job, sync);
    progress = await progressOf(userId);
    assert.deepEqual(calls.slice(-2), [
      [addDays(end, -60), addDays(end, -30)],
      [addDays(end, -90), addDays(end, -60)],
    ]);
    assert.equal(progress?.status, 'done');
    assert.equal(progress?.chunksDone, progress?.chunksTotal);
    const before = calls.length;
    await service.ctx.connectors.backfill.runChunk(job, sync);
    assert.equal(calls.length, before, 'a finished backfill does nothing more');
  });

  test('a connection that can no longer authorize stops its backfill', async () => {
    const userId = await insertUser(service.ctx, { developerId, provider: 'WHOOP' });
    await service.ctx.db
      .transaction()
      .execute((trx) => service.ctx.connectors.onConnected(trx, { userId, provider: 'WHOOP' }));
    failWith = new ProviderDataError('unauthorized', 'refused');
    await service.ctx.connectors.backfill.runChunk({ userId, type: 'daily' }, sync);
    const daily = (await service.ctx.connectors.backfill.progress(userId)).find(
      (row) => row.type === 'daily',
    );
    assert.equal(daily?.status, 'failed');
    failWith = null;
  });
});
