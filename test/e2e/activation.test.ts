import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createDeveloper, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { launchChromium, SCREENSHOTS, startListeningTestService } from '../helpers/browser.ts';
import { advance, api, createOrder, type Json } from '../helpers/orders.ts';

/**
 * The hosted kit-activation page in a real browser (Debian's Chromium driven by playwright-core)
 * against a real listening Tributary: a test taker opens the QR link, fills the form and
 * submits; a second activation of the same kit is refused with the already-activated message.
 */
/** Fills the form the way a person would: by the visible labels. */
async function fillForm(page: Page, kitId: string | undefined) {
  if (kitId !== undefined) await page.getByLabel('Kit ID').fill(kitId);
  await page.getByLabel('First name').fill('Grace');
  await page.getByLabel('Last name').fill('Hopper');
  await page.getByLabel('Email').fill('grace@example.com');
  await page.getByLabel('Phone number').fill('+14155550100');
  await page.getByLabel('Date of birth').fill('1985-12-09');
  await page.getByLabel('Sex at birth').selectOption('female');
  await page.getByLabel('Address line 1').fill('1 Main St');
  await page.getByLabel('City').fill('Springfield');
  await page.getByLabel('Postal code').fill('62701');
  await page.getByLabel('Country code').fill('US');
}

describe('kit activation page in a browser', { timeout: 120_000 }, () => {
  let service: TestService;
  let browser: Browser;
  let developer: TestDeveloper;
  let baseUrl: string;

  before(async () => {
    const listening = await startListeningTestService({ env: { ORDER_SANDBOX_TIMERS: 'off' } });
    service = listening;
    baseUrl = listening.baseUrl;
    developer = await createDeveloper(service.ctx, { orderApi: true });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  test('a test taker activates a kit; a second activation shows the already-activated message', async () => {
    const order = await createOrder(service, developer);
    await advance(service, developer, order.order_id, 'payment_complete', 'processing', 'delivery_fulfilled');
    const kitId = String(order.order_items[0]?.supplier_item_id);
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    try {
      const opened = await page.goto(`${baseUrl}/activate?kit_id=${encodeURIComponent(kitId)}`);
      assert.equal(opened?.status(), 200);
      assert.equal(await page.title(), 'Activate your test kit');
      assert.equal(await page.getByLabel('Kit ID').inputValue(), kitId, 'the QR link fills in the kit id');
      const html = await page.content();
      assert.ok(
        !html.includes(developer.devId) && !html.includes(developer.apiKey),
        'no developer credential on the page',
      );

      // A mistake first: the form comes back with the error next to the field and the values kept.
      await fillForm(page, undefined);
      await page.getByLabel('Email').fill('not-an-email');
      await Promise.all([
        page.waitForURL(`${baseUrl}/activate`),
        page.getByRole('button', { name: 'Activate kit' }).click(),
      ]);
      await page.getByRole('alert').getByText('valid email address').waitFor();
      assert.equal(await page.getByLabel('Email').getAttribute('aria-invalid'), 'true');
      assert.equal(await page.getByLabel('First name').inputValue(), 'Grace');
      await page.screenshot({ path: join(SCREENSHOTS, 'activation-form-error.png'), fullPage: true });

      await page.getByLabel('Email').fill('grace@example.com');
      await page.getByRole('button', { name: 'Activate kit' }).click();
      await page.getByRole('heading', { name: 'Kit activated' }).waitFor();
      assert.ok((await page.textContent('body'))?.includes(kitId));
      await page.screenshot({ path: join(SCREENSHOTS, 'activation-success.png'), fullPage: true });

      const view = await api(service, developer, 'GET', `/api/v1/orders/${order.order_id}`);
      const item = (view.body.items as Json[])[0];
      assert.equal(item?.results_status, 'results.kit_activated');
      assert.equal((item?.test_taker_ids as string[] | undefined)?.length, 1);

      // Someone types the same kit id into a blank form: refused, and told why.
      await page.goto(`${baseUrl}/activate`);
      await fillForm(page, kitId);
      await page.getByRole('button', { name: 'Activate kit' }).click();
      await page.getByRole('heading', { name: 'Kit already activated' }).waitFor();
      assert.match(String(await page.textContent('body')), /already been activated/);
      await page.screenshot({ path: join(SCREENSHOTS, 'activation-already-activated.png'), fullPage: true });

      // The QR link itself now says so too, without showing the form.
      await page.goto(`${baseUrl}/activate?kit_id=${encodeURIComponent(kitId)}`);
      await page.getByRole('heading', { name: 'Kit already activated' }).waitFor();
      assert.equal(await page.locator('form').count(), 0);
    } finally {
      await context.close();
    }
  });
});
