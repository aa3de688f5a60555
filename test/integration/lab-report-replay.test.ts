// Lab-report events are replayable like every other event (issue 27 item 4): the payload's
// `event_id` is the webhook event's own id (the `webhook-id` header), so the replay API takes it and
// sends the same bytes again. Before, lab-report events carried an `evt_<uuid>` of their own that
// the replay API answered with 404.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { generateReport, renderPdf } from '../helpers/lab-report-samples.ts';
import { upload } from '../helpers/lab-reports.ts';
import { call, setUrl } from '../helpers/webhook-api.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

type Json = Record<string, unknown>;

describe('lab-report events: replayed through the webhook replay API', () => {
  let service: TestService;
  let developer: TestDeveloper;
  let receiver: WebhookReceiver;

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

  const deliveriesOf = (uploadId: string) =>
    receiver.received.filter((entry) => (JSON.parse(entry.body) as Json).upload_id === uploadId);

  async function replayed(file: Buffer, type: string): Promise<void> {
    const uploadId = await upload(service, developer, file, { filename: 'report.pdf' });
    await receiver.waitFor(
      () => deliveriesOf(uploadId).length === 1,
      `the ${type} event of ${uploadId}`,
      120_000,
    );
    const [first] = deliveriesOf(uploadId);
    const event = JSON.parse(first!.body) as Json;
    assert.equal(event.type, type);
    assert.match(
      String(event.event_id),
      /^evt_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    assert.equal(first!.headers['webhook-id'], event.event_id, 'the payload names the event the log knows');

    const replay = await call(
      service,
      developer,
      'POST',
      `/v2/webhook/deliveries/${String(event.event_id)}/replay`,
    );
    assert.equal(replay.status, 202, JSON.stringify(replay.body));
    assert.deepEqual(replay.body, { status: 'queued', event_id: event.event_id });

    await receiver.waitFor(() => deliveriesOf(uploadId).length === 2, `the replay of ${uploadId}`, 120_000);
    const second = deliveriesOf(uploadId)[1]!;
    assert.equal(second.body, first!.body, 'the same bytes');
    assert.equal(second.headers['webhook-id'], event.event_id);
  }

  test('lab_report.completed', async () => {
    const pdf = await renderPdf(
      generateReport({
        layout: 'one-column',
        unitsColumn: true,
        system: 'US',
        flagStyle: 'letters',
        keys: ['glucose'],
      }),
    );
    await replayed(pdf, 'lab_report.completed');
  });

  test('lab_report.failed', async () => {
    await replayed(Buffer.from('%PDF-1.7\nthis is not a PDF at all\n%%EOF'), 'lab_report.failed');
  });
});
