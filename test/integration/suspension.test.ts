// Suspending a developer stops everything for it (issue 13, item 5): its hosted pages show a
// neutral "unavailable" page (the widget, the kit activation page), auth links handed out before
// fail at the callback without connecting anyone, kits cannot be activated, and public discovery
// answers as for a developer with nothing enabled. Resuming brings all of it back.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MESSAGES } from '../../src/http/hosted/i18n.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { authenticateUser, callback, decideSandboxConsent, pathOf } from '../helpers/connections.ts';
import { activationBody, advance, api, createOrder } from '../helpers/orders.ts';
import { setUrl } from '../helpers/webhook-api.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';
import { formToken } from '../helpers/widget.ts';
import { until } from '../helpers/until.ts';

describe('a suspended developer', () => {
  let service: TestService;
  let developer: TestDeveloper;

  const suspend = () => service.ctx.developers.setStatus(developer.devId, 'suspended');
  const resume = () => service.ctx.developers.setStatus(developer.devId, 'active');
  /** Read through the service: the API answers a suspended developer 403. */
  const eventReaches = (eventId: string, status: string) =>
    until(`${eventId} ${status}`, async () => {
      const page = await service.ctx.webhooks.listDeliveries(developer.devId, {});
      return page.deliveries.some((delivery) => delivery.eventId === eventId && delivery.status === status);
    });
  const neutral = (body: string) => {
    assert.ok(body.includes(MESSAGES.en.unavailableTitle), 'the neutral unavailable page');
    assert.doesNotMatch(body, /suspend/i, 'the page does not say why');
    assert.equal(body.includes(developer.devId), false);
  };

  before(async () => {
    service = await startTestService({ env: { ORDER_SANDBOX_TIMERS: 'off' } });
    developer = await createDeveloper(service.ctx, { orderApi: true });
  });
  after(async () => {
    await service?.close();
  });

  test('its widget shows a neutral unavailable page and starts nothing; resumed, it works again', async () => {
    const created = await service.app.inject({
      method: 'POST',
      url: '/v2/auth/generateWidgetSession',
      headers: developer.headers,
      payload: {},
    });
    const path = pathOf((created.json() as { url: string }).url);
    const token = formToken((await service.app.inject({ method: 'GET', url: path })).body) ?? '';
    const choose = () =>
      service.app.inject({
        method: 'POST',
        url: `${path}/connect`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ provider: 'SANDBOX', csrf_token: token }).toString(),
      });

    await suspend();
    try {
      const page = await service.app.inject({ method: 'GET', url: path });
      assert.equal(page.statusCode, 403);
      neutral(page.body);
      const chosen = await choose();
      assert.equal(chosen.statusCode, 403);
      assert.equal(chosen.headers.location, undefined);
      neutral(chosen.body);
      const pending = await service.ctx.db
        .selectFrom('connections')
        .select('id')
        .where('developer_id', '=', developer.devId)
        .execute();
      assert.deepEqual(pending, [], 'no pending user was created');
    } finally {
      await resume();
    }
    assert.equal((await service.app.inject({ method: 'GET', url: path })).statusCode, 200);
    assert.equal((await choose()).statusCode, 303);
  });

  test('an auth link handed out before the suspension fails at the callback and connects no one', async () => {
    const { userId, authUrl } = await authenticateUser(service.app, developer, 'SANDBOX', {
      reference_id: 'before-suspension',
      auth_success_redirect_url: 'https://app.example/done',
    });
    const back = await decideSandboxConsent(service.app, authUrl, 'approve');
    await suspend();
    try {
      const landed = await callback(service.app, back);
      assert.equal(landed.statusCode, 403);
      assert.equal(landed.headers.location, undefined, 'no redirect to the developer');
      neutral(landed.body);
      const user = await service.ctx.db
        .selectFrom('connections')
        .select('status')
        .where('id', '=', userId)
        .executeTakeFirst();
      assert.equal(user, undefined, 'the pending user is gone, never activated');
      const tokens = await service.ctx.db
        .selectFrom('provider_tokens')
        .select('user_id')
        .where('user_id', '=', userId)
        .execute();
      assert.deepEqual(tokens, []);
      // The same state cannot be used again after a resume either.
      await resume();
      assert.equal((await callback(service.app, back)).statusCode, 400);
    } finally {
      await resume();
    }
  });

  test('its kits cannot be activated, on the hosted page or through the API; resumed, they can', async () => {
    const order = await createOrder(service, developer);
    await advance(service, developer, order.order_id, 'payment_complete');
    const kitId = String(order.order_items[0]?.supplier_item_id);
    await suspend();
    try {
      const page = await service.app.inject({ method: 'GET', url: `/activate?kit_id=${kitId}` });
      assert.equal(page.statusCode, 403);
      assert.match(page.body, /not available/);
      assert.doesNotMatch(page.body, /suspend/i);
      const form = await service.app.inject({
        method: 'POST',
        url: '/activate',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ kit_id: kitId }).toString(),
      });
      assert.equal(form.statusCode, 403);
      assert.doesNotMatch(form.body, /suspend/i);
      const viaApi = await api(service, undefined, 'POST', '/api/v1/orders/activate', activationBody(kitId));
      assert.equal(viaApi.status, 403);
      assert.doesNotMatch(String(viaApi.body.detail), /suspend/i);
    } finally {
      await resume();
    }
    const activated = await api(service, undefined, 'POST', '/api/v1/orders/activate', activationBody(kitId));
    assert.equal(activated.status, 200, JSON.stringify(activated.body));
  });

  test('its deliveries are held, not dropped, and flow again on resume; no scheduled healthcheck meanwhile', async () => {
    const receiver = await startWebhookReceiver();
    try {
      await setUrl(service, developer, receiver.url);
      // Earlier tests' events (orders) waited for a URL; setting one sends them. Let them arrive
      // first, so that only this test's event is held by the suspension below.
      await until('earlier events delivered', async () => {
        const page = await service.ctx.webhooks.listDeliveries(developer.devId, {});
        return page.deliveries.every(
          (delivery) => delivery.status !== 'pending' && delivery.status !== 'held',
        );
      });
      await suspend();
      let held = '';
      const isHeldEvent = (request: { headers: Record<string, unknown> }) =>
        request.headers['webhook-id'] === held;
      try {
        // Events keep being recorded while suspended (a connection ends, a test event is asked for).
        held = (await service.ctx.webhooks.sendTest(developer.devId)).eventId;
        await eventReaches(held, 'held');
        assert.ok(!receiver.received.some(isHeldEvent), 'it did not reach the receiver');
        const destination = await service.ctx.webhooks.getDestination(developer.devId);
        assert.equal(destination.heldEvents, 1);
        const sent = await service.ctx.webhooks.sendScheduledHealthchecks();
        const queued = await service.ctx.webhooks.listDeliveries(developer.devId, { type: 'healthcheck' });
        assert.equal(queued.deliveries.length, 1, `the scheduled pass (${sent} sent) skipped this developer`);
      } finally {
        await resume();
      }
      await eventReaches(held, 'delivered');
      const delivered = receiver.received.find(isHeldEvent);
      assert.equal((JSON.parse(delivered?.body ?? '{}') as { type?: string }).type, 'healthcheck');
    } finally {
      await receiver.close();
    }
  });

  test('public discovery answers as for a developer with nothing enabled', async () => {
    const ask = () =>
      service.app.inject({ method: 'GET', url: `/v2/integrations/detailed?dev_id=${developer.devId}` });
    assert.ok((await ask()).json<{ providers: unknown[] }>().providers.length > 0);
    await suspend();
    try {
      const suspended = await ask();
      const unknown = await service.app.inject({
        method: 'GET',
        url: '/v2/integrations/detailed?dev_id=nobody-00000000',
      });
      assert.equal(suspended.statusCode, 200);
      assert.equal(suspended.body, unknown.body);
      assert.deepEqual(suspended.json(), { status: 'success', providers: [] });
    } finally {
      await resume();
    }
  });
});
