// The client against a real Tributary (startTestService, listening on a port): connect, offline
// queue, batches, retry with backoff, 413 splitting, resume from storage, revocation.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { NORMALIZE_UPLOAD_QUEUE } from '../../../src/features/mobile/ports.ts';
import {
  createDeveloper,
  startTestService,
  type TestDeveloper,
  type TestService,
} from '../../../test/helpers/app.ts';
import { waitForJobsSettled } from '../../../test/helpers/jobs.ts';
import { sdkToken } from '../../../test/helpers/mobile.ts';
import { MemoryStorage, NotConnectedError, RetriesExhaustedError, TributaryClient } from '../src/index.ts';

const WATCH = { sourceName: 'Apple Watch', device: '<<HKDevice: 0x1>, name:Apple Watch, model:Watch>' };

/** `count` one-minute step samples of 10 steps from 06:00 on 2026-11-20 (+01:00). */
function stepRecords(count: number, prefix: string) {
  return Array.from({ length: count }, (_, i) => {
    const start = Date.UTC(2026, 10, 20, 5, 0) + i * 60_000;
    return {
      uuid: `${prefix}-${String(i).padStart(6, '0')}`,
      type: 'HKQuantityTypeIdentifierStepCount',
      unit: 'count',
      value: 10,
      ...WATCH,
      startDate: new Date(start).toISOString(),
      endDate: new Date(start + 60_000).toISOString(),
    };
  });
}

describe('sdk-client against a real Tributary', () => {
  let service: TestService;
  let developer: TestDeveloper;
  let baseUrl: string;
  const sleeps: number[] = [];
  const sleep = async (ms: number) => {
    sleeps.push(ms);
  };

  before(async () => {
    // Many small batches, sent faster than a loaded machine's workers normalize them: the
    // per-connection limit on pending uploads (429, retried here with an instant sleep) is not
    // what these tests are about.
    service = await startTestService({
      env: { MOBILE_UPLOAD_MAX_BYTES: String(64 * 1024), MOBILE_UPLOAD_PENDING_MAX: '10000' },
    });
    developer = await createDeveloper(service.ctx);
    baseUrl = await service.app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    await service?.close();
  });

  /** Waits until every upload normalization job so far has run. */
  const settleUploads = async () => {
    for (const job of await service.ctx.jobs.boss().findJobs(NORMALIZE_UPLOAD_QUEUE))
      await waitForJobsSettled(service.ctx, NORMALIZE_UPLOAD_QUEUE, { id: job.id });
  };
  const steps = async (userId: string) => {
    const response = await service.app.inject({
      method: 'GET',
      url: `/v2/daily?user_id=${userId}&start_date=2026-11-20&end_date=2026-11-21&to_webhook=false`,
      headers: developer.headers,
    });
    const data = (response.json() as { data: { distance_data: { steps: number } }[] }).data;
    return data[0]?.distance_data.steps ?? null;
  };

  test('connect, queue offline, upload in batches; the server limit (413) splits a batch', async () => {
    const storage = new MemoryStorage();
    const client = await TributaryClient.create({
      baseUrl,
      platform: 'APPLE',
      storage,
      maxBatchItems: 400,
      maxBatchBytes: 10 * 1024 * 1024,
      sleep,
    });
    const userId = await client.connect(await sdkToken(service.app, developer), { referenceId: 'client-1' });
    assert.ok(client.connected);
    await client.enqueue({ records: stepRecords(900, 'a') });
    assert.equal(client.pending, 900);
    const result = await client.flush();
    assert.equal(result.items, 900);
    assert.equal(result.pending, 0);
    assert.ok(
      result.batches > 3,
      `400 items exceed the 64 KiB server limit, so batches were split (${result.batches})`,
    );
    await settleUploads();
    assert.equal(await steps(userId), 9000);
  });

  test('network failures are retried with growing backoff; a restarted app resumes its queue', async () => {
    const storage = new MemoryStorage();
    const first = await TributaryClient.create({
      baseUrl,
      platform: 'APPLE',
      storage,
      sleep,
      random: () => 1,
    });
    const userId = await first.connect(await sdkToken(service.app, developer));
    await first.enqueue({ records: stepRecords(120, 'b') });

    // The network is down: every try fails, the batch stays queued.
    sleeps.length = 0;
    const offline = await TributaryClient.create({
      baseUrl,
      platform: 'APPLE',
      storage,
      sleep,
      random: () => 1,
      retry: { attempts: 4, baseDelayMs: 100 },
      fetch: async () => {
        throw new TypeError('fetch failed: ECONNREFUSED');
      },
    });
    await assert.rejects(offline.flush(), RetriesExhaustedError);
    assert.deepEqual(sleeps, [100, 200, 400], 'exponential backoff between the 4 tries');
    assert.equal(offline.pending, 120);

    // The app restarts: a new client reads the queue and the connection from storage. The first
    // two calls still fail, then the network is back.
    let failures = 2;
    const resumed = await TributaryClient.create({
      baseUrl,
      platform: 'APPLE',
      storage,
      sleep,
      fetch: async (input, init) => {
        if (failures-- > 0) throw new TypeError('fetch failed');
        return fetch(input, init);
      },
    });
    assert.equal(resumed.userId, userId);
    assert.equal(resumed.pending, 120);
    const result = await resumed.flush();
    assert.equal(result.items, 120);
    assert.equal(resumed.pending, 0);
    await settleUploads();
    assert.equal(await steps(userId), 1200);
  });

  test('after deauthentication the client reports it is not connected and keeps its queue', async () => {
    const client = await TributaryClient.create({ baseUrl, platform: 'APPLE', sleep });
    const userId = await client.connect(await sdkToken(service.app, developer));
    const deauth = await service.app.inject({
      method: 'DELETE',
      url: `/v2/auth/deauthenticateUser?user_id=${userId}`,
      headers: developer.headers,
    });
    assert.equal(deauth.statusCode, 200);
    await client.enqueue({ records: stepRecords(3, 'c') });
    await assert.rejects(client.flush(), NotConnectedError);
    assert.equal(client.connected, false);
    assert.equal(client.pending, 3);
  });
});
