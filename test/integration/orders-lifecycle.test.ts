import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { activationBody, advance, api, createOrder, type Json, simulate } from '../helpers/orders.ts';
import { serviceSignatureMatches, standardSignatureMatches } from '../helpers/webhook-api.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { until } from '../helpers/until.ts';

// Lifecycle through simulate, kit activation, results, listing, and the webhook sent for every
// status change (asserted at a real local receiver). Sandbox timers are off: only the test moves orders.
describe('order API: lifecycle, simulate, activation, results, listing', () => {
  let service: TestService;
  let developer: TestDeveloper;
  let receiver: WebhookReceiver;

  const received = (orderId: string) =>
    receiver.received
      .map((entry) => ({ entry, body: JSON.parse(entry.body) as Json & { data: Json } }))
      .filter(({ body }) => body.data?.order_id === orderId);

  before(async () => {
    service = await startTestService({ env: { ORDER_SANDBOX_TIMERS: 'off' } });
    developer = await createDeveloper(service.ctx, { orderApi: true });
    receiver = await startWebhookReceiver();
    await service.ctx.webhooks.setDestination(developer.devId, { url: receiver.url });
  });
  after(async () => {
    await service?.close();
    await receiver?.close();
  });

  test('a full journey: every status change is in status_history and sent as one signed webhook', async () => {
    const order = await createOrder(service, developer, { client_order_reference_id: 'journey' });
    const [item] = order.order_items;
    assert.ok(item);
    await advance(service, developer, order.order_id, 'payment_complete', 'processing', 'delivery_fulfilled');

    const activated = await api(
      service,
      undefined,
      'POST',
      '/api/v1/orders/activate',
      activationBody(item.supplier_item_id),
    );
    assert.equal(activated.status, 200);
    assert.equal(activated.body.success, true);
    assert.equal(activated.body.kit_id, item.supplier_item_id);
    const testTakerId = String(activated.body.test_taker_id);
    assert.match(testTakerId, /^\d+$/);

    await advance(
      service,
      developer,
      order.order_id,
      'sample_processing_in_lab',
      'results_ready',
      'completed',
    );
    const view = await api(service, developer, 'GET', `/api/v1/orders/${order.order_id}`);
    assert.equal(view.body.order_status, 'order.completed');
    const history = view.body.status_history as Json[];
    assert.deepEqual(
      history.map((entry) => entry.status),
      [
        'order.completed',
        'results.results_ready',
        'results.sample_processing_in_lab',
        'results.kit_activated',
        'order.delivery_fulfilled',
        'order.processing',
        'order.payment_complete',
        'order.payment_processing',
      ],
    );
    assert.equal(history[1]?.order_item_id, item.order_item_id);
    const items = view.body.items as Json[];
    assert.deepEqual(items[0]?.test_taker_ids, [testTakerId]);
    assert.equal(items[0]?.item_status, 2);
    assert.match(String(view.body.tracking_number), /^TRB/);

    await receiver.waitFor(
      (list) => list.filter((entry) => entry.body.includes(order.order_id)).length >= 8,
      '8 webhooks for the journey',
    );
    const hooks = received(order.order_id);
    assert.equal(hooks.length, 8, 'one webhook per status change, no more');
    const statuses = hooks.map(({ body }) => String(body.data.status ?? body.data.results_status));
    assert.deepEqual([...statuses].sort(), history.map((entry) => String(entry.status)).sort());
    for (const { entry, body } of hooks) {
      assert.ok(standardSignatureMatches(entry.headers, entry.body, developer.webhookSecret));
      assert.ok(serviceSignatureMatches(entry.headers, entry.body, developer.webhookSecret));
      assert.match(String(body.event_id), /^\d+$/);
      assert.equal(typeof body.timestamp, 'number');
    }
    const shipped = hooks.find(({ body }) => body.data.status === 'order.processing')?.body;
    assert.equal(shipped?.event_type, 'order.status_changed');
    assert.equal(shipped?.data.supplier_item_id, item.supplier_item_id, 'sandbox payloads carry the kit id');
    const ready = hooks.find(({ body }) => body.data.results_status === 'results.results_ready')?.body;
    assert.equal(ready?.event_type, 'order_item.results_status_change');
    assert.deepEqual(ready?.data.test_taker, {
      test_taker_id: testTakerId,
      first_name: 'Grace',
      last_name: 'Hopper',
      email: 'grace@example.com',
      phone_number: '+14155550100',
    });
    assert.equal(ready?.data.variant_id, '1011');

    // Results: a signed link to a FHIR R4 bundle, only with the right test taker.
    const missing = await api(service, developer, 'GET', `/api/v1/results/${item.order_item_id}`);
    assert.equal(missing.status, 400);
    assert.match(String(missing.body.detail), /test_taker_id/);
    const wrong = await api(
      service,
      developer,
      'GET',
      `/api/v1/results/${item.order_item_id}?test_taker_id=123`,
    );
    assert.equal(wrong.status, 404);
    const link = await api(
      service,
      developer,
      'GET',
      `/api/v1/results/${item.order_item_id}?test_taker_id=${testTakerId}`,
    );
    assert.equal(link.status, 200);
    assert.equal(link.body.format, 'json');
    const expiresAt = Date.parse(String(link.body.expires_at));
    assert.ok(Math.abs(expiresAt - Date.now() - 15 * 60_000) < 60_000, 'valid for 15 minutes');
    const download = (url: string) => {
      const parsed = new URL(url);
      return api(service, undefined, 'GET', `${parsed.pathname}${parsed.search}`);
    };
    const results = await download(String(link.body.download_url));
    assert.equal(results.status, 200, 'the link needs no credentials');
    const bundle = results.body as Json & { entry: { resource: Json & { resourceType: string } }[] };
    assert.equal(bundle.resourceType, 'Bundle');
    const kinds = bundle.entry.map((entry) => entry.resource.resourceType);
    assert.equal(kinds[0], 'DiagnosticReport');
    assert.ok(kinds.includes('Patient'));
    const observations = bundle.entry
      .map((entry) => entry.resource)
      .filter((resource) => resource.resourceType === 'Observation');
    assert.equal(observations.length, 4, 'a lipid panel has four observations');
    for (const observation of observations) {
      assert.ok((observation.valueQuantity as Json).value !== undefined);
      assert.ok(Array.isArray(observation.referenceRange));
      const code = ((observation.interpretation as Json[])[0]?.coding as Json[] | undefined)?.[0]?.code;
      assert.ok(['L', 'N', 'H'].includes(String(code)));
    }
    const relinked = await api(
      service,
      developer,
      'GET',
      `/api/v1/results/${item.order_item_id}?test_taker_id=${testTakerId}`,
    );
    const again = await download(String(relinked.body.download_url));
    assert.deepEqual(again.body, results.body, 'the stored results do not change between downloads');
    const tampered = new URL(String(link.body.download_url));
    tampered.searchParams.set('test_taker_id', '123');
    assert.equal((await download(tampered.toString())).status, 403, 'a link cannot be widened');
    const extended = new URL(String(link.body.download_url));
    extended.searchParams.set('expires', String(Number(extended.searchParams.get('expires')) + 3600));
    assert.equal((await download(extended.toString())).status, 403, 'nor extended');

    const acknowledged = await api(
      service,
      developer,
      'POST',
      `/api/v1/results/${item.order_item_id}/acknowledge?test_taker_id=${testTakerId}`,
    );
    assert.deepEqual(acknowledged.body, { status: 'acknowledged' });
    const listed = await api(service, developer, 'GET', '/api/v1/results?status=results.results_ready');
    const summary = (listed.body.results as Json[]).find(
      (entry) => entry.order_item_id === item.order_item_id,
    );
    assert.equal(summary?.is_acknowledged, true);
    assert.equal(summary?.product_name, 'Lipid Panel');
    assert.equal(summary?.test_taker_id, testTakerId);
  });

  test('an invalid transition: 422 with current_status and sorted valid_events, nothing changes', async () => {
    const order = await createOrder(service, developer);
    const refused = await simulate(service, developer, order.order_id, 'completed');
    assert.equal(refused.status, 422);
    assert.equal(refused.body.current_status, 'order.payment_processing');
    assert.deepEqual(refused.body.valid_events, ['cancelled', 'payment_complete', 'payment_failed']);
    await advance(service, developer, order.order_id, 'payment_complete');
    const spec = await simulate(service, developer, order.order_id, 'delivery_fulfilled');
    assert.equal(spec.status, 422);
    assert.deepEqual(spec.body.valid_events, ['cancelled', 'processing'], "the spec's own example");
    const results = await simulate(service, developer, order.order_id, 'results_ready');
    assert.equal(results.status, 422);
    assert.equal(results.body.current_status, 'results.awaiting_sample');
    assert.deepEqual(results.body.valid_events, ['kit_activated']);
    const unknown = await simulate(service, developer, order.order_id, 'teleported');
    assert.equal(unknown.status, 422);
    const view = await api(service, developer, 'GET', `/api/v1/orders/${order.order_id}`);
    assert.equal((view.body.status_history as Json[]).length, 2);
  });

  test('simulate routes results events to items; order_item_id narrows to one; kit_activated creates a test taker', async () => {
    const order = await createOrder(service, developer, {
      items: [
        { variant_id: '1011', quantity: 1 },
        { variant_id: '1041', quantity: 1 },
      ],
    });
    const [first, second] = order.order_items;
    assert.ok(first && second);
    await advance(service, developer, order.order_id, 'payment_complete');
    const one = await simulate(service, developer, order.order_id, 'kit_activated', first.order_item_id);
    assert.deepEqual(one.body, { order_id: order.order_id, applied_event: 'kit_activated' });
    const view = await api(service, developer, 'GET', `/api/v1/orders/${order.order_id}`);
    const items = view.body.items as Json[];
    assert.equal(items[0]?.results_status, 'results.kit_activated');
    assert.equal(items[1]?.results_status, 'results.awaiting_sample');
    assert.equal((items[0]?.test_taker_ids as string[] | undefined)?.length, 1);
    const orderEventOnItem = await simulate(
      service,
      developer,
      order.order_id,
      'processing',
      first.order_item_id,
    );
    assert.equal(orderEventOnItem.status, 400);
    const strangerItem = await simulate(service, developer, order.order_id, 'kit_activated', '42');
    assert.equal(strangerItem.status, 404);
    // Escalation carries its level and due date in history and webhook alike.
    await advance(service, developer, order.order_id, 'processing');
    await simulate(service, developer, order.order_id, 'sample_processing_in_lab', first.order_item_id);
    await simulate(service, developer, order.order_id, 'escalation_raised', first.order_item_id);
    const escalated = (
      (await api(service, developer, 'GET', `/api/v1/orders/${order.order_id}`)).body.status_history as Json[]
    )[0];
    assert.equal(escalated?.status, 'results.escalation_raised');
    assert.equal(escalated?.escalation_level, 'high');
    assert.ok(escalated?.acknowledgment_due_by);
  });

  test('simulate in production: 403', async () => {
    const live = await createDeveloper(service.ctx, { orderApi: true, environment: 'production' });
    const order = await createOrder(service, live);
    const response = await simulate(service, live, order.order_id, 'payment_complete');
    assert.equal(response.status, 403);
    assert.match(String(response.body.detail), /sandbox/);
    // A production order is paid for at creation: its payment is confirmed without a simulator.
    await until(
      'production order to reach order.payment_complete',
      async () =>
        (await api(service, live, 'GET', `/api/v1/orders/${order.order_id}`)).body.order_status ===
        'order.payment_complete',
    );
    const prodHooks = receiver.received.filter((entry) => entry.body.includes(order.order_id));
    assert.equal(prodHooks.length, 0, 'a production order webhook goes to its own developer, not ours');
  });

  test("another developer's order, item and results: 404, never 403", async () => {
    const order = await createOrder(service, developer);
    const other = await createDeveloper(service.ctx, { orderApi: true });
    assert.equal((await api(service, other, 'GET', `/api/v1/orders/${order.order_id}`)).status, 404);
    assert.equal((await simulate(service, other, order.order_id, 'payment_complete')).status, 404);
    const itemId = order.order_items[0]?.order_item_id;
    assert.equal((await api(service, other, 'GET', `/api/v1/results/${itemId}?test_taker_id=1`)).status, 404);
    assert.equal(
      (await api(service, other, 'POST', `/api/v1/results/${itemId}/acknowledge?test_taker_id=1`)).status,
      404,
    );
    const viaKit = await api(
      service,
      other,
      'POST',
      '/api/v1/orders/activate',
      activationBody(String(order.order_items[0]?.supplier_item_id)),
    );
    assert.equal(viaKit.status, 404, 'with credentials, only the owner may activate');
    assert.equal((await api(service, developer, 'GET', '/api/v1/orders/999')).status, 404);
    const invalid = await api(service, developer, 'GET', '/api/v1/orders/not-an-id');
    assert.equal(invalid.status, 400);
    assert.match(String(invalid.body.detail), /^invalid order_id/);
  });

  test('kit activation: unknown kit 404, twice 409, before payment 409, invalid fields 400', async () => {
    const unknown = await api(
      service,
      undefined,
      'POST',
      '/api/v1/orders/activate',
      activationBody('KIT-0000-0000-0000-0000'),
    );
    assert.equal(unknown.status, 404);
    const order = await createOrder(service, developer);
    const kitId = String(order.order_items[0]?.supplier_item_id);
    const early = await api(service, undefined, 'POST', '/api/v1/orders/activate', activationBody(kitId));
    assert.equal(early.status, 409);
    assert.match(String(early.body.detail), /order\.payment_processing/);
    await advance(service, developer, order.order_id, 'payment_complete');
    const invalid = await api(
      service,
      undefined,
      'POST',
      '/api/v1/orders/activate',
      activationBody(kitId, { address: { city: 'X' } }),
    );
    assert.equal(invalid.status, 400);
    assert.ok(
      (invalid.body.invalid_fields as Json[]).some(
        (entry) => entry.field === 'address.address_line_1' && entry.tag === 'required',
      ),
    );
    // Typed by hand: case and dashes do not matter.
    const typed = kitId.toLowerCase().replaceAll('-', ' ');
    const first = await api(
      service,
      developer,
      'POST',
      '/api/v1/orders/activate',
      activationBody(typed, { recipient: undefined }),
    );
    assert.equal(first.status, 200);
    const twice = await api(service, undefined, 'POST', '/api/v1/orders/activate', activationBody(kitId));
    assert.equal(twice.status, 409);
    assert.match(String(twice.body.detail), /already been activated/);
    const view = await api(service, developer, 'GET', `/api/v1/orders/${order.order_id}`);
    const kitHistory = (view.body.status_history as Json[]).filter(
      (entry) => entry.status === 'results.kit_activated',
    );
    assert.equal(kitHistory.length, 1);
  });

  test('the hosted page: HTML form, no credentials, safe headers', async () => {
    const order = await createOrder(service, developer);
    const kitId = String(order.order_items[0]?.supplier_item_id);
    for (const path of ['/activate', '/api/v1/orders/activate']) {
      const page = await service.app.inject({ method: 'GET', url: `${path}?kit_id=${kitId}` });
      assert.equal(page.statusCode, 200);
      assert.match(String(page.headers['content-type']), /^text\/html/);
      assert.equal(page.headers['cache-control'], 'no-store');
      assert.equal(page.headers['referrer-policy'], 'no-referrer');
      assert.match(String(page.headers['content-security-policy']), /frame-ancestors 'none'/);
      assert.match(page.body, /<form method="post" action="\/activate"/);
      assert.match(page.body, new RegExp(`value="${kitId}"`));
      assert.match(page.body, /<label for="f-email">/);
      assert.doesNotMatch(page.body, new RegExp(`${developer.devId}|${developer.apiKey}|sk_test_|Lovelace`));
    }
  });

  test('listing: newest first, cursor pagination, filters, and 400s naming the parameter', async () => {
    const lister = await createDeveloper(service.ctx, { orderApi: true });
    const created: string[] = [];
    for (let index = 0; index < 5; index += 1) {
      created.push(
        (await createOrder(service, lister, { client_order_reference_id: index % 2 === 0 ? 'even' : 'odd' }))
          .order_id,
      );
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await api(
        service,
        lister,
        'GET',
        `/api/v1/orders?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      assert.equal(page.status, 200);
      seen.push(...(page.body.orders as Json[]).map((order) => String(order.order_id)));
      cursor = page.body.next_cursor as string | undefined;
      pages += 1;
    } while (cursor);
    assert.equal(pages, 3);
    assert.deepEqual(seen, [...created].reverse(), 'every order once, newest first');

    const even = await api(service, lister, 'GET', '/api/v1/orders?client_order_reference_id=even');
    assert.deepEqual(
      (even.body.orders as Json[]).map((order) => order.order_id),
      [created[4], created[2], created[0]],
    );
    const summary = (even.body.orders as Json[])[0];
    assert.equal(summary?.order_status, 'order.payment_processing');
    assert.equal((summary?.items as Json[] | undefined)?.[0]?.product_name, 'Lipid Panel');

    await advance(service, lister, String(created[1]), 'payment_complete');
    const paid = await api(service, lister, 'GET', '/api/v1/orders?status=order.payment_complete');
    assert.deepEqual(
      (paid.body.orders as Json[]).map((order) => order.order_id),
      [created[1]],
    );
    await advance(
      service,
      lister,
      String(created[3]),
      'payment_complete',
      'processing',
      'delivery_fulfilled',
    );
    const missing = await api(service, lister, 'GET', '/api/v1/orders?missing=true');
    assert.deepEqual(
      (missing.body.orders as Json[]).map((order) => order.order_id),
      [created[3]],
      'delivered, results still outstanding',
    );
    const legacy = await api(service, lister, 'GET', '/api/v1/orders?status=order.failed');
    assert.equal(legacy.status, 200);
    const future = await api(
      service,
      lister,
      'GET',
      `/api/v1/orders?since=${new Date(Date.now() + 60_000).toISOString()}`,
    );
    assert.deepEqual(future.body.orders, []);
    const past = await api(service, lister, 'GET', '/api/v1/orders?since=2020-01-01T00:00:00Z&limit=100');
    assert.equal((past.body.orders as Json[]).length, 5);
    assert.equal(past.body.next_cursor, undefined);

    for (const [query, parameter] of [
      ['cursor=nope!', 'cursor'],
      ['cursor=eyJ4IjoxfQ', 'cursor'],
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=ten', 'limit'],
      ['status=order.lost', 'status'],
      ['since=yesterday', 'since'],
    ] as const) {
      const response = await api(service, lister, 'GET', `/api/v1/orders?${query}`);
      assert.equal(response.status, 400, query);
      assert.match(String(response.body.detail), new RegExp(`^invalid ${parameter}`), query);
    }
    const badResults = await api(service, lister, 'GET', '/api/v1/results?status=results.lost');
    assert.equal(badResults.status, 400);
  });
});
