// Lab reports (issue 19): generated text PDFs in four layouts (one- and two-column, with and
// without a units column, US and SI units, H/L, asterisk and no printed flags) are uploaded as
// multipart, processed by the job queue, and every parsed result (value, unit, UCUM, LOINC, range,
// flag and its source) is compared with the truth the generator printed. Responses and the
// lab_report webhook events are validated against the vendor's documents. Also: bad input, an
// unreadable file (failed event), retries, the sealed file and its download link, deletion.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SEALED_BYTES_OVERHEAD } from '../../src/core/secret-box.ts';
import { createLabReportsService, MAX_ATTEMPTS } from '../../src/features/lab-reports/service.ts';
import {
  createDeveloper,
  problemOf,
  startTestService,
  type TestDeveloper,
  type TestService,
} from '../helpers/app.ts';
import { generateReport, renderPdf, type ReportOptions } from '../helpers/lab-report-samples.ts';
import {
  api,
  metadataMismatches,
  mismatches,
  multipart,
  type ParsedResult,
  upload,
  waitForSession,
} from '../helpers/lab-reports.ts';
import { VendorContract } from '../helpers/vendor-contract.ts';
import { setUrl } from '../helpers/webhook-api.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { until } from '../helpers/until.ts';

type Json = Record<string, unknown>;

const LAYOUTS: ReportOptions[] = [
  { layout: 'one-column', unitsColumn: true, system: 'US', flagStyle: 'letters' },
  { layout: 'two-column', unitsColumn: true, system: 'SI', flagStyle: 'asterisk' },
  { layout: 'one-column', unitsColumn: false, system: 'SI', flagStyle: 'none' },
  { layout: 'two-column', unitsColumn: false, system: 'US', flagStyle: 'letters' },
];

