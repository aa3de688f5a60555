import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestService, type TestService } from '../helpers/app.ts';

/**
 * /docs is Tributary's page, served whole from this process (it works offline): our title,
 * stylesheet, favicon and wordmark in place of the framework's logo, every asset local.
 */
describe('the API reference page', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService({ work: false });
  });
  after(async () => service?.close());

  const get = (url: string) => service.app.inject({ method: 'GET', url });

  test('our title, stylesheet and favicon; every asset it loads is served here', async () => {
    const page = await get('/docs/');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<title>Tributary API reference<\/title>/);
    const assets = [...page.body.matchAll(/(?:href|src)="([^"]+)"/g)].map((match) => match[1]!);
    assert.ok(assets.includes('./static/theme/tributary.css'), assets.join(' '));
    assert.ok(assets.includes('./static/theme/favicon.svg'), assets.join(' '));
    for (const asset of assets) {
      assert.doesNotMatch(asset, /^(https?:)?\/\//, `${asset} is fetched from elsewhere`);
      const served = await get(new URL(asset, 'http://x/docs/').pathname);
      assert.equal(served.statusCode, 200, asset);
    }
    const css = await get('/docs/static/theme/tributary.css');
    assert.match(css.body, /\.swagger-ui \.topbar\{background:#1a56db/);
  });

  test('our wordmark replaces the framework logo', async () => {
    const initializer = await get('/docs/static/swagger-initializer.js');
    assert.equal(initializer.statusCode, 200);
    const logo = /img\.src = 'data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)'/.exec(initializer.body);
    assert.ok(logo, 'the initializer sets a logo');
    assert.match(Buffer.from(logo[1]!, 'base64').toString('utf8'), /aria-label="Tributary"/);
    assert.match(initializer.body, /url: '\/openapi\.json'|"url":"\/openapi\.json"/);
  });
});
