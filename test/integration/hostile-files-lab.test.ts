// Hostile lab reports (issue 24): files that made the reader spend gigabytes or minutes and took the
// server down — a page of a million text operations, a 5000-inch page, a flate bomb, a 30k × 30k
// PNG — are uploaded over a real socket. Each job ends `failed` with a reason naming its limit and
// sends its `lab_report.failed` event; the API (this process) answers /health within 2 s
// throughout; a good report uploaded before and one uploaded after are read in full. Past the
// reading limits (lifted), the reader process's memory cap ends a flate bomb the same way.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import {
  flateBombPdf,
  hugePagePdf,
  hugePng,
  millionTextOperationsPdf,
  watchJob,
} from '../helpers/hostile-files.ts';
import { generateReport, renderPdf } from '../helpers/lab-report-samples.ts';
import { mismatches, multipart, type ParsedResult } from '../helpers/lab-reports.ts';
import { setUrl } from '../helpers/webhook-api.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

type Json = Record<string, unknown>;

describe('hostile lab reports', () => {
  let service: TestService;
  let developer: TestDeveloper;
  let receiver: WebhookReceiver;
  let baseUrl: string;

  before(async () => {
    service = await startTestService({
      env: { WEBHOOK_RETRY_SCALE: '0.001', SANDBOX_ARRIVAL_MINUTES: 'off' },
    });
    developer = await createDeveloper(service.ctx);
    receiver = await startWebhookReceiver();
    await setUrl(service, developer, receiver.url);
    await service.app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(service.app.server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await service?.close();
    await receiver?.close();
  });

  const call = async (method: string, path: string, body?: { payload: Buffer; contentType: string }) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { ...developer.headers, ...(body ? { 'content-type': body.contentType } : {}) },
      ...(body ? { body: body.payload } : {}),
    });
    return { status: response.status, body: (await response.json()) as Json };
  };

  async function uploadAndWatch(file: Buffer, filename: string) {
    const posted = await call('POST', '/v2/lab-reports', multipart(file, { filename }));
    assert.equal(posted.status, 202, JSON.stringify(posted.body));
    const uploadId = posted.body.upload_id as string;
    const watched = await watchJob(baseUrl, async () => {
      const listed = await call('GET', `/v2/lab-reports?upload_id=${uploadId}`);
      const [session] = listed.body.sessions as Json[];
      return session && session.current_status !== 'processing' ? session : undefined;
    });
    return { uploadId, session: watched.result, healthChecks: watched.healthChecks };
  }

  async function eventOf(uploadId: string) {
    const matches = (entry: { body: string }) => (JSON.parse(entry.body) as Json).upload_id === uploadId;
    await receiver.waitFor((received) => received.some(matches), `the event of ${uploadId}`, 60_000);
    return JSON.parse(receiver.received.find(matches)!.body) as Json & { data: Json };
  }

  const good = generateReport({
    layout: 'one-column',
    unitsColumn: true,
    system: 'US',
    flagStyle: 'letters',
    keys: ['glucose', 'sodium', 'potassium', 'hemoglobin', 'cholesterol_total'],
  });
  let goodBefore: string;

  async function readGood(uploadId: string) {
    const listed = await call('GET', `/v2/lab-reports?upload_id=${uploadId}`);
    const [session] = listed.body.sessions as Json[];
    const full = await call('GET', `/v2/lab-reports/${session!.session_id as string}`);
    return full.body;
  }

  test('a good report before the hostile ones is read in full', async () => {
    const { uploadId, session } = await uploadAndWatch(await renderPdf(good), 'good.pdf');
    assert.notEqual(session.current_status, 'failed', JSON.stringify(session));
    goodBefore = uploadId;
    const full = await readGood(uploadId);
    assert.deepEqual(mismatches(good.truth, full.results as ParsedResult[]), []);
  });

  const HOSTILE: { name: string; file: () => Promise<Buffer> | Buffer; filename: string; reason: RegExp }[] =
    [
      {
        name: 'one page of a million text operations (~170 KB)',
        file: () => millionTextOperationsPdf(),
        filename: 'ops.pdf',
        reason: /text operations \(LAB_REPORT_MAX_TEXT_OPERATIONS\)/,
      },
      {
        name: 'a 5000-inch page',
        file: () => hugePagePdf(),
        filename: 'page.pdf',
        reason: /5000 × 5000 inches, larger than the 50-inch limit \(LAB_REPORT_MAX_PAGE_INCHES\)/,
      },
      {
        name: 'a flate bomb (512 MB of content in ~500 KB)',
        file: () => flateBombPdf(512),
        filename: 'bomb.pdf',
        reason: /inflates to more than 256 MB \(LAB_REPORT_MAX_INFLATED_MB\)/,
      },
      {
        name: 'a 30k × 30k PNG',
        file: () => hugePng(30_000),
        filename: 'huge.png',
        reason: /30000 × 30000 pixels, more than the 40,000,000-pixel limit \(LAB_REPORT_MAX_IMAGE_PIXELS\)/,
      },
    ];

  for (const hostile of HOSTILE) {
    test(`${hostile.name}: the job fails with its reason and the failed event; /health answers throughout`, async () => {
      const file = await hostile.file();
      const { uploadId, session, healthChecks } = await uploadAndWatch(file, hostile.filename);
      assert.equal(session.current_status, 'failed');
      assert.ok(healthChecks >= 1);
      const event = await eventOf(uploadId);
      assert.equal(event.type, 'lab_report.failed');
      const error = event.data.error as { code: string; message: string; retriable: boolean };
      assert.equal(error.code, 'file_unreadable');
      assert.equal(error.retriable, false);
      assert.match(error.message, hostile.reason);
    });
  }

  test('a good report after the hostile ones is read in full; the one before is intact', async () => {
    const { uploadId, session } = await uploadAndWatch(await renderPdf(good), 'good-again.pdf');
    assert.notEqual(session.current_status, 'failed', JSON.stringify(session));
    for (const id of [goodBefore, uploadId]) {
      const full = await readGood(id);
      assert.deepEqual(mismatches(good.truth, full.results as ParsedResult[]), [], id);
    }
  });
});

