// Reprocessing and review marking (issue 26, items 4 and the review surface):
// `POST /v2/lab-reports/{session_id}/reprocess` reads the stored file again with the current reader
// in the processing job and sends a new lab_report event; the session keeps its results until the
// new read commits; asking twice while it is pending queues one read; it refuses another
// developer's session, one still processing its upload, a deleted one and one whose file is gone.
// A result the reader marked for review shows as such in the API, the webhook event and the
// dashboard's user page.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { createLabReportsService, UnreadableFileError } from '../../src/features/lab-reports/service.ts';
import type { LabResult, ParsedReport } from '../../src/features/lab-reports/result-types.ts';
import {
  createDeveloper,
  problemOf,
  startTestService,
  type TestDeveloper,
  type TestService,
} from '../helpers/app.ts';
import { DashboardClient } from '../helpers/dashboard.ts';
import { generateReport, renderPdf } from '../helpers/lab-report-samples.ts';
import { api, upload, waitForSession } from '../helpers/lab-reports.ts';
import { insertUser } from '../helpers/users.ts';
import { VENDOR_SPEC_DIR, VendorContract } from '../helpers/vendor-contract.ts';
import { setUrl } from '../helpers/webhook-api.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { until } from '../helpers/until.ts';

type Json = Record<string, unknown>;
type Event = Json & { event_id: string; type: string; data: Json & { results: Json[]; unmatched?: Json[] } };

/** Without the shared reference beside the repository the answers are not checked against the vendor's documents. */
const contract = existsSync(VENDOR_SPEC_DIR) ? new VendorContract() : undefined;
if (!contract)
  console.log(`# vendor documents not found at ${VENDOR_SPEC_DIR}: answers not checked against them`);

const result = (
  name: string,
  value: number,
  review = { confidence: 0.95, needs_review: false },
): LabResult => ({
  source: { name, value: String(value), units: 'mg/dL' },
  biomarker: { key: name.toLowerCase(), display_name: name },
  measurement: { type: 'numeric', numeric: value, units: 'mg/dL', ucum_code: 'mg/dL' },
  interpretation: { flag: null, source: 'none' },
  ...review,
});

/** A result as reports read before the reader kept a review marking stored it: without one. */
const unmarked = (name: string, value: number): LabResult => {
  const { confidence: _confidence, needs_review: _needsReview, ...stored } = result(name, value);
  return stored as LabResult;
};

const report = (results: LabResult[], unmatched?: ParsedReport['unmatched']): ParsedReport => ({
  results,
  panels: [],
  pages: 1,
  ocrPages: 0,
  ...(unmatched ? { unmatched } : {}),
});

