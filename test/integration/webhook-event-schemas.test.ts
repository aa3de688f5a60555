import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import {
  callback,
  connectSandboxUser,
  authenticateUser,
  decideSandboxConsent,
} from '../helpers/connections.ts';
import { upload } from '../helpers/lab-reports.ts';
import { generateReport, renderPdf } from '../helpers/lab-report-samples.ts';
import { type Document, documentValidators, webhookPayloadPath } from '../helpers/openapi-document.ts';
import { activationBody, advance, api, createOrder } from '../helpers/orders.ts';
import { setUrl } from '../helpers/webhook-api.ts';
import { plannedRun } from '../helpers/planned-workouts.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

const plannedWorkout = plannedRun('Tempo', '2024-09-02T07:00:00.000000+00:00');

type Payload = { type?: string; event_type?: string; reference?: string; expected_payloads?: number };
const typeOf = (payload: Payload) => String(payload.type ?? payload.event_type);

/**
 * A whole sandbox journey through the public API, delivered to a real webhook receiver: every
 * event that arrives must validate against its entry in the OpenAPI document's `webhooks` section.
 */
describe('every webhook a sandbox journey sends fits the documented schema', () => {
  let service: TestService;
  let developer: TestDeveloper;
  let receiver: WebhookReceiver;
  let document: Document;
  const payloads = () => receiver.received.map((entry) => JSON.parse(entry.body) as Payload);
  const seen = (type: string) => payloads().some((payload) => typeOf(payload) === type);
  const waitForType = (type: string) => receiver.waitFor(() => seen(type), `a ${type} event`);
  const get = async (url: string) => {
    const response = await service.app.inject({ method: 'GET', url, headers: developer.headers });
    assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
    return response.json() as { reference: string };
  };

  before(async () => {
    service = await startTestService();
    developer = await createDeveloper(service.ctx, { orderApi: true });
    receiver = await startWebhookReceiver();
    await setUrl(service, developer, receiver.url);
    document = (await service.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  });
  after(async () => {
    await service?.close();
    await receiver?.close();
  });

  test('connect, read to the webhook, merged read, healthcheck, an order, a lab report, disconnect', async () => {
    const account = 'sandbox-journey';
    const { userId } = await connectSandboxUser(service.app, developer, { referenceId: 'person-1', account });
    await waitForType('auth');

    // A refused connection: auth_cancelled.
    const refused = await authenticateUser(service.app, developer, 'SANDBOX');
    await callback(service.app, await decideSandboxConsent(service.app, refused.authUrl, 'deny'));
    await waitForType('auth_cancelled');

    // Every data type read to the webhook, one large request (over 28 days) and the athlete.
    const range = 'start_date=2024-02-01&end_date=2024-02-08';
    for (const type of ['activity', 'body', 'daily', 'sleep', 'nutrition', 'menstruation']) {
      await get(`/v2/${type}?user_id=${userId}&${range}&with_samples=true`);
      await waitForType(type);
    }
    const planned = await service.app.inject({
      method: 'POST',
      url: `/v2/plannedWorkout?user_id=${userId}`,
      headers: developer.headers,
      payload: { data: [plannedWorkout] },
    });
    assert.equal(planned.statusCode, 201, planned.body);
    await get(`/v2/plannedWorkout?user_id=${userId}&start_date=2024-09-01&end_date=2024-09-08`);
    await waitForType('planned_workout');
    await get(`/v2/athlete?user_id=${userId}`);
    await waitForType('athlete');
    const large = await get(`/v2/daily?user_id=${userId}&start_date=2024-03-01&end_date=2024-05-01`);
    await receiver.waitFor(() => {
      const mine = payloads().filter((payload) => payload.reference === large.reference);
      const sending = mine.find((payload) => payload.type === 'large_request_sending');
      return sending !== undefined && mine.length === 2 + (sending.expected_payloads ?? 0);
    }, 'every chunk of the large request');

    // The merged view read to the webhook: a merged event.
    await get(`/v3/people/person-1/sleep?${range}&to_webhook=true`);
    await waitForType('merged');

    // The test event (a healthcheck).
    const test = await service.app.inject({
      method: 'POST',
      url: '/v2/webhook/test',
      headers: developer.headers,
    });
    assert.equal(test.statusCode, 202, test.body);
    await waitForType('healthcheck');

    // An order through to results: order.status_changed and order_item.results_status_change.
    const order = await createOrder(service, developer);
    const [item] = order.order_items;
    await advance(service, developer, order.order_id, 'payment_complete', 'processing', 'delivery_fulfilled');
    const activated = await api(
      service,
      undefined,
      'POST',
      '/api/v1/orders/activate',
      activationBody(item!.supplier_item_id),
    );
    assert.equal(activated.status, 200, JSON.stringify(activated.body));
    await advance(service, developer, order.order_id, 'sample_processing_in_lab', 'results_ready');
    await waitForType('order.status_changed');
    await waitForType('order_item.results_status_change');

    // Lab reports: one read, one that cannot be.
    const report = await renderPdf(
      generateReport({
        layout: 'one-column',
        unitsColumn: true,
        system: 'US',
        flagStyle: 'letters',
        keys: ['glucose'],
      }),
    );
    await upload(service, developer, report, { filename: 'report.pdf', referenceId: 'person-1' });
    await waitForType('lab_report.completed');
    await upload(service, developer, Buffer.from('%PDF-1.7\n%broken: no objects, no trailer\n'), {
      filename: 'broken.pdf',
    });
    await waitForType('lab_report.failed');

    // The same account connected again replaces the user (user_reauth); disconnecting it: deauth.
    const again = await connectSandboxUser(service.app, developer, { referenceId: 'person-1', account });
    await waitForType('user_reauth');
    const gone = await service.app.inject({
      method: 'DELETE',
      url: `/v2/auth/deauthenticateUser?user_id=${again.userId}`,
      headers: developer.headers,
    });
    assert.equal(gone.statusCode, 200, gone.body);
    await waitForType('deauth');

    const validator = documentValidators(document);
    const failures: string[] = [];
    const received = new Map<string, number>();
    for (const payload of payloads()) {
      const type = typeOf(payload);
      received.set(type, (received.get(type) ?? 0) + 1);
      assert.ok(document.webhooks?.[type], `${type} is not in the webhooks section`);
      const validate = validator(...webhookPayloadPath(type));
      if (!validate(payload)) failures.push(`${type}: ${JSON.stringify(validate.errors).slice(0, 600)}`);
    }
    assert.deepEqual(failures, []);
    const expected = [
      'auth',
      'auth_cancelled',
      'activity',
      'body',
      'daily',
      'sleep',
      'nutrition',
      'menstruation',
      'athlete',
      'large_request_processing',
      'large_request_sending',
      'merged',
      'healthcheck',
      'order.status_changed',
      'order_item.results_status_change',
      'lab_report.completed',
      'lab_report.failed',
      'deauth',
      'planned_workout',
      'user_reauth',
    ];
    assert.deepEqual(
      expected.filter((type) => !received.has(type)),
      [],
      'event types the journey did not see',
    );
  });
});