describe('lab reports: upload, parse, deliver', () => {
  let service: TestService;
  let developer: TestDeveloper;
  let receiver: WebhookReceiver;
  const contract = new VendorContract();

  before(async () => {
    service = await startTestService({
      env: { WEBHOOK_RETRY_SCALE: '0.001', SANDBOX_ARRIVAL_MINUTES: 'off' },
    });
    developer = await createDeveloper(service.ctx);
    receiver = await startWebhookReceiver();
    await setUrl(service, developer, receiver.url);
  });
  after(async () => {
    await service?.close();
    await receiver?.close();
  });

  const eventFor = async (uploadId: string) => {
    await receiver.waitFor(
      (received) => received.some((entry) => (JSON.parse(entry.body) as Json).upload_id === uploadId),
      `the lab_report event of ${uploadId}`,
      120_000,
    );
    const entry = receiver.received.find(
      (candidate) => (JSON.parse(candidate.body) as Json).upload_id === uploadId,
    )!;
    contract.checkWebhook(entry.body, `webhook for ${uploadId}`);
    return JSON.parse(entry.body) as Json & { data: Json };
  };

  for (const options of LAYOUTS) {
    const label = `${options.layout}, ${options.unitsColumn ? 'units column' : 'units beside the range'}, ${options.system}, flags: ${options.flagStyle}`;
    test(`text PDF (${label}): every result matches the printed truth`, async () => {
      const report = generateReport(options);
      const pdf = await renderPdf(report);
      const uploadId = await upload(service, developer, pdf, {
        filename: 'report.pdf',
        referenceId: 'patient_456',
        contract,
      });

      const event = await eventFor(uploadId);
      assert.equal(event.type, 'lab_report.completed');
      const data = event.data as Json & { results: ParsedResult[] };
      assert.deepEqual(mismatches(report.truth, data.results), []);
      assert.equal(data.results_count, report.truth.length);
      assert.equal(data.reference_id, 'patient_456');
      assert.equal(data.report_date, report.reportDate);
      for (const result of data.results)
        assert.equal((result.source as Json).collection_date, report.collectionDate);

      const summary = await waitForSession(service, developer, uploadId);
      const sessionId = String(summary.session_id);
      assert.equal(data.session_id, sessionId);
      const response = await api(service, developer, 'GET', `/v2/lab-reports/${sessionId}`, contract);
      assert.equal(response.statusCode, 200);
      const session = response.json() as Json & {
        results: ParsedResult[];
        panels: Json[];
        status_history: Json[];
      };
      assert.deepEqual(mismatches(report.truth, session.results), []);
      assert.deepEqual(metadataMismatches(report, session), []);
      // The retrieve and the event carry the same measurement and interpretation.
      assert.deepEqual(
        session.results.map((result) => [result.measurement, result.interpretation]),
        data.results.map((result) => [result.measurement, result.interpretation]),
      );
      // Panels: every result sits under the header printed above it, in its own page column.
      const panelNames = new Map(session.panels.map((panel) => [panel.id, panel.name]));
      for (const row of report.truth) {
        const result = session.results.find((candidate) => candidate.biomarker.key === row.key)!;
        assert.equal(panelNames.get(result.biomarker.panel_id!), row.panel, `${row.key} panel`);
      }
      assert.deepEqual(session.status_history.map((entry) => entry.status).slice(0, 2), [
        'processing',
        'completed',
      ]);
      assert.equal(session.input_bytes, pdf.length);
    });
  }

  test('list filters, deliveries, files (download link), and deletion', async () => {
    const report = generateReport({ ...LAYOUTS[0]!, keys: ['glucose', 'hba1c', 'tsh'] });
    const pdf = await renderPdf(report);
    const uploadId = await upload(service, developer, pdf, {
      filename: 'three.pdf',
      referenceId: 'filter_ref',
      contract,
    });
    await eventFor(uploadId);
    const summary = await waitForSession(service, developer, uploadId);
    const sessionId = String(summary.session_id);

    const list = async (query: string) => {
      const response = await api(service, developer, 'GET', `/v2/lab-reports${query}`, contract);
      assert.equal(response.statusCode, 200, response.body);
      return (response.json() as { sessions: Json[] }).sessions.map((session) => session.session_id);
    };
    assert.deepEqual(await list('?reference_id=filter_ref'), [sessionId]);
    assert.deepEqual(
      await list('?reference_id=filter_ref&report_date_from=2025-03-15&report_date_to=2025-03-15'),
      [sessionId],
    );
    assert.deepEqual(await list('?reference_id=filter_ref&report_date_from=2025-03-16'), []);
    assert.deepEqual(await list('?reference_id=filter_ref&report_date_to=2025-03-14'), []);
    const today = new Date().toISOString().slice(0, 10);
    assert.deepEqual(await list(`?upload_id=${uploadId}&uploaded_at_from=${today}&uploaded_at_to=${today}`), [
      sessionId,
    ]);
    assert.deepEqual(await list(`?upload_id=${uploadId}&uploaded_at_to=2020-01-01`), []);
    const listed = (await api(service, developer, 'GET', `/v2/lab-reports?upload_id=${uploadId}`)).json() as {
      sessions: Json[];
    };
    assert.equal(listed.sessions[0]!.results, undefined, 'list items carry no results');
    const bad = problemOf(
      await api(service, developer, 'GET', '/v2/lab-reports?report_date_from=2025-13-40'),
    );
    assert.equal(bad.status, 400);
    assert.match(bad.body.detail, /report_date_from/);

    // Another developer sees none of it.
    const stranger = await createDeveloper(service.ctx);
    assert.deepEqual((await api(service, stranger, 'GET', '/v2/lab-reports')).json(), { sessions: [] });
    assert.equal((await api(service, stranger, 'GET', `/v2/lab-reports/${sessionId}`)).statusCode, 404);

    // Delivered to the one webhook destination on the first attempt.
    await receiver.waitFor(() => true, 'any');
    const deliveries = await until(
      'the lab report delivery to be delivered',
      async () =>
        (
          (
            await api(service, developer, 'GET', `/v2/lab-reports/${sessionId}/deliveries`, contract)
          ).json() as { deliveries: Json[] }
        ).deliveries,
      { done: (found) => found[0]?.status === 'delivered' },
    );
    assert.equal(deliveries.length, 1);
    assert.equal(deliveries[0]!.status, 'delivered');
    assert.equal(deliveries[0]!.attempt_count, 0);
    assert.equal(deliveries[0]!.destination_type, 'webhook');
    const sent = (await api(service, developer, 'GET', `/v2/lab-reports/${sessionId}`)).json() as Json & {
      status_history: Json[];
    };
    assert.equal(sent.current_status, 'sent');
    assert.deepEqual(
      sent.status_history.map((entry) => entry.status),
      ['processing', 'completed', 'sent'],
    );

    // The file: stored sealed (never the plain bytes), downloadable through the link, byte for byte.
    const stored = await service.ctx.db
      .selectFrom('lab_report_files')
      .select('sealed')
      .where('session_id', '=', sessionId)
      .executeTakeFirstOrThrow();
    // Sealed bytes: the file's size plus the seal, and none of its bytes in the clear.
    assert.equal(stored.sealed.byteLength, pdf.length + SEALED_BYTES_OVERHEAD);
    assert.ok(!Buffer.from(stored.sealed).includes(pdf.subarray(0, 64)));
    const files = (
      await api(service, developer, 'GET', `/v2/lab-reports/${sessionId}/files`, contract)
    ).json() as {
      files: { filename: string; presigned_url: string }[];
      expires_at: string;
    };
    assert.equal(files.files[0]!.filename, 'three.pdf');
    const link = new URL(files.files[0]!.presigned_url);
    const download = await service.app.inject({ method: 'GET', url: `${link.pathname}${link.search}` });
    assert.equal(download.statusCode, 200);
    assert.equal(download.headers['content-type'], 'application/pdf');
    assert.ok(download.rawPayload.equals(pdf));
    const forged = await service.app.inject({
      method: 'GET',
      url: `${link.pathname}${link.search.slice(0, -4)}AAAA`,
    });
    assert.equal(forged.statusCode, 404);
    assert.match(String(forged.headers['content-type']), /problem\+json/);

    // Deleted: the session, its results and its file are gone, and so is the link.
    assert.equal(
      (await api(service, developer, 'DELETE', `/v2/lab-reports/${sessionId}`, contract)).statusCode,
      204,
    );
    assert.equal(
      (await api(service, developer, 'GET', `/v2/lab-reports/${sessionId}`, contract)).statusCode,
      404,
    );
    assert.equal((await api(service, developer, 'DELETE', `/v2/lab-reports/${sessionId}`)).statusCode, 404);
    assert.equal(
      (await service.app.inject({ method: 'GET', url: `${link.pathname}${link.search}` })).statusCode,
      404,
    );
    const left = await service.ctx.db
      .selectFrom('lab_report_files')
      .select('session_id')
      .where('session_id', '=', sessionId)
      .execute();
    assert.deepEqual(left, []);
    assert.deepEqual(await list('?reference_id=filter_ref'), []);
  });

  test('bad input: every refusal is a problem naming what is wrong', async () => {
    const problem = async (response: Awaited<ReturnType<typeof api>>, status: number, detail: RegExp) => {
      const parsed = problemOf(response);
      assert.equal(parsed.status, status, response.body);
      assert.match(parsed.contentType, /application\/problem\+json/);
      assert.match(parsed.body.detail, detail);
    };
    const json = await service.app.inject({
      method: 'POST',
      url: '/v2/lab-reports',
      headers: developer.headers,
      payload: { file: 'x' },
    });
    await problem(json, 400, /multipart\/form-data/);
    await problem(
      await api(
        service,
        developer,
        'POST',
        '/v2/lab-reports',
        contract,
        multipart(Buffer.from('x'), { field: 'document' }),
      ),
      400,
      /missing file/,
    );
    await problem(
      await api(
        service,
        developer,
        'POST',
        '/v2/lab-reports',
        contract,
        multipart(Buffer.from('just some text')),
      ),
      400,
      /PDF, PNG, JPEG, GIF or WebP/,
    );
    await problem(
      await api(service, developer, 'POST', '/v2/lab-reports', contract, multipart(Buffer.alloc(0))),
      400,
      /file: the file is empty/,
    );
    const huge = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(20 * 1024 * 1024)]);
    await problem(
      await api(service, developer, 'POST', '/v2/lab-reports', contract, multipart(huge)),
      413,
      /20 MB/,
    );
    await problem(await api(service, developer, 'GET', '/v2/lab-reports/abc', contract), 400, /session_id/);
    await problem(
      await api(service, developer, 'GET', '/v2/lab-reports/987654321', contract),
      404,
      /no lab report session/,
    );
    await problem(
      await api(service, developer, 'GET', '/v2/lab-reports/987654321/files', contract),
      404,
      /no lab report session/,
    );
    const anonymous = await service.app.inject({ method: 'GET', url: '/v2/lab-reports' });
    assert.equal(anonymous.statusCode, 401);
  });

  test('an unreadable file fails with file_unreadable, while a good one beside it completes', async () => {
    const broken = Buffer.from('%PDF-1.7\nthis is not a PDF at all\n%%EOF');
    const good = await renderPdf(generateReport({ ...LAYOUTS[0]!, keys: ['glucose'] }));
    const brokenUpload = await upload(service, developer, broken, { filename: 'broken.pdf', contract });
    const goodUpload = await upload(service, developer, good, { contract });
    const failed = await eventFor(brokenUpload);
    assert.equal(failed.type, 'lab_report.failed');
    const error = (failed.data as { error: Json }).error;
    assert.equal(error.code, 'file_unreadable');
    assert.equal(error.retriable, false);
    assert.equal((await eventFor(goodUpload)).type, 'lab_report.completed');
    const session = await waitForSession(service, developer, brokenUpload);
    assert.equal(session.current_status, 'failed');
    assert.deepEqual(
      (session.status_history as Json[]).map((entry) => entry.status),
      ['processing', 'failed'],
    );

    // A page with text but no results: extraction_failed.
    const empty = await renderPdf(generateReport({ ...LAYOUTS[0]!, keys: [] }));
    const emptyEvent = await eventFor(await upload(service, developer, empty, { contract }));
    assert.equal((emptyEvent.data as { error: Json }).error.code, 'extraction_failed');
  });

  test('a transient fault is retried; after the last attempt the session fails as internal (retriable)', async () => {
    let calls = 0;
    const flaky = createLabReportsService({
      db: service.ctx.db,
      jobs: { send: async () => null } as never,
      clock: service.ctx.clock,
      log: service.ctx.log,
      secretBox: service.ctx.secretBox,
      publicUrl: service.config.publicUrl,
      webhooks: service.ctx.webhooks,
      parse: async () => {
        calls += 1;
        throw new Error('simulated fault');
      },
    });
    const pdf = await renderPdf(generateReport({ ...LAYOUTS[0]!, keys: ['glucose'] }));
    const { upload_id: uploadId } = await flaky.upload(
      { id: developer.devId },
      { bytes: pdf, fileName: null },
      undefined,
    );
    const [row] = await service.ctx.db
      .selectFrom('lab_report_sessions')
      .select(['id'])
      .where('upload_id', '=', uploadId)
      .execute();
    const sessionId = String(row!.id);
    for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt += 1)
      await assert.rejects(flaky.process(sessionId), /simulated fault/);
    await flaky.process(sessionId);
    assert.equal(calls, MAX_ATTEMPTS);
    const event = await eventFor(uploadId);
    assert.equal(event.type, 'lab_report.failed');
    assert.deepEqual((event.data as { error: Json }).error, {
      code: 'internal',
      message: 'The report could not be processed; submitting it again may succeed.',
      retriable: true,
    });
    // Done is done: a late duplicate job changes nothing.
    await flaky.process(sessionId);
    assert.equal(calls, MAX_ATTEMPTS);
  });

  test(
    'every recorded answer and event validates against the vendor documents',
    { skip: contract.missing },
    () => {
      assert.ok(contract.exercised.size >= 6, [...contract.exercised].join(', '));
      assert.ok((contract.eventsChecked.get('lab_report.completed') ?? 0) >= 4);
      assert.ok((contract.eventsChecked.get('lab_report.failed') ?? 0) >= 2);
      assert.equal(contract.errors.length, 0, contract.report());
    },
  );
});