describe('lab reports: reprocess and review marking', () => {
  let service: TestService;
  let developer: TestDeveloper;
  let stranger: TestDeveloper;
  let receiver: WebhookReceiver;

  before(async () => {
    service = await startTestService({
      env: { WEBHOOK_RETRY_SCALE: '0.001', SANDBOX_ARRIVAL_MINUTES: 'off' },
    });
    developer = await createDeveloper(service.ctx);
    stranger = await createDeveloper(service.ctx);
    receiver = await startWebhookReceiver();
    await setUrl(service, developer, receiver.url);
  });
  after(async () => {
    await service?.close();
    await receiver?.close();
  });

  /**
   * The lab_report events of one upload (a redelivery counted once), once there are `count`, in the
   * order they happened: deliveries are not ordered (docs/webhooks.md), so a later event's delivery
   * may overtake an earlier one's.
   */
  const eventsOf = async (uploadId: string, count: number): Promise<Event[]> => {
    const mine = () => {
      const seen = new Set<string>();
      return receiver.received
        .map((entry) => ({ entry, body: JSON.parse(entry.body) as Event }))
        .filter(
          ({ body }) => body.upload_id === uploadId && !seen.has(body.event_id) && seen.add(body.event_id),
        );
    };
    await receiver.waitFor(() => mine().length >= count, `${count} event(s) of ${uploadId}`, 120_000);
    const found = mine();
    for (const { entry } of found) contract?.checkWebhook(entry.body, `webhook for ${uploadId}`);
    return found
      .map(({ body }) => body)
      .sort((a, b) => Date.parse(occurredAt(a)) - Date.parse(occurredAt(b)));
  };
  const occurredAt = (event: Event) => String(event.occurred_at);

  const sessionIdOf = async (uploadId: string) => {
    const row = await service.ctx.db
      .selectFrom('lab_report_sessions')
      .select(['id'])
      .where('upload_id', '=', uploadId)
      .executeTakeFirstOrThrow();
    return String(row.id);
  };

  const retrieve = async (sessionId: string) => {
    const response = await api(service, developer, 'GET', `/v2/lab-reports/${sessionId}`, contract);
    assert.equal(response.statusCode, 200, response.body);
    return response.json() as Json & { results?: Json[]; unmatched?: Json[]; status_history: Json[] };
  };

  const stored = async (sessionId: string) => {
    const row = await service.ctx.db
      .selectFrom('lab_report_sessions')
      .select(['status', 'status_history', 'attempts', 'event_id', 'results_count', 'error', 'updated_at'])
      .where('id', '=', sessionId as never)
      .executeTakeFirstOrThrow();
    // JSON columns come back parsed from PostgreSQL and as text from some drivers.
    const history = row.status_history as unknown;
    return {
      ...row,
      status_history: (typeof history === 'string' ? JSON.parse(history) : history) as Json[],
    };
  };

  /** A lab-reports service over the test's store whose reader and queue the test holds. */
  const controlled = (read: () => ParsedReport) => {
    const sent: string[] = [];
    const reports = createLabReportsService({
      db: service.ctx.db,
      jobs: {
        send: async (_queue: string, payload: { sessionId: string }) => {
          sent.push(payload.sessionId);
          return null;
        },
      } as never,
      clock: service.ctx.clock,
      log: service.ctx.log,
      secretBox: service.ctx.secretBox,
      publicUrl: service.config.publicUrl,
      webhooks: service.ctx.webhooks,
      parse: async () => read(),
    });
    return { reports, sent };
  };

  test('over a real socket: the stored file is read again and lab_report.completed is sent again', async () => {
    const pdf = await renderPdf(
      generateReport({
        layout: 'one-column',
        unitsColumn: true,
        system: 'US',
        flagStyle: 'letters',
        keys: ['glucose', 'tsh'],
      }),
    );
    const uploadId = await upload(service, developer, pdf, { referenceId: 'reprocess_ref', contract });
    const [first] = await eventsOf(uploadId, 1);
    assert.equal(first!.type, 'lab_report.completed');
    await waitForSession(service, developer, uploadId);
    const sessionId = await sessionIdOf(uploadId);
    // Delivered before the re-read, so the history keeps its `sent`.
    await until('the first event to be delivered (status sent)', () => retrieve(sessionId), {
      done: (session) => session.current_status === 'sent',
    });

    const address = await service.app.listen({ port: 0, host: '127.0.0.1' });
    const response = await fetch(`${address}/v2/lab-reports/${sessionId}/reprocess`, {
      method: 'POST',
      headers: developer.headers,
    });
    const body = await response.text();
    assert.equal(response.status, 202, body);
    assert.match(String(response.headers.get('content-type')), /application\/json/);
    assert.deepEqual(JSON.parse(body), { session_id: sessionId, current_status: 'processing' });
    contract?.checkSchema('LabReportReprocessResponse', body, 'POST reprocess -> 202');

    const [, second] = await eventsOf(uploadId, 2);
    assert.equal(second!.type, 'lab_report.completed');
    assert.notEqual(second!.event_id, first!.event_id, 'a new event, not a redelivery');
    assert.equal(second!.data.session_id, sessionId);
    assert.equal(second!.data.reference_id, 'reprocess_ref');
    assert.deepEqual(second!.data.results, first!.data.results, 'the same reader reads the same results');
    for (const read of second!.data.results) {
      assert.ok(typeof read.confidence === 'number' && read.confidence >= 0 && read.confidence <= 1);
      assert.equal(typeof read.needs_review, 'boolean');
    }

    const summary = await waitForSession(service, developer, uploadId);
    assert.ok(['completed', 'sent'].includes(String(summary.current_status)));
    const session = await retrieve(sessionId);
    assert.deepEqual(
      session.status_history.map((entry) => entry.status),
      ['processing', 'completed', 'sent', 'processing', 'completed'].concat(
        session.status_history.length === 6 ? ['sent'] : [],
      ),
    );
    assert.equal(session.status_history[3]!.note, 'reprocess requested');
    assert.equal(session.results!.length, 2);
  });

  test('refusals: another developer, unknown, deleted, still processing, file gone, malformed id', async () => {
    const problem = async (
      who: TestDeveloper,
      sessionId: string,
      status: number,
      detail: RegExp,
    ): Promise<void> => {
      const response = await api(service, who, 'POST', `/v2/lab-reports/${sessionId}/reprocess`, contract);
      const parsed = problemOf(response);
      assert.equal(parsed.status, status, response.body);
      assert.match(parsed.contentType, /application\/problem\+json/);
      assert.match(parsed.body.detail, detail);
    };
    const { reports, sent } = controlled(() => report([result('Glucose', 90)]));
    const file = { bytes: Buffer.from('%PDF-1.7\n%%EOF\n'), fileName: null };
    const uploadOf = async () => {
      const { upload_id: uploadId } = await reports.upload({ id: developer.devId }, file, 'refusals');
      return sessionIdOf(uploadId);
    };

    // Never read yet: the upload's own job is still to come.
    const pending = await uploadOf();
    await problem(developer, pending, 409, /still processing its upload/);
    await reports.process(pending);

    // Another developer's session does not exist for them, and is left as it was.
    // (The stored row, not the view: the view's status follows the event's delivery meanwhile.)
    const before = await stored(pending);
    await problem(stranger, pending, 404, /no lab report session/);
    assert.deepEqual(await stored(pending), before);
    assert.deepEqual(sent, [pending], 'only the upload queued a read');

    await problem(developer, '987654321', 404, /no lab report session/);
    await problem(developer, 'abc', 400, /session_id/);

    // The file gone (kept no longer) while the session stays: 410, nothing queued.
    await service.ctx.db.deleteFrom('lab_report_files').where('session_id', '=', pending).execute();
    await problem(developer, pending, 410, /no longer stored/);
    assert.deepEqual(await stored(pending), before);

    const deleted = await uploadOf();
    await reports.process(deleted);
    assert.equal((await api(service, developer, 'DELETE', `/v2/lab-reports/${deleted}`)).statusCode, 204);
    await problem(developer, deleted, 404, /no lab report session/);
    assert.equal(sent.length, 2);
  });

  test('results stay until the new read commits; review marks show in the API, the event and the dashboard', async () => {
    let read = report([unmarked('Glucose', 90), unmarked('Cholesterol', 180)]);
    const { reports, sent } = controlled(() => read);
    const { upload_id: uploadId } = await reports.upload(
      { id: developer.devId },
      { bytes: Buffer.from('%PDF-1.7\n%%EOF\n'), fileName: null },
      'review_ref',
    );
    const sessionId = await sessionIdOf(uploadId);
    await reports.process(sessionId);
    const [first] = await eventsOf(uploadId, 1);
    assert.deepEqual(
      first!.data.results.map((entry) => [entry.confidence, entry.needs_review]),
      [
        [1, false],
        [1, false],
      ],
      'a report stored without a marking is passed on as it was then: certain',
    );

    // Asked twice while pending: one read queued, the same answer both times.
    for (let ask = 0; ask < 2; ask += 1) {
      const accepted = await reports.reprocess({ id: developer.devId }, sessionId);
      assert.deepEqual(accepted, { session_id: sessionId, current_status: 'processing' });
    }
    assert.deepEqual(sent, [sessionId, sessionId], 'the upload and one re-read');
    const during = await retrieve(sessionId);
    assert.equal(during.current_status, 'processing');
    assert.deepEqual(
      during.results!.map((entry) => (entry.source as Json).name),
      ['Glucose', 'Cholesterol'],
      'the previous results while the re-read is pending',
    );

    // The current reader is unsure of one value and finds a row it cannot match.
    read = report(
      [
        result('Glucose', 90, { confidence: 0.97, needs_review: false }),
        result('Cholesterol', 1800, { confidence: 0.41, needs_review: true }),
      ],
      [{ page: 1, text: 'Ward <b>7</b> & Lab-ID 44812', reason: 'no dictionary match' }],
    );
    await reports.process(sessionId);
    const [, second] = await eventsOf(uploadId, 2);
    assert.equal(second!.type, 'lab_report.completed');
    const marks = (results: Json[]) =>
      results.map((entry) => [(entry.source as Json).name, entry.confidence, entry.needs_review]);
    const expected = [
      ['Glucose', 0.97, false],
      ['Cholesterol', 0.41, true],
    ];
    assert.deepEqual(marks(second!.data.results), expected);
    assert.deepEqual(second!.data.unmatched, [
      { page: 1, text: 'Ward <b>7</b> & Lab-ID 44812', reason: 'no dictionary match' },
    ]);
    const after = await retrieve(sessionId);
    assert.deepEqual(marks(after.results!), expected);
    assert.deepEqual(after.unmatched, [
      { page: 1, text: 'Ward <b>7</b> & Lab-ID 44812', reason: 'no dictionary match' },
    ]);

    // The dashboard's page of the end user (the same reference id) marks the result to review.
    const userId = await insertUser(service.ctx, {
      developerId: developer.devId,
      provider: 'SANDBOX',
      referenceId: 'review_ref',
    });
    const browser = new DashboardClient(service.app);
    await browser.signIn(developer.devId, developer.apiKey);
    const page = await browser.get(`/dashboard/users/${userId}`);
    assert.equal(page.statusCode, 200);
    const rows = [...page.body.matchAll(/<tr><td>([^<]*)<\/td><td>([^<]*)<\/td>.*?<\/tr>/g)];
    const cholesterol = rows.find((match) => match[1] === 'Cholesterol')?.[0] ?? '';
    const glucose = rows.find((match) => match[1] === 'Glucose')?.[0] ?? '';
    assert.match(cholesterol, /41%.*needs review/);
    assert.doesNotMatch(glucose, /needs review/);
    assert.match(page.body, /1 to review/);
    // Report text is escaped, never markup.
    assert.ok(page.body.includes('Ward &lt;b&gt;7&lt;/b&gt; &amp; Lab-ID 44812'));
    assert.ok(!page.body.includes('<b>7</b>'));

    // The dashboard's "Read again" is the same operation (a stranger's session is not found).
    const again = await browser.submit(
      `/dashboard/users/${userId}`,
      `/dashboard/lab-reports/${sessionId}/reprocess`,
      {
        back: `/dashboard/users/${userId}`,
      },
    );
    assert.equal(again.statusCode, 303);
    assert.equal(again.headers.location, `/dashboard/users/${userId}`);
    // (The service's own worker then reads the stand-in file, so the outcome is not asserted.)
    const requested = (await retrieve(sessionId)).status_history.filter(
      (entry) => entry.note === 'reprocess requested',
    );
    assert.equal(requested.length, 2);
  });

  test('a failed re-read replaces the results with its reason; the next good read clears the reason', async () => {
    let read: () => ParsedReport = () => report([result('Glucose', 90)]);
    const { reports } = controlled(() => read());
    const { upload_id: uploadId } = await reports.upload(
      { id: developer.devId },
      { bytes: Buffer.from('%PDF-1.7\n%%EOF\n'), fileName: null },
      'failing_ref',
    );
    const sessionId = await sessionIdOf(uploadId);
    await reports.process(sessionId);
    read = () => {
      throw new UnreadableFileError('the page tree is damaged');
    };
    await reports.reprocess({ id: developer.devId }, sessionId);
    await reports.process(sessionId);
    const [, failed] = await eventsOf(uploadId, 2);
    assert.equal(failed!.type, 'lab_report.failed');
    assert.equal((failed!.data.error as Json).code, 'file_unreadable');
    const afterFailure = await retrieve(sessionId);
    assert.equal(afterFailure.current_status, 'failed');
    assert.equal(afterFailure.results, undefined, 'no results from an earlier read beside a failure');
    assert.equal(afterFailure.results_count, undefined);

    read = () => report([result('Glucose', 92)]);
    await reports.reprocess({ id: developer.devId }, sessionId);
    await reports.process(sessionId);
    const [, , completed] = await eventsOf(uploadId, 3);
    assert.equal(completed!.type, 'lab_report.completed');
    const row = await stored(sessionId);
    assert.equal(row.status, 'completed');
    assert.equal(row.error, null);
    assert.deepEqual(
      (await retrieve(sessionId)).results!.map((entry) => (entry.source as Json).value),
      ['92'],
    );
  });

  test('two reprocess requests at once queue one read', async () => {
    const { reports, sent } = controlled(() => report([result('Glucose', 90)]));
    const { upload_id: uploadId } = await reports.upload(
      { id: developer.devId },
      { bytes: Buffer.from('%PDF-1.7\n%%EOF\n'), fileName: null },
      'racing_ref',
    );
    const sessionId = await sessionIdOf(uploadId);
    await reports.process(sessionId);
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => reports.reprocess({ id: developer.devId }, sessionId)),
    );
    for (const answer of answers)
      assert.deepEqual(answer, { session_id: sessionId, current_status: 'processing' });
    assert.equal(sent.length, 2, 'the upload and one re-read');
    const requested = (await stored(sessionId)).status_history.filter(
      (entry) => entry.note === 'reprocess requested',
    );
    assert.equal(requested.length, 1);
  });

  test(
    'every recorded answer and event validates against the vendor documents',
    { skip: !contract && 'vendor documents absent' },
    () => {
      assert.ok((contract!.eventsChecked.get('lab_report.completed') ?? 0) >= 4);
      assert.equal(contract!.errors.length, 0, contract!.report());
    },
  );
});
