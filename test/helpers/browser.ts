import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { startTestService, type TestService, type TestServiceOptions } from './app.ts';
import { freePort } from './child-service.ts';

/**
 * Browser tests drive Debian's Chromium with playwright-core (never a downloaded browser),
 * against a Tributary that really listens, so links it hands out (PUBLIC_URL) work.
 */
const CHROMIUM = '/usr/bin/chromium';

export const SCREENSHOTS = join(process.cwd(), 'test-results');
export const PHONE = { width: 390, height: 844 };

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: browser tests need Debian's chromium package (apt-get install chromium; npm test and .ci/run install it when run as root)`,
    );
  }
  mkdirSync(SCREENSHOTS, { recursive: true });
  // Without the background-networking flags Chromium keeps dialling out, which this closed
  // network refuses; the rest make it start fast and quietly as root in a container.
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export async function startListeningTestService(
  options: TestServiceOptions = {},
): Promise<TestService & { baseUrl: string }> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const service = await startTestService({
    ...options,
    env: { PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: baseUrl, ...options.env },
  });
  await service.app.listen({ port, host: '127.0.0.1' });
  return { ...service, baseUrl };
}