describe('hostile lab reports past the reading limits: the reader process ends them', () => {
  let service: TestService;
  let developer: TestDeveloper;
  let baseUrl: string;

  before(async () => {
    // The inflated-size check lifted, and a small reader process: what stops the flate bomb now is the
    // memory cap of the child process that reads it.
    service = await startTestService({
      env: {
        SANDBOX_ARRIVAL_MINUTES: 'off',
        LAB_REPORT_MAX_INFLATED_MB: '100000',
        LAB_REPORT_READER_MEMORY_MB: '256',
      },
    });
    developer = await createDeveloper(service.ctx);
    await service.app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(service.app.server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await service?.close();
  });

  test('a flate bomb read past the inflated-size check fails as out of memory in its reader process', async () => {
    const body = multipart(await flateBombPdf(1024), { filename: 'bomb.pdf' });
    const posted = await service.app.inject({
      method: 'POST',
      url: '/v2/lab-reports',
      headers: { ...developer.headers, 'content-type': body.contentType },
      payload: body.payload,
    });
    assert.equal(posted.statusCode, 202, posted.body);
    const uploadId = (posted.json() as Json).upload_id as string;
    const { result: session } = await watchJob(baseUrl, async () => {
      const listed = await service.app.inject({
        method: 'GET',
        url: `/v2/lab-reports?upload_id=${uploadId}`,
        headers: developer.headers,
      });
      const [found] = (listed.json() as { sessions: Json[] }).sessions;
      return found && found.current_status !== 'processing' ? found : undefined;
    });
    assert.equal(session.current_status, 'failed');
    const note = (session.status_history as { note?: string }[]).at(-1)?.note ?? '';
    assert.match(note, /could not be read: reading it used more than (256 MB of memory|its 192 MB heap)/);
  });
});
