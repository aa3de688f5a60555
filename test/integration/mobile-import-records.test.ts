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
    assert.equal(await rebuildFromStore(first.user_id), 12 + 14 - 5);
    assert.deepEqual(await records(first.user_id), imported);
  });

  /** Marks every day with samples dirty and rebuilds them from the store; how many days it rebuilt. */
  async function rebuildFromStore(userId: string): Promise<number> {
    await service.ctx.db
      .insertInto('mobile_dirty_days')
      .columns(['user_id', 'local_day'])
      .expression((eb) =>
        eb
          .selectFrom('mobile_samples')
          .select(['user_id', 'local_day'])
          .distinct()
          .where('user_id', '=', userId),
      )
      .execute();
    return service.ctx.mobile.settleDirtyDays(userId);
  }

  // The rebuild parses a day's samples when it builds that day (run-samples.ts), and a workout
  // takes the heart rate of whichever days of the run its time reaches: the next day's, for one
  // crossing midnight, and the day after that, for one lasting more than a day.
  test('a workout takes the heart rate of the later days its time reaches', async () => {
    const watch = 'sourceName="Ann’s Apple Watch" sourceVersion="10.2"';
    const heartRate = (at: string, bpm: number) =>
      ` <Record type="HKQuantityTypeIdentifierHeartRate" ${watch} unit="count/min" creationDate="${at}" startDate="${at}" endDate="${at}" value="${bpm}"/>\n`;
    const workout = (type: string, start: string, end: string) =>
      ` <Workout workoutActivityType="${type}" duration="1" durationUnit="min" ${watch} creationDate="${end}" startDate="${start}" endDate="${end}"/>\n`;
    const extra =
      workout('HKWorkoutActivityTypeCycling', '2025-03-02 23:30:00 +0100', '2025-03-03 00:45:00 +0100') +
      workout('HKWorkoutActivityTypeHiking', '2025-03-03 18:00:00 +0100', '2025-03-05 00:30:00 +0100') +
      heartRate('2025-03-02 23:40:00 +0100', 171) +
      heartRate('2025-03-03 00:20:00 +0100', 172) +
      heartRate('2025-03-04 12:10:00 +0100', 173) +
      heartRate('2025-03-05 00:20:00 +0100', 174);
    const xml = exportText({ days: 5, startDay: '2025-03-01', heartRatePerDay: 6 }).replace(
      '</HealthData>',
      `${extra}</HealthData>`,
    );
    const done = await importText(xml, { referenceId: 'records-across-midnight' });
    const imported = await records(done.user_id);
    /** The heart rates of the activity starting at `start` (local time). */
    const bpms = (start: string) => {
      const row = imported.find((record) => record.startsWith('activity ') && record.includes(start));
      assert.ok(row, start);
      return [...row.matchAll(/\\?"bpm\\?":(\d+)/g)].map((match) => Number(match[1]));
    };
    const cycling = bpms('2025-03-02T23:30');
    assert.ok(cycling.includes(171) && cycling.includes(172), `cycling: ${cycling.join(',')}`);
    const hiking = bpms('2025-03-03T18:00');
    assert.ok(hiking.includes(173) && hiking.includes(174), `hiking: ${hiking.join(',')}`);
    await rebuildFromStore(done.user_id);
    assert.deepEqual(await records(done.user_id), imported);
  });
});
