// Plausible values at the boundary (issue 24 §4). A record dated 9999-12-31 used to overflow the
// day arithmetic; PostgreSQL refused the timestamp after the upload row was gone, the retry
// "completed" with nothing, and every later upload of that user was lost, silently. Now such a
// record is refused with its reason in the 202 answer, the good records of the same batch are
// kept, later uploads are read, and the upload is deleted only after its work committed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { IMPORT_QUEUE } from '../../src/features/mobile/ports.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { sdkConnect } from '../helpers/mobile.ts';
import { waitForJobsSettled } from '../helpers/jobs.ts';
import { NORMALIZE_UPLOAD_QUEUE } from '../../src/features/mobile/ports.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- wire JSON, asserted field by field
type Wire = Record<string, any>;

const PHONE = { sourceName: 'Phone', device: 'name:iPhone, model:iPhone' };
let counter = 0;
const steps = (value: number, start: string, end: string) => ({
  uuid: `plausible-${++counter}`,
  type: 'HKQuantityTypeIdentifierStepCount',
  unit: 'count',
  value,
  ...PHONE,
  startDate: start,
  endDate: end,
});

describe('plausible values at the boundary', () => {
  let service: TestService;
  let developer: TestDeveloper;

  before(async () => {
    service = await startTestService();
    developer = await createDeveloper(service.ctx);
  });
  after(async () => {
    await service?.close();
  });

  const read = async (userId: string, type: string, from: string, to: string): Promise<Wire[]> => {
    const response = await service.app.inject({
      method: 'GET',
      url: `/v2/${type}?user_id=${userId}&start_date=${from}&end_date=${to}&to_webhook=false`,
      headers: developer.headers,
    });
    assert.equal(response.statusCode, 200, response.body);
    return (response.json() as { data: Wire[] }).data;
  };

  async function upload(uploadToken: string, payload: object) {
    const response = await service.app.inject({
      method: 'POST',
      url: '/v2/sdk/upload',
      headers: { authorization: `Bearer ${uploadToken}` },
      payload,
    });
    assert.equal(response.statusCode, 202, response.body);
    const body = response.json() as Wire;
    await waitForJobsSettled(service.ctx, NORMALIZE_UPLOAD_QUEUE, { data: { uploadId: body.upload_id } });
    const jobs = await service.ctx.jobs
      .boss()
      .findJobs(NORMALIZE_UPLOAD_QUEUE, { data: { uploadId: body.upload_id } });
    assert.deepEqual(
      jobs.map((job) => job.state),
      ['completed'],
      JSON.stringify(jobs.map((job) => job.output)),
    );
    return body;
  }

  test('a record dated 9999-12-31 is refused with its reason; the batch and later uploads are kept', async () => {
    const { userId, uploadToken } = await sdkConnect(service.app, developer, 'APPLE', 'year-9999');
    const first = await upload(uploadToken, {
      platform: 'APPLE',
      records: [
        steps(100, '2026-11-20T08:00:00+01:00', '2026-11-20T08:10:00+01:00'),
        steps(50, '9999-12-31T23:00:00+01:00', '9999-12-31T23:30:00+01:00'),
        {
          uuid: 'heart-5000',
          type: 'HKQuantityTypeIdentifierHeartRate',
          unit: 'count/min',
          value: 5000,
          ...PHONE,
          startDate: '2026-11-20T09:00:00+01:00',
        },
        steps(20, '1850-01-01T08:00:00+00:00', '1850-01-01T08:10:00+00:00'),
      ],
      activity_summaries: [{ dateComponents: '9999-12-31', activeEnergyBurned: 100 }],
    });
    assert.equal(first.rejected_count, 4);
    assert.deepEqual(
      first.rejected.map((entry: Wire) => entry.problem.split(':')[0]),
      ['records[1]', 'records[2]', 'records[3]', 'activity_summaries[0]'],
    );
    assert.match(first.rejected[0].problem, /more than 366 days ahead/);
    assert.match(first.rejected[1].problem, /heart_rate 5000 is outside 20…300/);
    assert.match(first.rejected[2].problem, /before 1900-01-01/);

    const [day] = await read(userId, 'daily', '2026-11-20', '2026-11-21');
    assert.equal(day?.distance_data.steps, 100, 'the good record of the same batch is kept');
    assert.equal(day?.heart_rate_data?.summary?.avg_hr_bpm ?? null, null, 'the 5000 bpm reading is not');

    // A later upload of the same user is read and readable.
    await upload(uploadToken, {
      platform: 'APPLE',
      records: [steps(300, '2026-11-21T08:00:00+01:00', '2026-11-21T08:10:00+01:00')],
    });
    const [later] = await read(userId, 'daily', '2026-11-21', '2026-11-22');
    assert.equal(later?.distance_data.steps, 300);
    const left = await service.ctx.db.selectFrom('mobile_uploads').select('id').execute();
    assert.deepEqual(left, [], 'uploads are deleted once their work committed');
    const dirty = await service.ctx.db
      .selectFrom('mobile_dirty_days')
      .select('local_day')
      .where('user_id', '=', userId)
      .execute();
    assert.deepEqual(dirty, [], 'no day is left waiting for a rebuild');
  });

  test('an export element dated 9999-12-31 is skipped and counted; the rest of the import is stored', async () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<HealthData locale="en_GB">
 <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count" startDate="2026-11-20 08:00:00 +0100" endDate="2026-11-20 08:10:00 +0100" value="70"/>
 <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count" startDate="9999-12-31 08:00:00 +0100" endDate="9999-12-31 08:10:00 +0100" value="80"/>
 <Record type="HKQuantityTypeIdentifierBodyMass" sourceName="Scale" unit="kg" startDate="2026-11-20 07:00:00 +0100" endDate="2026-11-20 07:00:00 +0100" value="-3"/>
</HealthData>
`;
    const response = await service.app.inject({
      method: 'POST',
      url: '/v2/import/apple-health?reference_id=export-9999',
      headers: { ...developer.headers, 'content-type': 'application/xml' },
      payload: xml,
    });
    assert.equal(response.statusCode, 202, response.body);
    const started = response.json() as Wire;
    await waitForJobsSettled(service.ctx, IMPORT_QUEUE, { id: started.import_id });
    const status = (
      await service.app.inject({
        method: 'GET',
        url: `/v2/import/${started.import_id}`,
        headers: developer.headers,
      })
    ).json() as Wire;
    assert.equal(status.status, 'completed', status.error);
    assert.equal(status.records_read, 3);
    assert.equal(status.records_imported, 1);
    const [day] = await read(started.user_id, 'daily', '2026-11-20', '2026-11-21');
    assert.equal(day?.distance_data.steps, 70);
  });
});
