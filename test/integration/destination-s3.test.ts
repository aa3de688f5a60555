import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import {
  api,
  createDestination,
  destinationDeliveries,
  emit,
  replayDelivered,
  sleepEvent,
  waitForStatus,
} from '../helpers/destinations.ts';
import { S3_TEST_KEY, type S3Server, startS3Server } from '../helpers/s3-server.ts';
import { insertUser } from '../helpers/users.ts';
import { until } from '../helpers/until.ts';

/**
 * The S3 destination with the real AWS SDK v3 client against an S3-compatible server on
 * loopback (test/helpers/s3-server.ts: signatures checked, unknown buckets refused): one object
 * per event under the documented key layout, no second object on a replay, wrong credentials
 * held rather than lost, and the server going away and coming back.
 */
const BUCKET = 'tributary-events';

describe('S3 destination', () => {
  let service: TestService;
  let developer: TestDeveloper;
  let server: S3Server;
  let reader: S3Client;
  let destinationId = '';

  const keys = async (): Promise<string[]> => {
    const found: string[] = [];
    let token: string | undefined;
    do {
      const page = await reader.send(
        new ListObjectsV2Command({ Bucket: BUCKET, ...(token ? { ContinuationToken: token } : {}) }),
      );
      found.push(...(page.Contents ?? []).map((object) => object.Key ?? ''));
      token = page.NextContinuationToken;
    } while (token);
    return found.sort();
  };

  before(async () => {
    server = await startS3Server([BUCKET]);
    reader = new S3Client({
      region: 'us-east-1',
      endpoint: server.endpoint,
      forcePathStyle: true,
      credentials: S3_TEST_KEY,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    service = await startTestService({
      env: { WEBHOOK_RETRY_SCALE: '0.001', WEBHOOK_FAILING_AFTER: '1s', WEBHOOK_DISABLE_AFTER: '2s' },
    });
    developer = await createDeveloper(service.ctx);
  });
  after(async () => {
    reader?.destroy();
    await service?.close();
    await server?.close();
  });

  test('created with a custom endpoint and path-style; the secret key is never returned', async () => {
    const created = await createDestination(service, developer, {
      kind: 's3',
      settings: {
        bucket: BUCKET,
        endpoint: server.endpoint,
        access_key_id: S3_TEST_KEY.accessKeyId,
        secret_access_key: S3_TEST_KEY.secretAccessKey,
        prefix: 'health/',
      },
    });
    destinationId = created.id;
    assert.deepEqual(created.settings, {
      bucket: BUCKET,
      region: 'us-east-1',
      endpoint: server.endpoint,
      force_path_style: true,
      prefix: 'health/',
      access_key_id: 'AKIATRIBUTARYTEST01',
      object_format: 'json',
    });
    const bad = await api(service, developer, 'POST', '/v2/destinations', {
      kind: 's3',
      settings: { bucket: 'Not_A_Bucket', access_key_id: 'a', secret_access_key: 'b' },
    });
    assert.equal(bad.status, 400);
    assert.match(String(bad.body.detail), /^invalid settings\.bucket/);
    const noSecret = await api(service, developer, 'POST', '/v2/destinations', {
      kind: 's3',
      settings: { bucket: BUCKET, access_key_id: 'a' },
    });
    assert.match(String(noSecret.body.detail), /^invalid settings\.secret_access_key: required/);
  });

  test('N events are N objects under {prefix}{dev}/{type}/{user}/{date}/{event_id}.json; a replay adds none', async () => {
    const userId = await insertUser(service.ctx, { developerId: developer.devId, provider: 'OURA' });
    const nights = Array.from({ length: 12 }, (_, i) => `2026-04-${String(i + 1).padStart(2, '0')}`);
    await emit(
      service,
      developer,
      nights.map((night) => sleepEvent(userId, [night])),
    );
    const delivered = await waitForStatus(service, developer, destinationId, 12, 'delivered');
    const stored = await keys();
    // The date is the event's creation day (UTC); the log's created_at is in UTC.
    const dayOf = (d: unknown) => String((d as { created_at: string }).created_at).slice(0, 10);
    assert.deepEqual(
      stored,
      delivered.map((d) => `health/${developer.devId}/sleep/${userId}/${dayOf(d)}/${d.event_id}.json`).sort(),
    );
    const object = await reader.send(new GetObjectCommand({ Bucket: BUCKET, Key: stored[0]! }));
    const body = JSON.parse(await object.Body!.transformToString()) as {
      type: string;
      user: { user_id: string };
    };
    assert.equal(body.type, 'sleep');
    assert.equal(body.user.user_id, userId);

    const first = delivered[0]!;
    await replayDelivered(service, developer, destinationId, first.event_id);
    assert.deepEqual(await keys(), stored, 'the same 12 objects');
  });

  test('a wrong secret is retried and held, not lost; fixed settings release the events', async () => {
    const userId = await insertUser(service.ctx, { developerId: developer.devId, provider: 'OURA' });
    const before = (await keys()).length;
    const known = (await destinationDeliveries(service, developer, destinationId)).length;
    const changed = await api(service, developer, 'PATCH', `/v2/destinations/${destinationId}`, {
      settings: { secret_access_key: 'wrong' },
    });
    assert.equal(changed.status, 200, changed.raw);
    await emit(service, developer, [sleepEvent(userId, ['2026-05-01']), sleepEvent(userId, ['2026-05-02'])]);
    await until(
      'held after the destination was disabled',
      async () => (await api(service, developer, 'GET', `/v2/destinations/${destinationId}`)).body,
      { done: (body) => body.status === 'disabled' && body.held_events === 2 },
    );
    const log = await destinationDeliveries(service, developer, destinationId);
    assert.ok(
      log.some((d) => d.attempts.some((a) => /SignatureDoesNotMatch/.test(a.error ?? ''))),
      'the attempt log names the refusal',
    );
    const fixed = await api(service, developer, 'PATCH', `/v2/destinations/${destinationId}`, {
      settings: { secret_access_key: S3_TEST_KEY.secretAccessKey },
      enabled: true,
    });
    assert.equal(fixed.body.replayed, 2);
    await waitForStatus(service, developer, destinationId, known + 2, 'delivered');
    assert.equal((await keys()).length, before + 2);
  });

  test('the server going away: events held, then released when it is back', async () => {
    const userId = await insertUser(service.ctx, { developerId: developer.devId, provider: 'OURA' });
    const before = (await keys()).length;
    const known = (await destinationDeliveries(service, developer, destinationId)).length;
    await server.stop();
    await emit(service, developer, [sleepEvent(userId, ['2026-06-01']), sleepEvent(userId, ['2026-06-02'])]);
    await until(
      'held after the destination was disabled',
      async () => (await api(service, developer, 'GET', `/v2/destinations/${destinationId}`)).body,
      { done: (body) => body.status === 'disabled' && body.held_events === 2 },
    );
    await server.start();
    const enabled = await api(service, developer, 'PATCH', `/v2/destinations/${destinationId}`, {
      enabled: true,
    });
    assert.equal(enabled.body.replayed, 2);
    await waitForStatus(service, developer, destinationId, known + 2, 'delivered');
    assert.equal((await keys()).length, before + 2);
  });

  test('object_format ndjson_gzip: a batch of events is one gzip NDJSON object, every event a line', async () => {
    const batched = await createDestination(service, developer, {
      kind: 's3',
      settings: {
        bucket: BUCKET,
        endpoint: server.endpoint,
        access_key_id: S3_TEST_KEY.accessKeyId,
        secret_access_key: S3_TEST_KEY.secretAccessKey,
        prefix: 'batched/',
        object_format: 'ndjson_gzip',
      },
    });
    assert.equal(batched.settings.object_format, 'ndjson_gzip');
    const bad = await api(service, developer, 'PATCH', `/v2/destinations/${batched.id}`, {
      settings: { object_format: 'parquet' },
    });
    assert.equal(bad.status, 400);
    assert.match(String(bad.body.detail), /^invalid settings\.object_format: expected json or ndjson_gzip/);
    const userId = await insertUser(service.ctx, { developerId: developer.devId, provider: 'OURA' });
    const nights = Array.from({ length: 12 }, (_, i) => `2026-07-${String(i + 1).padStart(2, '0')}`);
    await emit(
      service,
      developer,
      nights.map((night) => sleepEvent(userId, [night])),
    );
    const delivered = await waitForStatus(service, developer, batched.id, 12, 'delivered');
    const objects = (await keys()).filter((key) => key.startsWith('batched/'));
    assert.ok(objects.length >= 1 && objects.length <= 12, `${objects.length} objects`);
    const lines: { event_id: string; type: string; user_id: string; payload: { type: string } }[] = [];
    for (const key of objects) {
      assert.match(
        key,
        new RegExp(`^batched/${developer.devId}/batches/\\d{4}-\\d{2}-\\d{2}/[0-9a-f]{32}\\.ndjson\\.gz$`),
      );
      const object = await reader.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
      const text = gunzipSync(await object.Body!.transformToByteArray()).toString('utf8');
      for (const line of text.trimEnd().split('\n')) lines.push(JSON.parse(line) as (typeof lines)[number]);
    }
    assert.deepEqual(lines.map((line) => line.event_id).sort(), delivered.map((d) => d.event_id).sort());
    assert.ok(
      lines.every(
        (line) => line.type === 'sleep' && line.payload.type === 'sleep' && line.user_id === userId,
      ),
    );
  });
});
