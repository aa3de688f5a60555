// An import rebuilds the days it changed from the samples it still holds in memory (issue 28);
// the records that makes must be exactly those a rebuild reading every sample back from the store
// makes. The second export overlaps days the first one filled, so some of its days hold samples
// the import never saw and must be read from the store.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Readable } from 'node:stream';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { exportText } from '../helpers/apple-export.ts';

describe('Apple Health export import: records rebuilt from memory', () => {
  let service: TestService;
  let developer: TestDeveloper;

  before(async () => {
    service = await startTestService();
    developer = await createDeveloper(service.ctx);
  });
  after(async () => {
    await service?.close();
  });

  async function importText(xml: string, target: { referenceId?: string; userId?: string }) {
    const started = await service.ctx.mobile.startImport({
      developerId: developer.devId,
      format: 'apple-health',
      ...target,
      body: Readable.from([Buffer.from(xml)]),
      enqueue: false,
    });
    const done = await service.ctx.mobile.runImport(started.import_id);
    assert.equal(done?.status, 'completed', done?.error);
    return done!;
  }

  /** Every record stored for the user, as text, in a stable order. */
  async function records(userId: string): Promise<string[]> {
    const rows = await service.ctx.db
      .selectFrom('data_records')
      .select(['type', 'identity_key', 'summary', 'samples'])
      .where('user_id', '=', userId)
      .orderBy('type')
      .orderBy('identity_key')
      .execute();
    return rows.map(
      (row) =>
        `${row.type} ${row.identity_key} ${JSON.stringify(row.summary)} ${JSON.stringify(row.samples)}`,
    );
  }

  test('the records of an import are those a rebuild from the stored samples makes', async () => {
    const first = await importText(exportText({ days: 12, startDay: '2025-06-01', heartRatePerDay: 30 }), {
      referenceId: 'records-1',
    });
    // Overlaps June 8th-12th with other heart rates (another count per day: other ids) and the
    // same steps, workouts and weights (the same ids, stored unchanged).
    await importText(exportText({ days: 14, startDay: '2025-06-08', heartRatePerDay: 17 }), {
      userId: first.user_id,
    });
    const imported = await records(first.user_id);
    assert.ok(imported.length > 0);
    assert.ok(imported.some((record) => record.startsWith('activity ')));

    // Every day with samples rebuilt again, all read from the store.
    await service.ctx.db
      .insertInto('mobile_dirty_days')
      .columns(['user_id', 'local_day'])
      .expression((eb) =>
        eb
          .selectFrom('mobile_samples')
          .select(['user_id', 'local_day'])
          .distinct()
          .where('user_id', '=', first.user_id),
      )
      .execute();
    const rebuiltDays = await service.ctx.mobile.settleDirtyDays(first.user_id);
    assert.equal(rebuiltDays, 12 + 14 - 5);
    assert.deepEqual(await records(first.user_id), imported);
  });
});
