// The vendor's new lab-reports stack (issue 45 item 1, docs/wire-contract.md#lab-reports) over a
// real socket: `POST /v2/reports` beside `/v2/lab-reports` and `/v2/reports/upload`; the
// `X-Terra-Version` header (served as the newest version on or before its date, echoed in the
// answer, a malformed one a 400 naming it) and the developer's pin when it is absent; a DXA scan
// told apart (`report_type: dexa`, results by `biomarker.region`) on the session, in the list
// filter and in `lab_report.completed`; a lab report still `lab`; the pin's own 400s.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { generateDexaReport, renderDexaPdf } from '../helpers/dexa-samples.ts';
import { generateReport, renderPdf } from '../helpers/lab-report-samples.ts';
import { multipart } from '../helpers/lab-reports.ts';
import { until } from '../helpers/until.ts';
import { VendorContract } from '../helpers/vendor-contract.ts';
import { setUrl } from '../helpers/webhook-api.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

type Json = Record<string, unknown>;
type Answer = { status: number; type: string; version: string | null; json: Json };

describe('lab reports, new stack: /v2/reports, X-Terra-Version, report_type and DXA scans', () => {
  let service: TestService;
  let developer: TestDeveloper;
  let receiver: WebhookReceiver;
  let base: string;
  // A scan's session and event still fit the vendor's (July) schemas: report_type is an open enum.
  const contract = new VendorContract();

  before(async () => {
    service = await startTestService({
      env: { WEBHOOK_RETRY_SCALE: '0.001', SANDBOX_ARRIVAL_MINUTES: 'off' },
    });
    await service.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(service.app.server.address() as AddressInfo).port}`;
    developer = await createDeveloper(service.ctx);
    receiver = await startWebhookReceiver();
    await setUrl(service, developer, receiver.url);
  });
  after(async () => {
    await service?.close();
    await receiver?.close();
  });

  const call = async (
    method: string,
    path: string,
    options: {
      body?: { payload: Buffer; contentType: string } | Json;
      version?: string;
      who?: TestDeveloper;
    } = {},
  ): Promise<Answer> => {
    const { body } = options;
    const raw = body && 'payload' in body && Buffer.isBuffer(body.payload);
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(options.who ?? developer).headers,
        ...(options.version === undefined ? {} : { 'X-Terra-Version': options.version }),
        ...(body === undefined
          ? {}
          : { 'content-type': raw ? String(body.contentType) : 'application/json' }),
      },
      ...(body === undefined ? {} : { body: raw ? (body.payload as Buffer) : JSON.stringify(body) }),
    });
    const text = await response.text();
    return {
      status: response.status,
      type: response.headers.get('content-type') ?? '',
      version: response.headers.get('x-terra-version'),
      json: text ? (JSON.parse(text) as Json) : {},
    };
  };
  const problem = (answer: Answer, status: number, names: RegExp) => {
    assert.equal(answer.status, status, JSON.stringify(answer.json));
    assert.match(answer.type, /application\/problem\+json/);
    assert.match(String(answer.json.detail), names);
  };
  const uploadTo = async (path: string, pdf: Buffer, version?: string, reference = 'scan_ref') => {
    const answer = await call('POST', `${path}?reference_id=${reference}`, {
      body: multipart(pdf, { filename: 'scan.pdf' }),
      ...(version === undefined ? {} : { version }),
    });
    assert.equal(answer.status, 202, JSON.stringify(answer.json));
    return { uploadId: String(answer.json.upload_id), version: answer.version };
  };
  const eventOf = async (uploadId: string) => {
    const matches = (body: string) => (JSON.parse(body) as Json).upload_id === uploadId;
    await receiver.waitFor(
      (received) => received.some((entry) => matches(entry.body)),
      `event of ${uploadId}`,
      120_000,
    );
    return JSON.parse(receiver.received.find((entry) => matches(entry.body))!.body) as Json & { data: Json };
  };
  const sessionOf = async (uploadId: string): Promise<Json> =>
    until(
      `session of ${uploadId} to finish`,
      async () => ((await call('GET', `/v2/lab-reports?upload_id=${uploadId}`)).json.sessions as Json[])[0],
      {
        done: (found) => found !== undefined && found.current_status !== 'processing',
        intervalMs: 100,
        timeoutMs: 120_000,
      },
    ) as Promise<Json>;

  test('POST /v2/reports: a DXA scan is told apart and read by region, in the event, the session and the list', async () => {
    const report = generateDexaReport('lunar', 5);
    const { uploadId, version } = await uploadTo('/v2/reports', await renderDexaPdf(report));
    assert.equal(version, '2026-11-19', 'without a header or pin: the latest');
    const event = await eventOf(uploadId);
    assert.equal(event.type, 'lab_report.completed');
    assert.equal(event.data.report_type, 'dexa');
    contract.checkWebhook(JSON.stringify(event), 'the scan’s lab_report.completed');
    const results = event.data.results as { biomarker: Json; measurement: Json }[];
    assert.equal(results.length, report.truth.length);
    const neckBmd = report.truth.find(
      (row) => row.region === 'femoral_neck' && row.key === 'bone_mineral_density',
    )!;
    const read = results.find(
      (result) =>
        result.biomarker.region === 'femoral_neck' && result.biomarker.key === 'bone_mineral_density',
    )!;
    assert.equal(read.measurement.numeric, neckBmd.value);
    assert.equal(read.measurement.ucum_code, 'g/cm2');
    assert.ok(
      results.every(
        (result) => result.biomarker.specimen === undefined && typeof result.biomarker.region === 'string',
      ),
    );

    const summary = await sessionOf(uploadId);
    assert.equal(summary.report_type, 'dexa');
    const session = await call('GET', `/v2/lab-reports/${String(summary.session_id)}`);
    assert.equal(session.status, 200);
    contract.checkResponse({
      method: 'GET',
      url: `/v2/lab-reports/${String(summary.session_id)}`,
      status: session.status,
      contentType: session.type,
      body: JSON.stringify(session.json),
    });
    assert.equal(session.json.report_type, 'dexa');
    assert.equal(session.version, '2026-11-19');
    assert.equal((session.json.results as Json[]).length, report.truth.length);

    const listed = async (query: string) =>
      ((await call('GET', `/v2/lab-reports?reference_id=scan_ref${query}`)).json.sessions as Json[]).map(
        (found) => found.session_id,
      );
    assert.deepEqual(await listed('&report_type=dexa'), [summary.session_id]);
    assert.deepEqual(await listed('&report_type=lab'), []);
  });

  test('a lab report through the kept paths stays lab; X-Terra-Version picks the version on or before its date', async () => {
    const lab = generateReport({
      layout: 'one-column',
      unitsColumn: true,
      system: 'US',
      flagStyle: 'letters',
      keys: ['glucose', 'tsh'],
    });
    const pdf = await renderPdf(lab);
    const viaLegacy = await uploadTo('/v2/lab-reports', pdf, '2026-12-01', 'lab_ref');
    assert.equal(viaLegacy.version, '2026-11-19');
    const viaUpload = await uploadTo('/v2/reports/upload', pdf, '2026-06-30', 'lab_ref');
    assert.equal(viaUpload.version, '2026-03-24');
    const early = await uploadTo('/v2/reports', pdf, '2025-01-01', 'lab_ref');
    assert.equal(early.version, '2026-03-24', 'earlier than the first version: the first');
    for (const { uploadId } of [viaLegacy, viaUpload, early]) {
      const event = await eventOf(uploadId);
      assert.equal(event.data.report_type, 'lab');
      assert.equal((event.data.results as Json[]).length, 2);
    }
    const sessions = (await call('GET', '/v2/lab-reports?reference_id=lab_ref&report_type=lab')).json
      .sessions as Json[];
    assert.equal(sessions.length, 3);
  });

  test('a scan uploaded under a version before scans is read as a lab report (and fails: no lab results)', async () => {
    const { uploadId, version } = await uploadTo(
      '/v2/reports',
      await renderDexaPdf(generateDexaReport('hologic', 2)),
      '2026-05-01',
      'old_ref',
    );
    assert.equal(version, '2026-03-24');
    const event = await eventOf(uploadId);
    assert.equal(event.type, 'lab_report.failed');
    const summary = await sessionOf(uploadId);
    assert.equal(summary.report_type, 'lab');
  });

  test('the pin answers requests without the header; the header still wins; null unpins', async () => {
    const other = await createDeveloper(service.ctx);
    assert.deepEqual((await call('GET', '/v2/reports/api-version', { who: other })).json, {
      api_version: null,
      served_without_header: '2026-11-19',
      latest: '2026-11-19',
      versions: ['2026-03-24', '2026-11-19'],
    });
    const pinned = await call('PUT', '/v2/reports/api-version', {
      who: other,
      body: { api_version: '2026-10-01' },
    });
    assert.equal(pinned.status, 200, JSON.stringify(pinned.json));
    assert.equal(pinned.json.api_version, '2026-03-24', 'a date pins the version on or before it');
    assert.equal((await call('GET', '/v2/lab-reports', { who: other })).version, '2026-03-24');
    assert.equal(
      (await call('GET', '/v2/lab-reports', { who: other, version: '2026-11-19' })).version,
      '2026-11-19',
    );
    assert.equal(
      (await call('GET', '/v2/lab-reports')).version,
      '2026-11-19',
      'one developer’s pin is its own',
    );
    const unpinned = await call('PUT', '/v2/reports/api-version', {
      who: other,
      body: { api_version: null },
    });
    assert.equal(unpinned.status, 200, JSON.stringify(unpinned.json));
    assert.equal(unpinned.json.api_version, null);
    assert.equal((await call('GET', '/v2/lab-reports', { who: other })).version, '2026-11-19');
  });

  test('400s: a malformed X-Terra-Version on every operation, an unknown report_type, a malformed pin', async () => {
    const pdf = await renderPdf(
      generateReport({
        layout: 'one-column',
        unitsColumn: true,
        system: 'US',
        flagStyle: 'letters',
        keys: ['glucose'],
      }),
    );
    for (const bad of ['2026-13-01', '2026-02-30', '20261119', 'latest', '2026-11-19, 2026-03-24'])
      problem(
        await call('POST', '/v2/reports', { body: multipart(pdf, { filename: 'r.pdf' }), version: bad }),
        400,
        /X-Terra-Version/,
      );
    problem(await call('GET', '/v2/lab-reports', { version: 'yesterday' }), 400, /X-Terra-Version/);
    for (const [method, path] of [
      ['GET', '/v2/lab-reports/1'],
      ['DELETE', '/v2/lab-reports/1'],
      ['POST', '/v2/lab-reports/1/reprocess'],
      ['GET', '/v2/lab-reports/1/deliveries'],
      ['GET', '/v2/lab-reports/1/files'],
    ] as const)
      problem(await call(method, path, { version: '2026-1-1' }), 400, /X-Terra-Version/);
    problem(await call('GET', '/v2/lab-reports?report_type=mri'), 400, /report_type/);
    problem(
      await call('PUT', '/v2/reports/api-version', { body: { api_version: '2026-02-31' } }),
      400,
      /api_version/,
    );
    problem(
      await call('PUT', '/v2/reports/api-version', { body: { api_version: 20261119 } }),
      400,
      /api_version/,
    );
    problem(await call('PUT', '/v2/reports/api-version', { body: {} }), 400, /api_version/);
    problem(await call('POST', '/v2/reports', { body: { file: 'not multipart' } }), 400, /multipart/);
    const noFile = multipart(Buffer.from('x'), { field: 'other' });
    problem(await call('POST', '/v2/reports/upload', { body: noFile }), 400, /file/);
  });

  test('a scan’s session and event validate against the vendor documents', { skip: contract.missing }, () => {
    assert.ok(contract.exercised.size >= 1, [...contract.exercised].join(', '));
    assert.equal(contract.eventsChecked.get('lab_report.completed'), 1);
    assert.equal(contract.errors.length, 0, contract.report());
  });
});
