// The day companions store (features/day-companions, provider-kit/day-companions.ts) on its own:
// what a connector keeps of a day between notifications, read back one day at a time.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Clock } from '../../src/core/clock.ts';
import { countKept } from '../../src/features/day-companions/repo.ts';
import {
  broughtSummaries,
  DayCompanionsTooLarge,
  keepAndReadDay,
  pruneDayCompanions,
} from '../../src/features/day-companions/store.ts';
import type { DaySummary } from '../../src/provider-kit/day-companions.ts';
import { createDeveloper, startTestService, type TestService } from '../helpers/app.ts';
import { insertUser } from '../helpers/users.ts';

const DAY_MS = 86_400_000;
const summary = (id: string, extra: Record<string, unknown> = {}) => ({ summaryId: id, ...extra });
/** One connection's days of one type, as the page intake keeps and reads them. */
type DayStore = {
  keepAndRead(day: string, summaries: readonly DaySummary[], maxBytes: number): Promise<unknown>;
};
const keep = (store: DayStore, day: string, summaries: readonly DaySummary[]) =>
  store.keepAndRead(day, summaries, 64 * 1024 ** 2);
const read = (store: DayStore, day: string, maxBytes: number) =>
  store.keepAndRead(day, [], maxBytes) as Promise<Record<string, unknown[]>>;

describe('day companions store', () => {
  let service: TestService;
  let developerId: string;
  let now = Date.parse('2026-06-01T12:00:00Z');
  const clock: Clock = { now: () => new Date(now) };
  const newConnection = () => insertUser(service.ctx, { developerId, provider: 'GARMIN' });
  const storeOf = (connectionId: string, type = 'daily'): DayStore => ({
    keepAndRead: (day, summaries, maxBytes) =>
      keepAndReadDay(
        service.ctx.db,
        clock.now(),
        { connectionId, type, day },
        broughtSummaries(summaries),
        maxBytes,
      ),
  });

  before(async () => {
    service = await startTestService({ work: false });
    developerId = (await createDeveloper(service.ctx)).devId;
  });
  after(async () => {
    await service?.close();
  });

  test('keeps each summary once by kind and id; a later copy replaces it, an earlier one does not', async () => {
    const store = storeOf(await newConnection());
    await keep(store, '2026-05-30', [
      { kind: 'dailies', id: 'd1', deliveredAt: 1_000, summary: summary('d1', { steps: 1 }) },
      { kind: 'pulseox', id: 'p1', deliveredAt: 1_000, summary: summary('p1') },
    ]);
    await keep(store, '2026-05-30', [
      { kind: 'dailies', id: 'd1', deliveredAt: 2_000, summary: summary('d1', { steps: 2 }) },
      { kind: 'epochs', id: 'e1', deliveredAt: 2_000, summary: summary('e1') },
    ]);
    // A copy Garmin delivered before the kept one (a slower fetch writing last) changes nothing.
    await keep(store, '2026-05-30', [
      { kind: 'dailies', id: 'd1', deliveredAt: 1_500, summary: summary('d1', { steps: 1.5 }) },
    ]);
    assert.deepEqual(await read(store, '2026-05-30', 1024), {
      dailies: [summary('d1', { steps: 2 })],
      epochs: [summary('e1')],
      pulseox: [summary('p1')],
    });
    assert.deepEqual(await read(store, '2026-05-31', 1024), {}, 'another day holds nothing');
  });

  test('a batch gets back the whole day: what it brought and what was kept before', async () => {
    const store = storeOf(await newConnection());
    await keep(store, '2026-05-30', [
      { kind: 'epochs', id: 'e1', deliveredAt: 1_000, summary: summary('e1') },
      { kind: 'dailies', id: 'd1', deliveredAt: 5_000, summary: summary('d1', { steps: 5 }) },
    ]);
    // A later sync's epochs, and a copy of the dailies Garmin delivered before the kept one.
    const day = await keep(store, '2026-05-30', [
      { kind: 'epochs', id: 'e2', deliveredAt: 2_000, summary: summary('e2') },
      { kind: 'dailies', id: 'd1', deliveredAt: 2_000, summary: summary('d1', { steps: 2 }) },
    ]);
    assert.deepEqual(day, {
      dailies: [summary('d1', { steps: 5 })],
      epochs: [summary('e1'), summary('e2')],
    });
  });

  test('of two copies in one batch, the later delivered is kept', async () => {
    const store = storeOf(await newConnection());
    await keep(store, '2026-05-30', [
      { kind: 'dailies', id: 'd1', deliveredAt: 2_000, summary: summary('d1', { steps: 2 }) },
      { kind: 'dailies', id: 'd1', deliveredAt: 1_000, summary: summary('d1', { steps: 1 }) },
    ]);
    assert.deepEqual(await read(store, '2026-05-30', 1024), { dailies: [summary('d1', { steps: 2 })] });
  });

  test('connections, types and days are apart', async () => {
    const a = await newConnection();
    const b = await newConnection();
    await keep(storeOf(a, 'daily'), '2026-05-30', [
      { kind: 'k', id: '1', deliveredAt: 1, summary: 'a-daily' },
    ]);
    await keep(storeOf(a, 'sleep'), '2026-05-30', [
      { kind: 'k', id: '1', deliveredAt: 1, summary: 'a-sleep' },
    ]);
    await keep(storeOf(b, 'daily'), '2026-05-30', [
      { kind: 'k', id: '1', deliveredAt: 1, summary: 'b-daily' },
    ]);
    assert.deepEqual(await read(storeOf(a, 'daily'), '2026-05-30', 1024), { k: ['a-daily'] });
    assert.deepEqual(await read(storeOf(a, 'sleep'), '2026-05-30', 1024), { k: ['a-sleep'] });
    assert.deepEqual(await read(storeOf(b, 'daily'), '2026-05-30', 1024), { k: ['b-daily'] });
  });

  test('two fetches keeping kinds of the same day at once: both are kept', async () => {
    const store = storeOf(await newConnection());
    const many = (kind: string) =>
      Array.from({ length: 300 }, (_, index) => ({
        kind,
        id: String(index),
        deliveredAt: 1,
        summary: summary(String(index)),
      }));
    await Promise.all([
      keep(store, '2026-05-30', many('epochs')),
      keep(store, '2026-05-30', many('pulseox')),
    ]);
    const day = await read(store, '2026-05-30', 1024 ** 2);
    assert.equal(day['epochs']?.length, 300);
    assert.equal(day['pulseox']?.length, 300);
  });

  test('a day is read in pages, whole; one past the reader’s bytes is refused', async () => {
    const store = storeOf(await newConnection());
    const big = 'x'.repeat(1024 ** 2);
    await keep(
      store,
      '2026-05-30',
      Array.from({ length: 9 }, (_, index) => ({
        kind: 'activityDetails',
        id: `a${index}`,
        deliveredAt: 1,
        summary: { summaryId: `a${index}`, samples: big },
      })),
    );
    const day = await read(store, '2026-05-30', 16 * 1024 ** 2);
    assert.deepEqual(
      day['activityDetails']?.map((item) => (item as { summaryId: string }).summaryId),
      ['a0', 'a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7', 'a8'],
    );
    await assert.rejects(read(store, '2026-05-30', 8 * 1024 ** 2), DayCompanionsTooLarge);
  });

  test('a day goes 30 days after its last write, whole; a day still written keeps all it has', async () => {
    const connectionId = await newConnection();
    const store = storeOf(connectionId);
    const start = now;
    await keep(store, '2026-05-01', [{ kind: 'dailies', id: 'd', deliveredAt: 1, summary: 'old' }]);
    await keep(store, '2026-05-02', [{ kind: 'dailies', id: 'd', deliveredAt: 1, summary: 'old' }]);
    now = start + 20 * DAY_MS;
    await keep(store, '2026-05-02', [{ kind: 'pulseox', id: 'p', deliveredAt: 1, summary: 'newer' }]);
    now = start + 31 * DAY_MS;
    await pruneDayCompanions(service.ctx.db, clock.now(), 30);
    assert.deepEqual(await read(store, '2026-05-01', 1024), {}, 'untouched for 31 days: gone');
    assert.deepEqual(await read(store, '2026-05-02', 1024), { dailies: ['old'], pulseox: ['newer'] });
    now = start + 51 * DAY_MS;
    await pruneDayCompanions(service.ctx.db, clock.now(), 30);
    assert.equal(await countKept(service.ctx.db, connectionId), 0);
    now = start;
  });

  test('they go with their connection', async () => {
    const connectionId = await newConnection();
    await keep(storeOf(connectionId), '2026-05-30', [{ kind: 'k', id: '1', deliveredAt: 1, summary: {} }]);
    assert.equal(await countKept(service.ctx.db, connectionId), 1);
    await service.ctx.db.deleteFrom('connections').where('id', '=', connectionId).execute();
    assert.equal(await countKept(service.ctx.db, connectionId), 0);
  });
});

