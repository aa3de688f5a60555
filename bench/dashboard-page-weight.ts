/**
 * What a cold load of each dashboard page costs: the CSS and JavaScript it carries (inline; the
 * pages load nothing else) and the whole HTML, raw and compressed (gzip, brotli), against the
 * issue's budget of 100 kB of JS+CSS compressed per page. Pages are rendered by an in-process
 * Tributary on embedded PostgreSQL with a connected sandbox user, a delivered test event and an order.
 *
 *   node_modules/.bin/node bench/dashboard-page-weight.ts
 */
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { createDeveloper, startTestService } from '../test/helpers/app.ts';
import { connectSandboxUser } from '../test/helpers/connections.ts';
import { DashboardClient } from '../test/helpers/dashboard.ts';
import { createOrder } from '../test/helpers/orders.ts';

const service = await startTestService({ work: false, env: { DATABASE_URL: '' } });
try {
  const dev = await createDeveloper(service.ctx, { name: 'Bench', orderApi: true });
  const { userId } = await connectSandboxUser(service.app, dev, { referenceId: 'bench' });
  const order = await createOrder(service, dev);
  const browser = new DashboardClient(service.app);
  await browser.signIn(dev.devId, dev.apiKey);
  const pages = [
    '/dashboard',
    '/dashboard/users',
    `/dashboard/users/${userId}`,
    '/dashboard/webhooks',
    '/dashboard/providers',
    '/dashboard/keys',
    '/dashboard/orders',
    `/dashboard/orders/${order.order_id}`,
  ];
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} kB`;
  console.log('page | JS+CSS raw | JS+CSS gzip | JS+CSS brotli | HTML gzip | external loads');
  for (const url of pages) {
    const response = await browser.get(url);
    if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode}`);
    const html = response.body;
    const assets = [...html.matchAll(/<(style|script)[^>]*>([\s\S]*?)<\/\1>/g)]
      .map((match) => match[2])
      .join('');
    const external = [...html.matchAll(/<(?:link|script)[^>]+(?:href|src)=/g)].length;
    console.log(
      `${url.replace(userId, ':user').replace(order.order_id, ':order')} | ${kb(Buffer.byteLength(assets))} | ${kb(gzipSync(assets).length)} | ${kb(brotliCompressSync(assets).length)} | ${kb(gzipSync(html).length)} | ${external}`,
    );
  }
} finally {
  await service.close();
}
