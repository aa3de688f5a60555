// The order API operations of the vendor's current document that Tributary lacked (issue 14,
// item 3): the client webhook URL, lab draw sites and GO_TO_LAB binding, the overview, and the
// webhook delivery outcomes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { advance, api, createOrder, type Json, orderBody } from '../helpers/orders.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { until } from '../helpers/until.ts';

describe('order API: webhook URL, labs, overview, webhook deliveries', () => {
  let service: TestService;
  let developer: TestDeveloper;
  let receiver: WebhookReceiver;

  before(async () => {
    service = await startTestService({ env: { ORDER_SANDBOX_TIMERS: 'off' } });
    developer = await createDeveloper(service.ctx, { orderApi: true });
    receiver = await startWebhookReceiver();
  });
  after(async () => {
    await service?.close();
    await receiver?.close();
  });

  const patch = (body: Json, who = developer) =>
    service.app.inject({
      method: 'PATCH',
      url: '/api/v1/clients/webhook-url',
      headers: who.headers,
      payload: body,
    });

  test('webhook-url reads and sets the one destination; "" switches it off; production needs https', async () => {
    const empty = await api(service, developer, 'GET', '/api/v1/clients/webhook-url');
    assert.deepEqual(empty.body, {
      client_id: developer.devId,
      customer_id: developer.devId,
      webhook_url: '',
    });
    const set = await patch({ webhook_url: receiver.url });
    assert.equal(set.statusCode, 200, set.body);
    assert.equal(set.json().webhook_url, receiver.url);
    const shared = await api(service, developer, 'GET', '/v2/webhook');
    assert.equal(shared.body.url, receiver.url, 'the same destination as /v2/webhook');

    const off = await patch({ webhook_url: '' });
    assert.equal(off.json().webhook_url, '');
    assert.equal((await patch({ webhook_url: receiver.url })).statusCode, 200);

    const production = await createDeveloper(service.ctx, { orderApi: true, environment: 'production' });
    const refused = await patch({ webhook_url: 'http://hooks.example.com/x' }, production);
    assert.equal(refused.statusCode, 400);
    assert.match(refused.json().detail, /^invalid url: /);
  });

  test('labs: nearest first for a ZIP (ZIP+4 accepted); a malformed ZIP is a 400', async () => {
    const near = await api(service, developer, 'GET', '/api/v1/labs?zip_code=10001-6975');
    const labs = near.body.labs as (Json & { code: string; distance: number; address: Json })[];
    assert.ok(labs.length > 0);
    assert.equal(labs[0]!.code, 'T2O');
    assert.equal(labs[0]!.distance, 0);
    const distances = labs.map((lab) => lab.distance);
    assert.deepEqual(
      distances,
      [...distances].sort((a, b) => a - b),
    );
    for (const zip of ['1000', 'ABCDE', ''])
      assert.equal((await api(service, developer, 'GET', `/api/v1/labs?zip_code=${zip}`)).status, 400, zip);
  });

  test('a GO_TO_LAB order is bound to its site; AT_HOME orders leave confirmed_lab_address out', async () => {
    const lab = { code: 'CHI5', postal_code: '60603' };
    const created = await createOrder(service, developer, {
      client_order_reference_id: 'lab-1',
      collection_type: 'GO_TO_LAB',
      items: [{ variant_id: '1015', quantity: 1 }],
      shipping_address: undefined,
      requested_lab: lab,
    });
    assert.equal((created.confirmed_lab as Json).code, 'CHI5');
    assert.equal((created.confirmed_lab_address as Json).postal_code, '60603');
    const fetched = await api(service, developer, 'GET', `/api/v1/orders/${created.order_id}`);
    assert.equal((fetched.body.confirmed_lab as Json).name, 'Sandbox Diagnostics - The Loop');
    assert.deepEqual(
      fetched.body.shipping_address,
      fetched.body.confirmed_lab_address,
      'the requisition goes to the site',
    );
    assert.deepEqual(fetched.body.requested_lab, lab);

    // Only an address: bound to the site nearest its postal code.
    const byAddress = await createOrder(service, developer, {
      client_order_reference_id: 'lab-2',
      collection_type: 'GO_TO_LAB',
      items: [{ variant_id: '1015', quantity: 1 }],
      shipping_address: undefined,
      requested_lab_address: {
        address_line_1: '1 Main St',
        city: 'Springfield',
        administrative_area: 'IL',
        postal_code: '62704',
        country_code: 'US',
      },
    });
    assert.equal((byAddress.confirmed_lab as Json).code, 'SPI1');

    const unknown = await api(service, developer, 'POST', '/api/v1/orders', {
      ...orderBody({
        collection_type: 'GO_TO_LAB',
        items: [{ variant_id: '1015', quantity: 1 }],
        shipping_address: undefined,
      }),
      requested_lab: { code: 'NOPE' },
    });
    assert.equal(unknown.status, 400);
    assert.equal((unknown.body.invalid_fields as Json[])[0]?.tag, 'unknown_lab_code');

    const atHome = await createOrder(service, developer, { client_order_reference_id: 'home-1' });
    assert.equal('confirmed_lab_address' in atHome, false);
    assert.equal(atHome.confirmed_lab, null);
    const home = await api(service, developer, 'GET', `/api/v1/orders/${atHome.order_id}`);
    assert.equal('confirmed_lab_address' in home.body, false);
    assert.equal((home.body.shipping_address as Json).city, 'Springfield');
  });

  test('webhook deliveries: final outcomes newest first, outcome=failed, pages; the overview counts them', async () => {
    const order = await createOrder(service, developer, { client_order_reference_id: 'hooks' });
    // The receiver refuses the next order event for good (a 4xx is not retried): rejected.
    const aboutOrder = () =>
      receiver.received.filter(
        (entry) => (JSON.parse(entry.body) as { data?: Json }).data?.order_id === order.order_id,
      );
    await receiver.waitFor(() => aboutOrder().length === 1, 'the creation event');
    receiver.script({ status: 410 });
    await advance(service, developer, order.order_id, 'payment_complete');
    // The refusal is for this event: deliveries run side by side, so the next step waits for it.
    await receiver.waitFor(() => aboutOrder().length === 2, 'the payment_complete event (refused)');
    await advance(service, developer, order.order_id, 'processing');
    const ours = () =>
      api(service, developer, 'GET', '/api/v1/webhook-deliveries?limit=100').then((response) =>
        (response.body.deliveries as (Json & { order_id: string })[]).filter(
          (d) => d.order_id === order.order_id,
        ),
      );
    const deliveries = await until('three final outcomes', ours, { done: (found) => found.length >= 3 });
    assert.deepEqual(
      deliveries.map((delivery) => delivery.outcome),
      ['delivered', 'rejected', 'delivered'],
      'newest first: processing, payment_complete (refused), created',
    );
    const rejected = deliveries[1]!;
    assert.equal(rejected.final_status_code, 410);
    assert.equal(rejected.event_type, 'order.status_changed');
    assert.equal(rejected.order_item_id, '');
    assert.match(String(rejected.event_id), /^\d+$/);

    const failed = await api(service, developer, 'GET', '/api/v1/webhook-deliveries?outcome=failed');
    assert.ok((failed.body.deliveries as Json[]).every((delivery) => delivery.outcome === 'rejected'));
    const first = await api(service, developer, 'GET', '/api/v1/webhook-deliveries?limit=1');
    assert.equal((first.body.deliveries as Json[]).length, 1);
    const next = await api(
      service,
      developer,
      'GET',
      `/api/v1/webhook-deliveries?limit=1&cursor=${String(first.body.next_cursor)}`,
    );
    assert.notEqual(
      (next.body.deliveries as Json[])[0]?.event_id,
      (first.body.deliveries as Json[])[0]?.event_id,
    );
    assert.equal(
      (await api(service, developer, 'GET', '/api/v1/webhook-deliveries?outcome=lost')).status,
      400,
    );

    const summary = await api(service, developer, 'GET', '/api/v1/overview');
    const orders = summary.body.orders as { total: number; by_status: Record<string, number> };
    assert.equal(orders.total, 4, 'lab-1, lab-2, home-1 and hooks');
    assert.equal(
      Object.values(orders.by_status).reduce((sum, n) => sum + n, 0),
      orders.total,
    );
    assert.ok(orders.by_status['order.processing']! >= 1);
    const webhooks = summary.body.webhooks as {
      failed_total: number;
      daily: { date: string; failed: number }[];
    };
    assert.ok(webhooks.failed_total >= 1);
    assert.equal(webhooks.daily.length, 8, 'a 7-day window touches 8 UTC days');
    assert.equal(
      webhooks.daily.reduce((sum, day) => sum + day.failed, 0),
      webhooks.failed_total,
    );
    const bad = await api(service, developer, 'GET', '/api/v1/overview?since=yesterday');
    assert.equal(bad.status, 400);
  });
});
