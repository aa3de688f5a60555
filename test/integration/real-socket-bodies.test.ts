// Every route that takes a body, sent over a real TCP socket (app.listen on port 0 + fetch), not
// through `inject`: what the production server does with a request stream differs. A raw export
// body over a socket used to be walked by the input boundary as if it were parsed JSON (the
// request stream's own fields: "socket.parser.socket…: nested deeper than 32 levels"), which
// `inject` never showed.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { exportText, zipArchive } from '../helpers/apple-export.ts';
import { pathOf } from '../helpers/connections.ts';
import { formToken, formTokenOf } from '../helpers/widget.ts';

const OURA_SECRET = 'oura-socket-secret';

type Answer = { status: number; contentType: string; text: string; json: () => Record<string, unknown> };

describe('bodies over a real socket', () => {
  let service: TestService;
  let developer: TestDeveloper;
  let base: string;

  before(async () => {
    // No workers: the import job is run by the test itself, so nothing runs in the background.
    service = await startTestService({
      work: false,
      env: { OURA_CLIENT_ID: 'oura-id', OURA_CLIENT_SECRET: OURA_SECRET },
    });
    developer = await createDeveloper(service.ctx);
    base = await service.app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    await service?.close();
  });

  async function send(
    method: string,
    path: string,
    body: RequestInit['body'],
    headers: Record<string, string> = {},
  ): Promise<Answer> {
    const response = await fetch(`${base}${path}`, { method, body, headers, redirect: 'manual' });
    const text = await response.text();
    return {
      status: response.status,
      contentType: response.headers.get('content-type') ?? '',
      text,
      json: () => JSON.parse(text) as Record<string, unknown>,
    };
  }
  const json = (method: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
    send(method, path, JSON.stringify(body), { 'content-type': 'application/json', ...headers });
  /** The one thing every answer here must never be: the boundary walking a stream. */
  const notWalked = (answer: Answer) =>
    assert.doesNotMatch(answer.text, /nested deeper|socket\.parser/, `${answer.status} ${answer.text}`);

  async function sdkUploadToken(reference: string): Promise<string> {
    const token = await json('POST', '/v2/auth/generateAuthToken', {}, developer.headers);
    assert.equal(token.status, 200, token.text);
    const connected = await json('POST', '/v2/sdk/connect', {
      token: token.json().token,
      resource: 'APPLE',
      reference_id: reference,
    });
    assert.equal(connected.status, 200, connected.text);
    return connected.json().upload_token as string;
  }

  async function runImport(answer: Answer) {
    notWalked(answer);
    assert.equal(answer.status, 202, answer.text);
    const id = answer.json().import_id as string;
    const finished = await service.ctx.mobile.runImport(id);
    assert.equal(finished?.status, 'completed', finished?.error);
    return finished!;
  }

  const xml = exportText({ days: 2, heartRatePerDay: 4, startDay: '2026-03-01' });

  test('Apple import: a raw application/xml body', async () => {
    const answer = await send('POST', '/v2/import/apple-health?reference_id=socket-xml', xml, {
      ...developer.headers,
      'content-type': 'application/xml',
    });
    const finished = await runImport(answer);
    assert.ok(finished.records_imported > 0);
  });

  test('Apple import: a raw application/zip body', async () => {
    const zip = zipArchive([{ name: 'apple_health_export/export.xml', data: Buffer.from(xml) }]);
    const answer = await send('POST', '/v2/import/apple-health?reference_id=socket-zip', zip, {
      ...developer.headers,
      'content-type': 'application/zip',
    });
    const finished = await runImport(answer);
    assert.ok(finished.records_imported > 0);
  });

  test('Apple import: multipart/form-data with a file part', async () => {
    const form = new FormData();
    form.append('file', new Blob([xml], { type: 'application/xml' }), 'export.xml');
    const answer = await send('POST', '/v2/import/apple-health?reference_id=socket-multipart', form, {
      ...developer.headers,
    });
    await runImport(answer);
  });

  test('SDK connect and upload (JSON), and the boundary still refuses a too-deep JSON body', async () => {
    const uploadToken = await sdkUploadToken('socket-sdk');
    const upload = await json(
      'POST',
      '/v2/sdk/upload',
      {
        platform: 'APPLE',
        records: [
          {
            uuid: 'socket-1',
            type: 'HKQuantityTypeIdentifierStepCount',
            sourceName: 'Phone',
            unit: 'count',
            value: 10,
            startDate: '2026-03-01T08:00:00+00:00',
            endDate: '2026-03-01T08:10:00+00:00',
          },
        ],
      },
      { authorization: `Bearer ${uploadToken}` },
    );
    assert.equal(upload.status, 202, upload.text);
    let deep: unknown = 1;
    for (let level = 0; level < 40; level++) deep = [deep];
    const refused = await json(
      'POST',
      '/v2/sdk/upload',
      { platform: 'APPLE', records: deep },
      { authorization: `Bearer ${uploadToken}` },
    );
    assert.equal(refused.status, 400, refused.text);
    assert.match(refused.contentType, /application\/problem\+json/);
    assert.match(refused.text, /nested deeper than 32 levels/);
  });

  test('JSON routes of other features: webhook destination, bulk user info, a workout template', async () => {
    const webhook = await json('PUT', '/v2/webhook', { url: 'https://example.com/hook' }, developer.headers);
    notWalked(webhook);
    assert.equal(webhook.status, 200, webhook.text);
    const bulk = await json('POST', '/v2/bulkUserInfo', { user_ids: [] }, developer.headers);
    notWalked(bulk);
    assert.ok(bulk.status === 200 || bulk.status === 400, bulk.text);
    // A nested body (a workout template's step blocks) crosses the socket and the boundary intact.
    const workout = await json(
      'POST',
      '/v2/workouts',
      {
        name: 'Socket intervals',
        sport: 'running',
        step_blocks: [
          {
            completion_condition: { type: 'reps', value: 2 },
            steps: [{ completion_condition: { type: 'time', value: 300 }, intensity_type: 'active' }],
          },
        ],
      },
      developer.headers,
    );
    notWalked(workout);
    assert.equal(workout.status, 200, workout.text);
  });

  test('lab report upload: multipart and a raw body, neither walked as JSON', async () => {
    const form = new FormData();
    // A one-line PDF is enough for the route: the file is read by a job this test does not run.
    const pdf = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');
    form.append('file', new Blob([pdf], { type: 'application/pdf' }), 'report.pdf');
    const multipart = await send('POST', '/v2/lab-reports', form, developer.headers);
    notWalked(multipart);
    assert.ok(multipart.status === 202 || multipart.status === 400, multipart.text);
    const raw = await send('POST', '/v2/lab-reports', pdf, {
      ...developer.headers,
      'content-type': 'application/pdf',
    });
    notWalked(raw);
    // Taken (when the route reads raw bodies) or refused as a problem naming why; never a 5xx.
    assert.ok(raw.status === 202 || (raw.status >= 400 && raw.status < 500), raw.text);
    if (raw.status !== 202) assert.match(raw.contentType, /application\/problem\+json/);
  });

  test('provider notification: a signed body is verified on the bytes that crossed the socket', async () => {
    const body = '{ "event_type" : "update", "data_type": "sleep", "object_id": "x", "user_id": "nobody" }';
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signature = createHmac('sha256', OURA_SECRET)
      .update(timestamp + body)
      .digest('hex')
      .toUpperCase();
    const answer = await send('POST', '/providers/OURA/webhook', body, {
      'content-type': 'application/json',
      'x-oura-timestamp': timestamp,
      'x-oura-signature': signature,
    });
    notWalked(answer);
    assert.equal(answer.status, 200, answer.text);
  });

  test('hosted forms: the widget connect form and the kit activation form', async () => {
    const session = await json('POST', '/v2/auth/generateWidgetSession', {}, developer.headers);
    assert.equal(session.status, 200, session.text);
    const url = session.json().url as string;
    const page = await send('GET', pathOf(url), undefined);
    const csrf = formToken(page.text) ?? formTokenOf(service, url);
    const chosen = await send(
      'POST',
      `${pathOf(url)}/connect`,
      new URLSearchParams({ provider: 'SANDBOX', csrf_token: csrf }).toString(),
      { 'content-type': 'application/x-www-form-urlencoded' },
    );
    notWalked(chosen);
    assert.equal(chosen.status, 303, chosen.text);

    const activation = await send('POST', '/activate', 'kit_id=KIT-AAAA-BBBB-CCCC-DDDD', {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'text/html',
    });
    notWalked(activation);
    assert.ok(activation.status < 500, activation.text);
    assert.match(activation.contentType, /text\/html/);
  });
});
