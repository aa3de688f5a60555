import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createDeveloper, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { launchChromium, SCREENSHOTS, startListeningTestService } from '../helpers/browser.ts';

/**
 * The signed-in dashboard's header at a 1280 px laptop width, in Debian's Chromium: the brand,
 * badge, every navigation link (orders included), the developer's name and "Sign out" sit on one
 * line, and no label wraps inside itself ("Sign out" used to break over two lines). A screenshot of
 * each width is kept in test-results/dashboard-header-<width>.png. At phone width the header may
 * take several lines, but still no label breaks.
 */
describe('dashboard header', { timeout: 180_000 }, () => {
  let service: TestService & { baseUrl: string };
  let browser: Browser;
  let developer: TestDeveloper;

  before(async () => {
    service = await startListeningTestService({ work: false });
    // A long name and the order API (one more link): the widest header a developer gets.
    developer = await createDeveloper(service.ctx, { name: 'Acme Health Research Labs', orderApi: true });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  async function signedIn(width: number): Promise<Page> {
    const context = await browser.newContext({ viewport: { width, height: 800 }, colorScheme: 'light' });
    const page = await context.newPage();
    await page.goto(`${service.baseUrl}/dashboard`);
    await page.getByLabel('Developer ID').fill(developer.devId);
    await page.getByLabel('API key').fill(developer.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, `dashboard-header-${width}.png`) });
    return page;
  }

  type Box = { label: string; top: number; height: number; lineHeight: number };
  /**
   * Every item of the header: its content box, and the line height of its text. A string, run in
   * the page (the project's TypeScript has no DOM types).
   */
  const ITEMS = `[...document.querySelectorAll(
      'header.top .brand, header.top .badge, header.top nav a, header.top .who, header.top button')]
    .map((element) => {
      const box = element.getBoundingClientRect();
      const style = getComputedStyle(element);
      const lineHeight = parseFloat(style.lineHeight) || parseFloat(style.fontSize) * 1.5;
      const padding = parseFloat(style.paddingTop) + parseFloat(style.paddingBottom);
      const border = parseFloat(style.borderTopWidth) + parseFloat(style.borderBottomWidth);
      return { label: element.textContent.trim(), top: box.top, height: box.height - padding - border, lineHeight };
    })`;
  const itemsOf = (page: Page) => page.evaluate(ITEMS) as Promise<Box[]>;

  const unwrapped = (items: Box[]) =>
    items.filter((item) => item.height > item.lineHeight * 1.5).map((item) => item.label);

  test('at 1280 px everything sits on one line and no label wraps', async () => {
    const page = await signedIn(1280);
    const items = await itemsOf(page);
    assert.ok(items.some((item) => item.label === 'Sign out'));
    assert.ok(items.some((item) => item.label === 'Orders'));
    assert.deepEqual(unwrapped(items), [], 'labels broken over two lines');
    const centres = items.map((item) => item.top + item.height / 2);
    const spread = Math.max(...centres) - Math.min(...centres);
    assert.ok(
      spread < 12,
      `one line: item centres within ${spread.toFixed(1)} px (${JSON.stringify(items)})`,
    );
  });

  test('at phone width the header may wrap between items, never inside one', async () => {
    const page = await signedIn(390);
    assert.deepEqual(unwrapped(await itemsOf(page)), [], 'labels broken over two lines');
  });
});
