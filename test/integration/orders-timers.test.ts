import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SANDBOX_STEP_QUEUE, type StepJob } from '../../src/features/orders/timers.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { waitForJobsSettled } from '../helpers/jobs.ts';
import { activationBody, api, createOrder, type Json, simulate } from '../helpers/orders.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { until } from '../helpers/until.ts';

// Sandbox orders advance on durable timers like a supplier would. One second per step keeps the
// test short; the realistic default delays are minutes.
describe('order API: sandbox timers', () => {
  let service: TestService;
  let developer: TestDeveloper;
  let receiver: WebhookReceiver;

  const orderOf = async (orderId: string) =>
    (await api(service, developer, 'GET', `/api/v1/orders/${orderId}`)).body;
  const statusIs = (orderId: string, status: string) => async () =>
    (await orderOf(orderId)).order_status === status;

  before(async () => {
    service = await startTestService({ env: { ORDER_SANDBOX_STEP_SECONDS: '1' } });
    developer = await createDeveloper(service.ctx, { orderApi: true });
    receiver = await startWebhookReceiver();
    await service.ctx.webhooks.setDestination(developer.devId, { url: receiver.url });
  });
  after(async () => {
    await service?.close();
    await receiver?.close();
  });

  test('an order ships on its own, and after activation its results arrive and it completes', async () => {
    const order = await createOrder(service, developer);
    await until('the order to be delivered', statusIs(order.order_id, 'order.delivery_fulfilled'));
    const kitId = String(order.order_items[0]?.supplier_item_id);
    const activated = await api(service, undefined, 'POST', '/api/v1/orders/activate', activationBody(kitId));
    assert.equal(activated.status, 200);
    await until('results and completion', statusIs(order.order_id, 'order.completed'));
    const view = await orderOf(order.order_id);
    const history = (view.status_history as Json[]).map((entry) => String(entry.status)).reverse();
    assert.deepEqual(history, [
      'order.payment_processing',
      'order.payment_complete',
      'order.processing',
      'order.delivery_fulfilled',
      'results.kit_activated',
      'results.sample_processing_in_lab',
      'results.results_ready',
      'order.completed',
    ]);
    await receiver.waitFor(
      (list) => list.filter((entry) => entry.body.includes(order.order_id)).length >= history.length,
      'a webhook per timed change',
    );
    const hooks = receiver.received.filter((entry) => entry.body.includes(order.order_id));
    assert.equal(hooks.length, history.length);
    const results = await api(
      service,
      developer,
      'GET',
      `/api/v1/results/${order.order_items[0]?.order_item_id}?test_taker_id=${activated.body.test_taker_id}`,
    );
    assert.equal(results.status, 200);
  });

  test('a simulated event supersedes the pending timer: no step is applied twice', async () => {
    const order = await createOrder(service, developer);
    const jumped = await simulate(service, developer, order.order_id, 'payment_complete');
    assert.equal(jumped.status, 200);
    await until('the order to be delivered', statusIs(order.order_id, 'order.delivery_fulfilled'));
    // Every timer of this order has run (the superseded one included, which found itself stale).
    const timers = await waitForJobsSettled<StepJob>(service.ctx, SANDBOX_STEP_QUEUE, {
      data: { orderId: order.order_id },
    });
    assert.ok(timers.every((job) => job.state === 'completed'));
    assert.ok(
      timers.some((job) => job.data.event === 'payment_complete'),
      'the superseded payment timer was among them',
    );
    const history = ((await orderOf(order.order_id)).status_history as Json[])
      .map((entry) => String(entry.status))
      .reverse();
    assert.deepEqual(history, [
      'order.payment_processing',
      'order.payment_complete',
      'order.processing',
      'order.delivery_fulfilled',
    ]);
  });

  test('two simultaneous activations of one kit: exactly one wins', async () => {
    const order = await createOrder(service, developer);
    await simulate(service, developer, order.order_id, 'payment_complete');
    const kitId = String(order.order_items[0]?.supplier_item_id);
    const [a, b] = await Promise.all([
      api(service, undefined, 'POST', '/api/v1/orders/activate', activationBody(kitId)),
      api(service, undefined, 'POST', '/api/v1/orders/activate', activationBody(kitId)),
    ]);
    assert.deepEqual([a.status, b.status].sort(), [200, 409]);
  });
});
