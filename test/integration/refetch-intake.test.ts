// One ingestion path (issue 25, class 10). A notification's or a poll's refetch used to gather a
// whole range in memory, store it in one transaction without its raw payloads and record no
// coverage; reads and backfills flush every 200 records, keep the raw payloads for
// re-normalization and record the days as synced. A refetch now goes through the same intake:
// this drives `refetchChanged` with the sinks the workers give it, over a data source that
// yields 450 activities on 5 pages, and looks at the store while the pages are still coming.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { DataPage, DataSource } from '../../src/provider-kit/data-source.ts';
import type { ProviderDataType } from '../../src/provider-kit/types.ts';
import type { ResolvedProvider } from '../../src/provider-access/catalog.ts';
import { type NotificationSinks, refetchChanged } from '../../src/features/connectors/refetch.ts';
import { findConnectionById } from '../../src/features/connections/repo.ts';
import { wahooNormalizers } from '../../src/providers/wahoo/normalize/index.ts';
import { createDeveloper, startTestService, type TestService } from '../helpers/app.ts';
import { dataRowCounts, insertUser } from '../helpers/users.ts';

const PAGES = 5;
const PER_PAGE = 90;
const DAY_MS = 86_400_000;

/** Wahoo workouts (no FIT file) normalized the way the connector does it: valid activities. */
function activitiesOfPage(page: number, startDay: number) {
  return Array.from({ length: PER_PAGE }, (_, index) => {
    const number = page * PER_PAGE + index;
    const starts = new Date((startDay + (number % 10)) * DAY_MS + 7 * 3_600_000 + number * 60_000);
    const [activity] = wahooNormalizers.workout.normalize(
      {
        workout: {
          id: 10_000 + number,
          starts: starts.toISOString(),
          minutes: 30,
          name: `Ride ${number}`,
          workout_type_id: 0,
          workout_summary: { id: number, distance_accum: '12000.0', duration_total_accum: '1800.0' },
        },
      },
      { userOffsetMinutes: 0 },
    );
    return activity;
  });
}