describe('day companions retention (DAY_COMPANIONS_RETENTION_DAYS)', () => {
  let service: TestService;
  let now = Date.parse('2026-06-01T12:00:00Z');
  const clock: Clock = { now: () => new Date(now) };

  before(async () => {
    service = await startTestService({ work: false, clock, env: { DAY_COMPANIONS_RETENTION_DAYS: '7' } });
  });
  after(async () => {
    await service?.close();
  });

  test('the daily maintenance removes a day that many days after its last write, not before', async () => {
    const developerId = (await createDeveloper(service.ctx)).devId;
    const connectionId = await insertUser(service.ctx, { developerId, provider: 'GARMIN' });
    // Written as a fetch keeps a summary, at the service's clock.
    await service.ctx.db
      .insertInto('day_companions')
      .values({
        connection_id: connectionId,
        type: 'daily',
        day: '2026-05-31',
        kind: 'dailies',
        summary_id: 'd',
        delivered_at: clock.now(),
        kept_at: clock.now(),
        summary: '{}',
      })
      .execute();
    const start = now;
    now = start + 6 * DAY_MS;
    await service.ctx.connectors.pruneDayCompanions();
    assert.equal(await countKept(service.ctx.db, connectionId), 1, 'six days on: kept');
    now = start + 8 * DAY_MS;
    await service.ctx.connectors.pruneDayCompanions();
    assert.equal(await countKept(service.ctx.db, connectionId), 0, 'eight days on: gone');
  });
});
