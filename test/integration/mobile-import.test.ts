import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Readable } from 'node:stream';
import { heapGrowth } from '../../src/core/heap-growth.ts';
import { IMPORT_QUEUE } from '../../src/features/mobile/ports.ts';
import {
  createDeveloper,
  problemOf,
  startTestService,
  type TestDeveloper,
  type TestService,
} from '../helpers/app.ts';
import { exportText, GENERATED_DAY, zipArchive } from '../helpers/apple-export.ts';
import { waitForJobsSettled } from '../helpers/jobs.ts';
import { missingShared, readShared } from '../helpers/shared-reference.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- wire JSON, asserted field by field
type Wire = Record<string, any>;
type ImportView = {
  import_id: string;
  user_id: string;
  status: string;
  bytes_read: number;
  total_bytes: number;
  records_read: number;
  records_imported: number;
  error?: string;
};

const SAMPLES = 'reference/mobile-samples/apple-health';
/** Real exports are third-party files in the shared reference: the tests reading them skip without it. */
const missingSamples = missingShared(SAMPLES);
const sample = (name: string) => readShared(`${SAMPLES}/${name}`);

describe('Apple Health export import', () => {
  let service: TestService;
  let developer: TestDeveloper;

  before(async () => {
    service = await startTestService();
    developer = await createDeveloper(service.ctx);
  });
  after(async () => {
    await service?.close();
  });

  const post = (query: string, body: Buffer | string, contentType: string) =>
    service.app.inject({
      method: 'POST',
      url: `/v2/import/apple-health?${query}`,
      headers: { ...developer.headers, 'content-type': contentType },
      payload: body,
    });

  /** Posts an export and waits for its import job; returns the final progress. */
  async function importAndSettle(
    query: string,
    body: Buffer | string,
    contentType: string,
  ): Promise<ImportView> {
    const response = await post(query, body, contentType);
    assert.equal(response.statusCode, 202, response.body);
    const started = response.json() as ImportView;
    assert.equal(started.status, 'queued');
    await waitForJobsSettled(service.ctx, IMPORT_QUEUE, { id: started.import_id });
    const status = await service.app.inject({
      method: 'GET',
      url: `/v2/import/${started.import_id}`,
      headers: developer.headers,
    });
    assert.equal(status.statusCode, 200, status.body);
    return status.json() as ImportView;
  }

  const read = async (userId: string, type: string, from: string, to: string): Promise<Wire[]> => {
    const response = await service.app.inject({
      method: 'GET',
      url: `/v2/${type}?user_id=${userId}&start_date=${from}&end_date=${to}&to_webhook=false&with_samples=true`,
      headers: developer.headers,
    });
    assert.equal(response.statusCode, 200, response.body);
    return (response.json() as { data: Wire[] }).data;
  };
  const eventCount = async (userId: string) =>
    (await service.ctx.db.selectFrom('events').select('id').where('user_id', '=', userId).execute()).length;

  test('a real export.xml by reference_id creates an APPLE user; the same export as export.zip adds nothing', async (t) => {
    if (missingSamples) return t.skip(missingSamples);
    const xml = sample('apple-health-parser.export.xml');
    const first = await importAndSettle('reference_id=alex', xml, 'application/xml');
    assert.equal(first.status, 'completed', first.error);
    assert.equal(first.total_bytes, xml.length);
    assert.equal(first.bytes_read, xml.length);
    assert.equal(first.records_read, 8);
    const info = await service.app.inject({
      method: 'GET',
      url: `/v2/userInfo?user_id=${first.user_id}`,
      headers: developer.headers,
    });
    assert.equal((info.json() as Wire).user.provider, 'APPLE');
    assert.equal((info.json() as Wire).user.reference_id, 'alex');

    // 01:01 +02:00 on Jan 1st: the export's own offset places the heart rate on Jan 1st.
    const [daily] = await read(first.user_id, 'daily', '2024-01-01', '2024-01-02');
    assert.deepEqual(
      daily!.heart_rate_data.detailed.hr_samples.map((s: Wire) => s.bpm),
      [74, 75],
    );
    assert.equal(daily!.calories_data.net_activity_calories, 0.12);
    // The sleep records carry HKTimeZone Europe/Amsterdam (+01:00 in January), which wins over
    // the +0200 the export wrote.
    const sleeps = await read(first.user_id, 'sleep', '2023-12-31', '2024-01-02');
    assert.equal(sleeps.length, 1);
    assert.match(sleeps[0]!.metadata.start_time, /\+01:00$/);
    const events = await eventCount(first.user_id);

    const again = await importAndSettle(
      `user_id=${first.user_id}`,
      sample('apple-health-parser.export.zip'),
      'application/zip',
    );
    assert.equal(again.status, 'completed', again.error);
    assert.equal(again.user_id, first.user_id);
    assert.equal(again.records_read, 8);
    assert.equal(await eventCount(first.user_id), events, 'a re-import changes no day, so sends no event');
    assert.equal((await read(first.user_id, 'daily', '2024-01-01', '2024-01-02')).length, 1);
  });

  test('a real version 8 export as multipart: workout (miles, HKTimeZone), BMI, activity summary', async (t) => {
    if (missingSamples) return t.skip(missingSamples);
    const boundary = 'tributary-test-boundary';
    const xml = sample('healthkit-to-sqlite.export.xml');
    const body = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="export.xml"\r\nContent-Type: application/xml\r\n\r\n`,
      ),
      xml,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const result = await importAndSettle(
      'reference_id=simon',
      body,
      `multipart/form-data; boundary=${boundary}`,
    );
    assert.equal(result.status, 'completed', result.error);
    assert.equal(result.records_read, 5);
    const [run] = await read(result.user_id, 'activity', '2016-11-14', '2016-11-15');
    assert.equal(run!.metadata.type, 8, 'RUNNING');
    assert.equal(
      run!.metadata.start_time,
      '2016-11-14T06:25:41.000000-08:00',
      'HKTimeZone America/Los_Angeles',
    );
    assert.equal(run!.distance_data.summary.distance_meters, 800.13);
    assert.equal(run!.calories_data.net_activity_calories, 48.74);
    const [body2016] = await read(result.user_id, 'body', '2016-04-18', '2016-04-19');
    assert.equal(body2016!.measurements_data.measurements[0].BMI, 22.5312);
    const [summary] = await read(result.user_id, 'daily', '2016-11-15', '2016-11-16');
    assert.equal(summary!.calories_data.net_activity_calories, 590.25);
    assert.equal(summary!.active_durations_data.standing_hours_count, 13);
  });

  test('a real export.zip whose workout route is a GPX file of the archive', async (t) => {
    if (missingSamples) return t.skip(missingSamples);
    const folder = 'healthkit-to-sqlite-zip/apple_health_export/';
    const route = 'workout-routes/route_2019-06-11_3.00pm.gpx';
    const zip = zipArchive([
      { name: `apple_health_export/${route}`, data: sample(`${folder}${route}`) },
      { name: 'apple_health_export/export.xml', data: sample(`${folder}export.xml`) },
    ]);
    const result = await importAndSettle('reference_id=gpx', zip, 'application/zip');
    assert.equal(result.status, 'completed', result.error);
    const [run] = await read(result.user_id, 'activity', '2016-11-14', '2016-11-15');
    const points = run!.position_data.position_samples as Wire[];
    assert.equal(points.length, 3);
    assert.deepEqual(points[0]!.coords_lat_lng_deg, [37.781672, -122.396397]);
    assert.deepEqual(run!.position_data.end_pos_lat_lng_deg, [37.78167, -122.396394]);
  });

  test('a generated export.zip with the iOS 16 DTD defect and a control character imports, deduplicated', async () => {
    const xml = Buffer.from(
      exportText({ days: 3, startDay: '2026-03-01', brokenDtd: true, controlCharacter: true }),
    );
    const zip = zipArchive([
      { name: 'apple_health_export/export_cda.xml', data: Buffer.from('<ClinicalDocument/>junk') },
      { name: 'apple_health_export/export.xml', data: xml },
    ]);
    const result = await importAndSettle('reference_id=gen-1', zip, 'application/zip');
    assert.equal(result.status, 'completed', result.error);
    assert.equal(result.total_bytes, xml.length, 'progress counts the inflated export.xml');
    assert.equal(result.records_read, 3 * (5 + 24 + 2));
    const days = await read(result.user_id, 'daily', '2026-03-01', '2026-03-04');
    assert.equal(days.length, 3);
    for (const day of days) {
      assert.equal(day.distance_data.steps, GENERATED_DAY.steps);
      assert.equal(day.device_data.name, 'Ann’s Apple Watch', 'the control character became a space');
    }
    const walks = await read(result.user_id, 'activity', '2026-03-01', '2026-03-04');
    assert.equal(walks.length, 3);
    assert.equal(walks[0]!.heart_rate_data.summary.avg_hr_bpm, 104);
    assert.equal(walks[0]!.position_data.position_samples.length, 2);
    const [weighed] = await read(result.user_id, 'body', '2026-03-01', '2026-03-02');
    assert.equal(
      Math.round(weighed!.measurements_data.measurements[0].weight_kg * 100) / 100,
      69.85,
      '154 lb',
    );
  });

  test('an import interrupted after a checkpoint resumes where it stopped', async () => {
    const xml = exportText({ days: 80, startDay: '2025-01-01', heartRatePerDay: 60 });
    const started = await service.ctx.mobile.startImport({
      developerId: developer.devId,
      format: 'apple-health',
      referenceId: 'resume-1',
      body: Readable.from([Buffer.from(xml)]),
      enqueue: false,
    });
    // The process "dies" right after the first batch was stored (and checkpointed).
    await assert.rejects(
      service.ctx.mobile.runImport(started.import_id, () => {
        throw new Error('simulated crash');
      }),
      /simulated crash/,
    );
    const interrupted = (await service.ctx.mobile.importStatus(developer.devId, started.import_id))!;
    assert.equal(interrupted.status, 'running');
    assert.ok(
      interrupted.records_read > 0 && interrupted.records_read < 80 * 67,
      String(interrupted.records_read),
    );
    const resumed = (await service.ctx.mobile.runImport(started.import_id))!;
    assert.equal(resumed.status, 'completed');
    assert.equal(resumed.records_read, 80 * 67);
    assert.equal(resumed.records_imported, 80 * 67, 'the stored batch was not taken in twice');
    const days = await read(resumed.user_id, 'daily', '2025-01-01', '2025-03-22');
    assert.equal(days.length, 80);
    assert.ok(days.every((day) => day.distance_data.steps === GENERATED_DAY.steps));
  });

  test('an import holds the larger heap growth while it stores batches, and lets it go when it ends or dies', async () => {
    const xml = exportText({ days: 80, startDay: '2024-01-01', heartRatePerDay: 60 });
    const start = (referenceId: string) =>
      service.ctx.mobile.startImport({
        developerId: developer.devId,
        format: 'apple-health',
        referenceId,
        body: Readable.from([Buffer.from(xml)]),
        enqueue: false,
      });
    assert.equal(heapGrowth.held(), false);
    const dying = await start('growth-1');
    await assert.rejects(
      service.ctx.mobile.runImport(dying.import_id, () => {
        assert.equal(heapGrowth.held(), true, 'held while a batch is stored');
        throw new Error('simulated crash');
      }),
      /simulated crash/,
    );
    assert.equal(heapGrowth.held(), false, 'let go when the import died');
    const seen: boolean[] = [];
    const finished = (await service.ctx.mobile.runImport((await start('growth-2')).import_id, () =>
      seen.push(heapGrowth.held()),
    ))!;
    assert.equal(finished.status, 'completed');
    // Every report but the last (the completed import's, after the rebuild) comes while batches are stored.
    assert.ok(seen.length > 1 && seen.slice(0, -1).every(Boolean), String(seen));
    assert.deepEqual(seen.at(-1), false, 'not held for the rebuild');
    assert.equal(heapGrowth.held(), false, 'let go when the import ended');
  });

  test('an import compiles what its rebuild writes while the reader reads, before the first batch is stored', async () => {
    const data = service.ctx.data as { prepareWrites?: (types: readonly string[]) => Promise<void> };
    const original = data.prepareWrites;
    const prepared: { types: string[]; batchesStored: number }[] = [];
    let batchesStored = 0;
    data.prepareWrites = (types) => {
      prepared.push({ types: [...types], batchesStored });
      return original!.call(data, types);
    };
    try {
      const started = await service.ctx.mobile.startImport({
        developerId: developer.devId,
        format: 'apple-health',
        referenceId: 'prepare-1',
        body: Readable.from([
          Buffer.from(exportText({ days: 30, startDay: '2023-03-01', heartRatePerDay: 60 })),
        ]),
        enqueue: false,
      });
      const final = await service.ctx.mobile.runImport(started.import_id, (view) => {
        if (view.status === 'running') batchesStored++;
      });
      assert.equal(final?.status, 'completed');
    } finally {
      data.prepareWrites = original;
    }
    assert.deepEqual(prepared, [
      { types: ['daily', 'body', 'nutrition', 'menstruation', 'sleep', 'activity'], batchesStored: 0 },
    ]);
  });

  test('bad imports get clear problems; a file that is not an export fails the import with a reason', async () => {
    assert.equal(problemOf(await post('', '<HealthData/>', 'application/xml')).status, 400);
    const both = problemOf(await post('user_id=a&reference_id=b', '<HealthData/>', 'application/xml'));
    assert.equal(both.status, 400);
    assert.match(both.body.detail, /exactly one of user_id and reference_id/);
    const unknown = await service.app.inject({
      method: 'POST',
      url: '/v2/import/fitbit-takeout?reference_id=x',
      headers: { ...developer.headers, 'content-type': 'application/xml' },
      payload: '<HealthData/>',
    });
    assert.equal(problemOf(unknown).status, 404);
    assert.equal(problemOf(await post('reference_id=x', 'hello', 'text/plain')).status, 415);
    assert.equal(problemOf(await post('reference_id=x', '', 'application/xml')).status, 400);
    const noUser = problemOf(
      await post('user_id=00000000-0000-4000-8000-000000000000', '<HealthData/>', 'application/xml'),
    );
    assert.equal(noUser.status, 404);
    const notXml = await importAndSettle(
      'reference_id=broken',
      'PK this is not really anything',
      'application/xml',
    );
    assert.equal(notXml.status, 'failed');
    assert.match(notXml.error ?? '', /not well-formed|zip/);
    const missing = await service.app.inject({
      method: 'GET',
      url: '/v2/import/not-an-id',
      headers: developer.headers,
    });
    assert.equal(problemOf(missing).status, 404);
  });
});