describe('a refetch goes through the same intake as every sync', () => {
  let service: TestService;
  let userId: string;
  const startDay = Math.floor(Date.now() / DAY_MS) - 20;
  const startDate = new Date(startDay * DAY_MS).toISOString().slice(0, 10);
  const endDate = new Date((startDay + 10) * DAY_MS).toISOString().slice(0, 10);
  /** Records stored when each page was asked for: what the intake had flushed by then. */
  const storedBeforePage: number[] = [];

  before(async () => {
    service = await startTestService({ work: false });
    const developer = await createDeveloper(service.ctx);
    userId = await insertUser(service.ctx, { developerId: developer.devId, provider: 'WAHOO' });
  });
  after(async () => {
    await service?.close();
  });

  const provider = (): ResolvedProvider => {
    const wahoo = service.ctx.providers.get('WAHOO');
    assert.ok(wahoo?.connector);
    const data: DataSource = {
      async *fetch(args) {
        assert.equal(args.type, 'activity');
        for (let page = 0; page < PAGES; page++) {
          storedBeforePage.push((await dataRowCounts(service.ctx, userId)).records);
          const records = activitiesOfPage(page, startDay);
          yield { records, raw: { page, workouts: records.length } } satisfies DataPage;
        }
      },
    };
    return { ...wahoo, connector: { ...wahoo.connector, data } } as ResolvedProvider;
  };

  const sinks = (): NotificationSinks => ({
    intakeChanged: (user, type, range, pages, options) =>
      service.ctx.data.intakeChanged(user, type, range, pages, options),
    removeDeleted: (user, type, ids) => service.ctx.data.removeDeleted(user, type, ids),
    markAccessRevoked: (trx, id) => service.ctx.connecting.markAccessRevoked(trx, id),
  });

  test('stored in batches while the pages come, with raw payloads, coverage and batched events', async () => {
    const user = await findConnectionById(service.ctx.db, userId);
    assert.ok(user);
    const context = service.ctx.connectors.dataContext(user);
    const types: ProviderDataType[] = ['activity'];
    const sent = await refetchChanged(
      service.ctx.db,
      provider(),
      user,
      context,
      { types, startDate, endDate },
      sinks(),
    );
    assert.equal(sent, PAGES * PER_PAGE);
    const counts = await dataRowCounts(service.ctx, userId);
    assert.equal(counts.records, PAGES * PER_PAGE);
    assert.equal(counts.raw, PAGES, 'every page’s raw payload is kept for re-normalization');
    assert.ok(counts.coverage > 0, 'the refetched days are recorded as synced');
    // 450 records never sat in memory together: 200 were stored before the fourth page was asked for.
    assert.equal(storedBeforePage[0], 0);
    assert.ok((storedBeforePage[3] ?? 0) >= 200, storedBeforePage.join(','));
    const events = await service.ctx.db
      .selectFrom('events')
      .select('body')
      .where('user_id', '=', userId)
      .execute();
    // One data event per stored batch (a batch closes at the page that reaches 200 records).
    const sizes = events.map((event) => ((JSON.parse(event.body) as { data?: unknown[] }).data ?? []).length);
    assert.ok(sizes.length >= 2, `events of ${sizes.join(', ')} records`);
    assert.equal(
      sizes.reduce((sum, size) => sum + size, 0),
      PAGES * PER_PAGE,
    );
  });

  test('deleted at the provider: the days are replaced by what the refetch returns', async () => {
    const user = await findConnectionById(service.ctx.db, userId);
    assert.ok(user);
    const wahoo = provider();
    const onlyFirstPage: DataSource = {
      async *fetch() {
        yield { records: activitiesOfPage(0, startDay), raw: { page: 0 } };
      },
    };
    const pruned = { ...wahoo, connector: { ...wahoo.connector!, data: onlyFirstPage } } as ResolvedProvider;
    const context = service.ctx.connectors.dataContext(user);
    await refetchChanged(
      service.ctx.db,
      pruned,
      user,
      context,
      { types: ['activity'], startDate, endDate, deleted: true },
      sinks(),
    );
    assert.equal((await dataRowCounts(service.ctx, userId)).records, PER_PAGE);
    // Each removed activity went out once, marked upload_type 4 (Delete) (issue 41).
    const marked = (await deletionMarked()).map((record) => record.metadata.summary_id);
    assert.equal(marked.length, (PAGES - 1) * PER_PAGE);
    assert.equal(new Set(marked).size, marked.length);
  });

  test('deleted at the provider by id: removed wherever it lies and announced (issue 41)', async () => {
    const user = await findConnectionById(service.ctx.db, userId);
    assert.ok(user);
    const before = await deletionMarked();
    const [first] = activitiesOfPage(0, startDay);
    const id = first!.metadata.summary_id;
    const removed = {
      // Only deletions: no days to fetch again.
      types: [],
      startDate,
      endDate,
      removed: { types: ['activity'] as ProviderDataType[], ids: [id, 'never-stored'] },
    };
    const context = service.ctx.connectors.dataContext(user);
    await refetchChanged(service.ctx.db, provider(), user, context, removed, sinks());
    assert.equal((await dataRowCounts(service.ctx, userId)).records, PER_PAGE - 1);
    const after = await deletionMarked();
    assert.equal(after.length, before.length + 1, 'one record announced; an id never stored is none');
    assert.equal(after.at(-1)?.metadata.summary_id, id);
    // Told again (a poll that overlaps the last): nothing left to remove, nothing sent.
    await refetchChanged(service.ctx.db, provider(), user, context, removed, sinks());
    assert.equal((await deletionMarked()).length, after.length);
  });

  /** Activities sent marked as deleted (upload_type 4), oldest event first. */
  async function deletionMarked() {
    const events = await service.ctx.db
      .selectFrom('events')
      .select('body')
      .where('user_id', '=', userId)
      .orderBy('seq')
      .execute();
    type Sent = { metadata: { summary_id: string; upload_type: number } };
    return events
      .flatMap((event) => (JSON.parse(event.body) as { data?: Sent[] }).data ?? [])
      .filter((record) => record.metadata.upload_type === 4);
  }
});
