import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createDeveloper, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { launchChromium, SCREENSHOTS, startListeningTestService } from '../helpers/browser.ts';
import { connectSandboxUser } from '../helpers/connections.ts';
import { advance, createOrder } from '../helpers/orders.ts';
import { insertUser } from '../helpers/users.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { until } from '../helpers/until.ts';

/**
 * The dashboard in Debian's Chromium against a listening Tributary with workers: sign in, find a
 * user by reference id, send a test event and see it delivered, replay a rejected delivery, change
 * the widget's provider selection and see a new widget session follow it, create and revoke a key,
 * sign out, the operator's view; another developer's users never appear. Each page is saved as a
 * screenshot (see DOCS below).
 */
// Screenshots go to test-results/ like the other browser tests; with DASHBOARD_SCREENSHOTS=docs
// they refresh the ones docs/dashboard.md shows (a test run does not rewrite the docs otherwise).
const DOCS =
  process.env.DASHBOARD_SCREENSHOTS === 'docs'
    ? join(process.cwd(), 'docs', 'dashboard')
    : join(SCREENSHOTS, 'dashboard');
const OPERATOR_TOKEN = 'operator-token-for-the-browser-test-0123456789';

describe('developer dashboard in a browser', { timeout: 180_000 }, () => {
  let service: TestService & { baseUrl: string };
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let receiver: WebhookReceiver;
  let dev: TestDeveloper;
  let rival: TestDeveloper;
  let userId: string;
  let rivalUser: string;
  let leavingUser: string;

  const shot = (name: string) => page.screenshot({ path: join(DOCS, `${name}.png`), fullPage: true });
  const nav = (name: string) => page.getByRole('navigation').getByRole('link', { name, exact: true }).click();
  const eventStatus = async (eventId: string) =>
    (
      await service.ctx.db
        .selectFrom('deliveries')
        .select('status')
        .where('event_id', '=', eventId)
        .where('destination_id', 'is', null)
        .executeTakeFirst()
    )?.status;

  before(async () => {
    mkdirSync(DOCS, { recursive: true });
    // A second web provider (credentials only; never contacted) so the widget selection can change.
    service = await startListeningTestService({
      env: {
        OPERATOR_TOKEN,
        STRAVA_CLIENT_ID: 'dashboard-test',
        STRAVA_CLIENT_SECRET: 'dashboard-test-secret',
      },
    });
    receiver = await startWebhookReceiver();
    dev = await createDeveloper(service.ctx, { name: 'Acme Health', orderApi: true });
    rival = await createDeveloper(service.ctx, { name: 'Rival Fitness' });
    await service.ctx.webhooks.setDestination(dev.devId, { url: receiver.url });
    ({ userId } = await connectSandboxUser(service.app, dev, { referenceId: 'runner-42' }));
    ({ userId: leavingUser } = await connectSandboxUser(service.app, dev, { referenceId: 'runner-43' }));
    rivalUser = await insertUser(service.ctx, {
      developerId: rival.devId,
      provider: 'SANDBOX',
      referenceId: 'runner-42',
    });
    const order = await createOrder(service, dev);
    await advance(service, dev, order.order_id, 'payment_complete', 'processing');
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: 'light' });
    page = await context.newPage();
  });
  after(async () => {
    await browser?.close();
    await service?.close();
    await receiver?.close();
  });

  test('sign in with the developer id and an API key', async () => {
    await page.goto(`${service.baseUrl}/dashboard`);
    await shot('sign-in');
    await page.getByLabel('Developer ID').fill(dev.devId);
    await page.getByLabel('API key').fill(dev.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    assert.equal(await page.locator('.badge.env-sandbox').textContent(), 'sandbox');
    const cookies = await context.cookies();
    assert.ok(
      !cookies.some((cookie) => cookie.value.includes(dev.apiKey)),
      'the key is not kept in the browser',
    );
    const session = cookies.find((cookie) => cookie.name === 'tributary_dashboard');
    assert.ok(session?.httpOnly);
    assert.equal(session?.sameSite, 'Strict');
    // Keyboard: the first Tab stop skips to the content, the next is the navigation.
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate('document.activeElement.textContent'), 'Skip to content');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate('document.activeElement.textContent'), 'Overview');
  });

  test('find a user by reference id; another developer’s user never appears', async () => {
    await nav('Users');
    await page.getByLabel('User id or reference id').fill('runner-42');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('link', { name: userId }).waitFor();
    assert.equal(await page.getByRole('link', { name: rivalUser }).count(), 0);
    assert.ok(!(await page.content()).includes(rivalUser));
    await shot('users');
    await page.getByRole('link', { name: userId }).click();
    await page.getByRole('heading', { name: 'Connection' }).waitFor();
    await shot('user');
    await page.goto(`${service.baseUrl}/dashboard/users/${rivalUser}`);
    await page.getByRole('heading', { name: 'User not found' }).waitFor();
  });

  test('request a historical read to the webhook, and deauthenticate a user after confirming', async () => {
    await page.goto(`${service.baseUrl}/dashboard/users/${userId}`);
    await page.getByLabel('Data type').selectOption('sleep');
    await page.getByRole('button', { name: 'Request historical read' }).click();
    const notice = (await page.getByRole('status').textContent()) ?? '';
    const reference = /reference ([0-9a-f-]{36})/.exec(notice)?.[1];
    assert.ok(reference, notice);
    await until('the requested sleep data on the webhook', async () =>
      receiver.received.some(
        (request) => request.body.includes(reference) && request.body.includes('"sleep"'),
      ),
    );

    await page.goto(`${service.baseUrl}/dashboard/users/${leavingUser}`);
    const confirm = page.getByRole('button', { name: 'Confirm: Deauthenticate user' });
    assert.equal(await confirm.isVisible(), false, 'hidden until the disclosure is opened');
    await page.locator('summary', { hasText: 'Deauthenticate user' }).click();
    await confirm.click();
    await page.getByText(`User ${leavingUser} was deauthenticated.`).waitFor();
    const gone = await service.ctx.db
      .selectFrom('connections')
      .select('id')
      .where('id', '=', leavingUser)
      .executeTakeFirst();
    assert.equal(gone, undefined);
  });

  test('send a test event and see it delivered in the log', async () => {
    await page.goto(`${service.baseUrl}/dashboard`);
    await nav('Webhooks');
    await page.getByRole('button', { name: 'Send test event' }).click();
    const notice = await page.getByRole('status').textContent();
    const eventId = /Test event (\S+) queued/.exec(notice ?? '')?.[1];
    assert.ok(eventId, notice ?? 'no notice');
    await until('the test event to be delivered', async () => (await eventStatus(eventId)) === 'delivered');
    assert.equal(receiver.byId(eventId).length, 1);
    await page.getByLabel('Event type').fill('healthcheck');
    await page.getByRole('button', { name: 'Filter' }).click();
    const row = page.locator('tr', { has: page.locator(`input[value="${eventId}"]`) });
    assert.equal(await row.locator('.status').textContent(), 'delivered');
    await page.locator('summary', { hasText: 'Attempts' }).first().click();
    assert.match(await page.content(), new RegExp(`webhook-id ${eventId}`));
    await shot('webhooks');
    await page.locator('summary', { hasText: 'Rotate secret' }).click();
    await page.getByRole('button', { name: 'Confirm: Rotate secret' }).click();
    assert.match((await page.locator('#new-secret').textContent()) ?? '', /^whsec_/);
    await page.goto(`${service.baseUrl}/dashboard/webhooks?type=healthcheck`);
    await page.locator('summary', { hasText: 'Attempts' }).first().click();
    await page.getByRole('link', { name: 'Request body and headers' }).first().click();
    await page.getByRole('heading', { name: 'Attempts and responses' }).waitFor();
    assert.match((await page.locator('pre').textContent()) ?? '', /"type": "healthcheck"/);
    await shot('webhook-event');
  });

  test('replay a rejected delivery', async () => {
    receiver.script(400);
    await page.goto(`${service.baseUrl}/dashboard/webhooks`);
    await page.getByRole('button', { name: 'Send test event' }).click();
    const eventId = /Test event (\S+) queued/.exec((await page.getByRole('status').textContent()) ?? '')?.[1];
    assert.ok(eventId);
    await until('the delivery to be rejected', async () => (await eventStatus(eventId)) === 'rejected');
    await page.getByLabel('Status').selectOption('rejected');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByRole('checkbox', { name: `Select ${eventId}` }).check();
    await page.getByRole('button', { name: 'Replay selected' }).click();
    await page.getByText('1 event queued again.').waitFor();
    await until('the replay to be delivered', async () => (await eventStatus(eventId)) === 'delivered');
    assert.equal(receiver.byId(eventId).length, 2, 'sent again with the same webhook-id');
    await page.reload();
    await page.getByLabel('Status').selectOption('delivered');
    await page.getByRole('button', { name: 'Filter' }).click();
    assert.ok((await page.getByRole('checkbox', { name: `Select ${eventId}` }).count()) === 1);
  });

  test('the provider selection decides what a new widget session offers', async () => {
    const widgetProviders = async () => {
      const response = await service.app.inject({
        method: 'POST',
        url: '/v2/auth/generateWidgetSession',
        headers: dev.headers,
        payload: {},
      });
      const widget = await context.newPage();
      await widget.goto((response.json() as { url: string }).url);
      const names = await widget.locator('.provider-button').allTextContents();
      await widget.close();
      return names.map((name) => name.trim());
    };
    const beforeChange = await widgetProviders();
    assert.ok(
      beforeChange.some((name) => /Strava/.test(name)) && beforeChange.some((name) => /Sandbox/i.test(name)),
      beforeChange.join(),
    );
    await nav('Providers');
    await page.getByRole('checkbox', { name: /STRAVA/ }).uncheck();
    await page.getByRole('button', { name: 'Save selection' }).click();
    await page.getByText('The widget now offers SANDBOX.').waitFor();
    await shot('providers');
    const afterChange = await widgetProviders();
    assert.ok(!afterChange.some((name) => /Strava/.test(name)), afterChange.join());
    assert.ok(afterChange.some((name) => /Sandbox/i.test(name)));
  });

  test('orders: status history and a sandbox simulate button', async () => {
    await nav('Orders');
    await shot('orders');
    await page.locator('td a').first().click();
    await page.getByRole('heading', { name: 'Status history' }).waitFor();
    await page.getByRole('button', { name: 'Simulate delivery_fulfilled' }).click();
    await page.getByText('Applied delivery_fulfilled.').waitFor();
    await shot('order');
  });

  test('create a key (shown once) and revoke it', async () => {
    await nav('API keys');
    await page.getByRole('button', { name: 'Create API key' }).click();
    const key = (await page.locator('#new-key').textContent()) ?? '';
    assert.match(key, /^sk_test_/);
    const works = async () =>
      (
        await service.app.inject({
          method: 'GET',
          url: '/v2/webhook',
          headers: { 'dev-id': dev.devId, 'x-api-key': key },
        })
      ).statusCode;
    assert.equal(await works(), 200);
    const keyId = /New API key (\S+)/.exec(
      (await page.getByRole('heading', { level: 2 }).first().textContent()) ?? '',
    )?.[1];
    assert.ok(keyId);
    await page.getByRole('link', { name: 'Back to API keys' }).click();
    await shot('keys');
    await page.locator('summary', { hasText: `Revoke ${keyId}` }).click();
    await page.getByRole('button', { name: `Confirm: Revoke ${keyId}` }).click();
    await page.getByText(`Key ${keyId} revoked.`).waitFor();
    assert.equal(await works(), 401);
  });

  test('overview in dark mode shows the audit log of what was done', async () => {
    await nav('Overview');
    const body = await page.content();
    for (const action of [
      'sign-in',
      'webhook.test',
      'webhook.replay',
      'widget.provider-selection',
      'key.create',
      'key.revoke',
      'order.simulate',
    ]) {
      assert.ok(body.includes(`<td>${action}</td>`), action);
    }
    await shot('overview');
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot('overview-dark');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  test('sign out', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Developer ID').waitFor();
    await page.goto(`${service.baseUrl}/dashboard/users`);
    await page.getByLabel('Developer ID').waitFor();
  });

  test('operator: every developer, from the operator token', async () => {
    await page.goto(`${service.baseUrl}/dashboard`);
    await page.locator('summary', { hasText: 'Operator sign-in' }).click();
    await page.getByLabel('Operator token').fill(OPERATOR_TOKEN);
    await page.getByRole('button', { name: 'Sign in as operator' }).click();
    await page.getByRole('heading', { name: 'Developers', exact: true }).first().waitFor();
    assert.ok((await page.content()).includes(rival.devId));
    await shot('operator');
    await page.getByRole('link', { name: 'Rival Fitness' }).click();
    await page.getByRole('heading', { name: 'Limits' }).waitFor();
    await shot('operator-developer');
  });
});
