// Every text a developer, an end user's app or a visitor controls comes back escaped on the
// dashboard and hosted pages: a <script> (and a quote that would close an attribute) planted in
// each field is shown as text, and no page carries a script element (none has one of its own).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { authenticateUser, pathOf } from '../helpers/connections.ts';
import { DashboardClient, formTokenIn } from '../helpers/dashboard.ts';
import { createOrder } from '../helpers/orders.ts';
import { insertUser } from '../helpers/users.ts';

const OPERATOR_TOKEN = 'operator-token-for-the-xss-test-0123456789';
/** Closes a quoted attribute, then opens a script: harmless only if escaped. */
const XSS = `"'><script>alert(1)</script>`;
const ESCAPED = '&quot;&#39;&gt;&lt;script&gt;alert(1)&lt;/script&gt;';

function assertEscaped(page: { statusCode: number; body: string }, where: string, times = 1) {
  assert.ok(page.statusCode < 500, `${where}: ${page.statusCode}`);
  assert.ok(!/<script/i.test(page.body), `${where}: a script element reached the page`);
  const shown = page.body.split(ESCAPED).length - 1;
  assert.ok(shown >= times, `${where}: the planted text is shown escaped ${shown} times, expected ${times}`);
}

describe('planted markup is shown as text', { timeout: 120_000 }, () => {
  let service: TestService;
  let dev: TestDeveloper;
  let userId: string;
  let browser: DashboardClient;

  before(async () => {
    service = await startTestService({ work: false, env: { OPERATOR_TOKEN } });
    // The developer's name, an end user's reference id and provider, an order's reference.
    dev = await createDeveloper(service.ctx, { name: `Acme ${XSS}`, orderApi: true });
    userId = await insertUser(service.ctx, {
      developerId: dev.devId,
      provider: `garmin${XSS}`,
      referenceId: `ref ${XSS}`,
    });
    await insertUser(service.ctx, {
      developerId: dev.devId,
      provider: `oura${XSS}`,
      referenceId: `ref ${XSS}`,
      status: 'broken',
    });
    await createOrder(service, dev, { client_order_reference_id: `order ${XSS}` });
    browser = new DashboardClient(service.app);
    const signedIn = await browser.signIn(dev.devId, dev.apiKey);
    assert.equal(signedIn.statusCode, 303, signedIn.body);
  });
  after(async () => {
    await service?.close();
  });

  test('the developer name in the header of every page', async () => {
    for (const page of [
      '/dashboard',
      '/dashboard/users',
      '/dashboard/webhooks',
      '/dashboard/providers',
      '/dashboard/keys',
      '/dashboard/orders',
    ]) {
      assertEscaped(await browser.get(page), page);
    }
  });

  test('reference ids and provider names on the users pages and the overview', async () => {
    assertEscaped(await browser.get('/dashboard/users'), 'users list', 1 + 4);
    const user = await browser.get(`/dashboard/users/${userId}`);
    assertEscaped(user, 'user page', 1 + 2 + 2);
    assert.ok(user.body.includes(`ref ${ESCAPED}`) && user.body.includes(`garmin${ESCAPED}`));
    assertEscaped(await browser.get('/dashboard'), 'overview (chart label, provider errors)', 1 + 2);
  });

  test('the webhook URL, in its form field and in the audit log', async () => {
    const url = `https://example.com/hook?x=${XSS}`;
    const saved = await browser.submit('/dashboard/webhooks', '/dashboard/webhooks/destination', { url });
    assert.equal(saved.statusCode, 303, saved.body);
    const webhooks = await browser.get('/dashboard/webhooks');
    assertEscaped(webhooks, 'webhooks page', 2);
    assert.ok(webhooks.body.includes(`value="https://example.com/hook?x=${ESCAPED}"`));
    assertEscaped(await browser.get('/dashboard'), 'audit log on the overview', 1 + 2 + 1);
  });

  test('the order reference', async () => {
    assertEscaped(await browser.get('/dashboard/orders'), 'orders', 2);
  });

  test('what a visitor types: search boxes, filters, a refused action, the sign-in form', async () => {
    assertEscaped(await browser.get(`/dashboard/users?q=${encodeURIComponent(XSS)}`), 'user search', 1 + 2);
    assertEscaped(
      await browser.get(
        `/dashboard/webhooks?type=${encodeURIComponent(XSS)}&user_id=${encodeURIComponent(XSS)}`,
      ),
      'webhook filters',
      1 + 2,
    );
    const refused = await browser.submit('/dashboard/webhooks', '/dashboard/webhooks/replay', { one: XSS });
    assert.equal(refused.statusCode, 303);
    const flashed = await browser.get('/dashboard/webhooks');
    assert.ok(!/<script/i.test(flashed.body));
    assert.match(flashed.body, /<div class="error" role="alert">/, 'the refusal is shown');
    const visitor = new DashboardClient(service.app);
    assertEscaped(await visitor.signIn(XSS, 'wrong'), 'sign-in form');
  });

  test('the operator pages: developer names', async () => {
    const operator = new DashboardClient(service.app);
    const home = await operator.get('/dashboard');
    await operator.post('/dashboard/operator/sign-in', {
      csrf: formTokenIn(home.body),
      operator_token: OPERATOR_TOKEN,
    });
    assertEscaped(await operator.get('/dashboard/operator'), 'developer list');
    assertEscaped(await operator.get(`/dashboard/operator/developers/${dev.devId}`), 'developer page');
    const created = await operator.submit('/dashboard/operator', '/dashboard/operator/developers', {
      name: `New ${XSS}`,
      environment: 'sandbox',
    });
    assertEscaped(created, 'developer created');
  });

  test('hosted pages: the kit id on the activation page and the state on the consent page', async () => {
    const activation = await service.app.inject({
      method: 'GET',
      url: `/activate?kit_id=${encodeURIComponent(XSS)}`,
    });
    assertEscaped(activation, 'activation form');
    const posted = await service.app.inject({
      method: 'POST',
      url: '/activate',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      payload: new URLSearchParams({ kit_id: XSS, first_name: XSS, city: XSS }).toString(),
    });
    assertEscaped(posted, 'activation form with errors', 3);
    const { authUrl } = await authenticateUser(service.app, dev, 'SANDBOX');
    authUrl.searchParams.set('state', XSS);
    assertEscaped(await service.app.inject({ method: 'GET', url: pathOf(authUrl) }), 'sandbox consent page');
  });
});
