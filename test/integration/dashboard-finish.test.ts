import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connectSandboxUser } from '../helpers/connections.ts';
import { DashboardClient } from '../helpers/dashboard.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { createOrder } from '../helpers/orders.ts';

/**
 * The developer dashboard's finish: every moment in one format (`2026-11-27 21:04:05 UTC` in a
 * <time> with the exact value), never a wire timestamp with microseconds and an offset; and an
 * empty list says what to do to fill it.
 */
const ONE_FORMAT =
  /<time datetime="\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z">\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC<\/time>/;
/** A wire timestamp as the API sends it: microseconds and an offset. */
const WIRE_TIMESTAMP = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}[+-]\d{2}:\d{2}/;

/** The page's text a person reads: tags and attribute values removed. */
const visible = (html: string) => html.replace(/<[^>]*>/g, ' ');

describe('dashboard finish', () => {
  let service: TestService;
  let empty: DashboardClient;
  let busy: DashboardClient;
  let busyDev: TestDeveloper;
  let userId: string;
  let orderId: string;

  before(async () => {
    service = await startTestService({ work: false });
    const emptyDev = await createDeveloper(service.ctx, { orderApi: true });
    busyDev = await createDeveloper(service.ctx, { orderApi: true });
    ({ userId } = await connectSandboxUser(service.app, busyDev, { referenceId: 'finish-ref' }));
    orderId = (await createOrder(service, busyDev)).order_id;
    empty = new DashboardClient(service.app);
    busy = new DashboardClient(service.app);
    assert.equal((await empty.signIn(emptyDev.devId, emptyDev.apiKey)).statusCode, 303);
    assert.equal((await busy.signIn(busyDev.devId, busyDev.apiKey)).statusCode, 303);
  });
  after(async () => {
    await service?.close();
  });

  test('users, a user, orders and an order show their moments in one format', async () => {
    for (const page of [
      '/dashboard/users',
      `/dashboard/users/${userId}`,
      '/dashboard/orders',
      `/dashboard/orders/${orderId}`,
    ]) {
      const response = await busy.get(page);
      assert.equal(response.statusCode, 200, `${page}: ${response.body}`);
      assert.match(response.body, ONE_FORMAT, `${page} shows a moment in the one format`);
      assert.doesNotMatch(visible(response.body), WIRE_TIMESTAMP, `${page} shows no wire timestamp`);
    }
  });

  test('an empty users page says how a user appears; a search that finds none says how to search', async () => {
    const users = visible((await empty.get('/dashboard/users')).body);
    assert.match(users, /No users yet\. A user appears when a person connects an account/);
    assert.match(users, /npx tributary sandbox connect --dev-id/);
    const search = await busy.get('/dashboard/users?q=nobody-by-this-reference');
    assert.equal(search.statusCode, 200, search.body);
    assert.match(visible(search.body), /No user has this user id or reference id\./);
  });

  test('an empty orders page says how orders are made', async () => {
    const orders = visible((await empty.get('/dashboard/orders')).body);
    assert.match(orders, /No orders yet\. Orders are created through the order API/);
    assert.match(orders, /POST \/api\/v1\/orders/);
  });

  test('an empty webhooks page says how to get events; filters that match none say so', async () => {
    const webhooks = visible((await empty.get('/dashboard/webhooks')).body);
    assert.match(webhooks, /No events yet\. Set a destination URL above, then press {2}Send test event/);
    assert.match(webhooks, /npx tributary listen/);
    const filtered = visible((await busy.get('/dashboard/webhooks?type=no-such-type')).body);
    assert.match(filtered, /No events match these filters\./);
  });
});
