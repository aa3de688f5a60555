import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createDeveloper, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { launchChromium, PHONE, SCREENSHOTS, startListeningTestService } from '../helpers/browser.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

/**
 * The whole connect flow in a real browser (Debian's Chromium driven by playwright-core) against
 * a real listening Tributary: widget -> SANDBOX -> hosted consent -> callback -> the developer's
 * success URL, with the auth webhook received and the user visible in userInfo.
 */
/** Stands in for the developer's app: where the end user lands afterwards. */
async function startLandingServer(): Promise<{ url: string; server: Server }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end('<!doctype html><title>Developer app</title><p>landed</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('connect widget in a browser', { timeout: 120_000 }, () => {
  let service: TestService;
  let browser: Browser;
  let receiver: WebhookReceiver;
  let landing: { url: string; server: Server };
  let dev: TestDeveloper;

  before(async () => {
    service = await startListeningTestService();
    receiver = await startWebhookReceiver();
    landing = await startLandingServer();
    dev = await createDeveloper(service.ctx);
    await service.ctx.webhooks.setDestination(dev.devId, { url: receiver.url });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await service?.close();
    await receiver?.close();
    await new Promise<void>((resolve) => (landing ? landing.server.close(() => resolve()) : resolve()));
  });

  async function widgetSession(body: Record<string, unknown>): Promise<string> {
    const response = await service.app.inject({
      method: 'POST',
      url: '/v2/auth/generateWidgetSession',
      headers: dev.headers,
      payload: body,
    });
    assert.equal(response.statusCode, 200, response.body);
    return (response.json() as { url: string }).url;
  }

  async function phonePage(): Promise<Page> {
    const context = await browser.newContext({
      viewport: PHONE,
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
    });
    return context.newPage();
  }

  test('widget -> SANDBOX -> approve -> success URL, auth webhook, active user', async () => {
    const url = await widgetSession({
      reference_id: 'browser-user',
      auth_success_redirect_url: `${landing.url}/done?app=demo`,
      auth_failure_redirect_url: `${landing.url}/failed`,
    });
    const page = await phonePage();
    await page.goto(url);
    assert.equal(await page.getAttribute('html', 'lang'), 'en');
    // Strings, not functions: they run in the page, and this file is type-checked without DOM types.
    const overflow = Number(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'));
    assert.ok(overflow <= 0, 'no horizontal scrolling on a phone-sized screen');
    await page.screenshot({ path: join(SCREENSHOTS, 'widget-en.png'), fullPage: true });

    // Keyboard only: Tab to the SANDBOX button, check the focus is visible, press Enter.
    let focused: string | null = null;
    for (let i = 0; i < 10 && focused !== 'SANDBOX'; i++) {
      await page.keyboard.press('Tab');
      focused = await page.locator(':focus').getAttribute('value');
    }
    assert.equal(focused, 'SANDBOX', 'the SANDBOX button is reachable with Tab');
    const outline = await page.evaluate('getComputedStyle(document.activeElement).outlineStyle');
    assert.equal(outline, 'solid', 'focus is visible');
    await Promise.all([page.waitForURL(/\/providers\/sandbox\/consent/), page.keyboard.press('Enter')]);

    await page.getByLabel('Sandbox account').fill('browser-account');
    await page.screenshot({ path: join(SCREENSHOTS, 'sandbox-consent-en.png'), fullPage: true });
    await Promise.all([
      page.waitForURL(`${landing.url}/done**`),
      page.getByRole('button', { name: 'Approve' }).click(),
    ]);

    const landed = new URL(page.url());
    assert.equal(landed.searchParams.get('app'), 'demo');
    assert.equal(landed.searchParams.get('resource'), 'SANDBOX');
    assert.equal(landed.searchParams.get('reference_id'), 'browser-user');
    const userId = landed.searchParams.get('user_id') ?? '';
    assert.match(userId, /^[0-9a-f-]{36}$/);

    await receiver.waitFor(
      (received) =>
        received.some((entry) => {
          const event = JSON.parse(entry.body) as { type: string; status: string; user: { user_id: string } };
          return event.type === 'auth' && event.status === 'success' && event.user.user_id === userId;
        }),
      'auth success webhook',
    );
    const info = await service.app.inject({
      method: 'GET',
      url: `/v2/userInfo?user_id=${userId}`,
      headers: dev.headers,
    });
    const body = info.json();
    assert.equal(body.is_authenticated, true);
    assert.equal(body.user.active, true);
    assert.match(body.user.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}\+00:00$/);
    assert.match(body.user.scopes, /sleep/);

    // The finished widget cannot be used again.
    const again = await page.goto(url);
    assert.equal(again?.status(), 410);
    await page.context().close();
  });

  test('denial lands on the failure URL with the reason', async () => {
    const url = await widgetSession({
      reference_id: 'says-no',
      language: 'de',
      auth_failure_redirect_url: `${landing.url}/failed`,
    });
    const page = await phonePage();
    await page.goto(url);
    await Promise.all([
      page.waitForURL(/\/providers\/sandbox\/consent/),
      page.getByRole('button', { name: /Sandbox/ }).click(),
    ]);
    assert.equal(await page.getAttribute('html', 'lang'), 'de');
    await Promise.all([
      page.waitForURL(`${landing.url}/failed**`),
      page.getByRole('button', { name: 'Ablehnen' }).click(),
    ]);
    const landed = new URL(page.url());
    assert.deepEqual(Object.fromEntries(landed.searchParams), {
      resource: 'SANDBOX',
      reference_id: 'says-no',
      reason: 'access_denied',
    });
    await page.context().close();
  });

  test('screenshots of the widget in two more languages', async () => {
    for (const language of ['de', 'fr']) {
      const page = await phonePage();
      await page.goto(await widgetSession({ language }));
      assert.equal(await page.getAttribute('html', 'lang'), language);
      await page.screenshot({ path: join(SCREENSHOTS, `widget-${language}.png`), fullPage: true });
      await page.context().close();
    }
  });
});
