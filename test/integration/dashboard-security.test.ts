import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { DashboardClient, formTokenIn } from '../helpers/dashboard.ts';
import { insertUser } from '../helpers/users.ts';

/**
 * The dashboard's security promises: nothing without a session, every post needs its session's
 * form token, the session is a hashed random id in an HttpOnly SameSite=Strict cookie that ends
 * on sign-out and when its API key is revoked, and one developer never sees another's users.
 */
const OPERATOR_TOKEN = 'operator-token-for-the-dashboard-tests-0123456789';

/** The service's clock, moved forward by the expiry test. */
let offsetMs = 0;
const clock = { now: () => new Date(Date.now() + offsetMs) };

describe('dashboard security', { timeout: 120_000 }, () => {
  let service: TestService;
  let dev: TestDeveloper;
  let other: TestDeveloper;

  before(async () => {
    // TRUST_PROXY: a request marked x-forwarded-proto: https counts as HTTPS (the Secure cookie test).
    service = await startTestService({ work: false, clock, env: { OPERATOR_TOKEN, TRUST_PROXY: 'true' } });
    dev = await createDeveloper(service.ctx, { name: 'Acme' });
    other = await createDeveloper(service.ctx, { name: 'Rival' });
  });
  after(async () => {
    await service?.close();
  });

  const liveKeyCount = async (devId: string) =>
    (await service.ctx.developers.listKeys(devId)).filter((key) => key.revoked_at === null).length;

  test('without a session: the sign-in form, redirects for pages, 401 for actions', async () => {
    const browser = new DashboardClient(service.app);
    const home = await browser.get('/dashboard');
    assert.equal(home.statusCode, 200);
    assert.match(home.body, /<label for="dev_id">Developer ID<\/label>/);
    assert.match(home.body, /<label for="api_key">API key<\/label>/);
    assert.match(home.body, /<button type="submit" class="primary">Sign in<\/button>/);
    assert.match(String(home.headers['content-security-policy']), /default-src 'none'/);
    for (const page of [
      '/dashboard/users',
      '/dashboard/webhooks',
      '/dashboard/providers',
      '/dashboard/keys',
      '/dashboard/operator',
    ]) {
      const response = await browser.get(page);
      assert.equal(response.statusCode, 303, page);
      assert.equal(response.headers.location, '/dashboard');
    }
    const before = await liveKeyCount(dev.devId);
    const forged = await browser.post('/dashboard/keys/create', { csrf: 'x' });
    assert.equal(forged.statusCode, 401);
    assert.equal(await liveKeyCount(dev.devId), before);
  });

  test('a wrong key or a missing form token signs nobody in', async () => {
    const browser = new DashboardClient(service.app);
    const wrong = await browser.signIn(dev.devId, `${dev.apiKey}x`);
    assert.equal(wrong.statusCode, 401);
    assert.match(wrong.body, /Unknown Developer ID or invalid API key/);
    assert.ok(!browser.cookies.has('tributary_dashboard'));
    const noToken = await browser.post('/dashboard/sign-in', { dev_id: dev.devId, api_key: dev.apiKey });
    assert.equal(noToken.statusCode, 403);
    assert.ok(!browser.cookies.has('tributary_dashboard'));
  });

  test('the session cookie: HttpOnly, SameSite=Strict, scoped, expiring; only its hash is stored', async () => {
    const browser = new DashboardClient(service.app);
    const signedIn = await browser.signIn(dev.devId, dev.apiKey);
    assert.equal(signedIn.statusCode, 303, signedIn.body);
    const line = browser.lastSetCookies.find((cookie) => cookie.startsWith('tributary_dashboard='));
    assert.ok(line);
    assert.match(line, /HttpOnly/i);
    assert.match(line, /SameSite=Strict/i);
    assert.match(line, /Path=\/dashboard/i);
    assert.match(line, /Max-Age=28800/i);
    assert.doesNotMatch(line, /Secure/i, 'plain http here: PUBLIC_URL is http');
    assert.ok(!line.includes(dev.apiKey), 'the key never goes to the browser');
    const sessionId = browser.cookies.get('tributary_dashboard')!;
    const rows = await service.ctx.db.selectFrom('dashboard_sessions').select('id_hash').execute();
    assert.ok(rows.every((row) => row.id_hash !== sessionId));
    assert.ok(rows.some((row) => row.id_hash === createHash('sha256').update(sessionId).digest('hex')));
    const overview = await browser.get('/dashboard');
    assert.equal(overview.statusCode, 200);
    assert.match(overview.body, /class="badge env-sandbox"/);
    for (const name of ['Overview', 'Users', 'Webhooks', 'Providers', 'API keys']) {
      assert.match(overview.body, new RegExp(`<a href="[^"]+"[^>]*>${name}</a>`), name);
    }
    assert.doesNotMatch(overview.body, />Orders</, 'no order access, no Orders link');
  });

  test('a session expires after DASHBOARD_SESSION_HOURS (default 8)', async () => {
    const browser = new DashboardClient(service.app);
    await browser.signIn(dev.devId, dev.apiKey);
    try {
      offsetMs = 8 * 3_600_000 - 60_000;
      assert.equal((await browser.get('/dashboard/keys')).statusCode, 200);
      offsetMs = 8 * 3_600_000 + 1_000;
      assert.equal((await browser.get('/dashboard/keys')).statusCode, 303);
    } finally {
      offsetMs = 0;
    }
  });

  test('a refusal by a service is an HTML page with the API’s status, not problem+json', async () => {
    const browser = new DashboardClient(service.app);
    await browser.signIn(dev.devId, dev.apiKey);
    const missing = await browser.get('/dashboard/webhooks/events/evt_nope');
    assert.equal(missing.statusCode, 404);
    assert.match(String(missing.headers['content-type']), /text\/html/);
    assert.match(missing.body, /no webhook event/);
    const malformed = await browser.get('/dashboard/users/not-a-uuid');
    assert.equal(malformed.statusCode, 400);
    assert.match(String(malformed.headers['content-type']), /text\/html/);
    const refused = await browser.submit('/dashboard/webhooks', '/dashboard/webhooks/destination', {
      url: 'ftp://example.com/x',
    });
    assert.equal(refused.statusCode, 303);
    assert.match((await browser.get('/dashboard/webhooks')).body, /class="error" role="alert">invalid url/);
  });

  test('hand-edited links and forms: never a 5xx', async () => {
    const browser = new DashboardClient(service.app);
    await browser.signIn(dev.devId, dev.apiKey);
    const pages = [
      '/dashboard/users?q=a&q=b',
      '/dashboard/users?q=%00%ff',
      `/dashboard/users?q=${'x'.repeat(2000)}`,
      '/dashboard/webhooks?period=constructor&status=__proto__&type=a&type=b&user_id=%27',
      '/dashboard/webhooks?status=delivered&status=failed',
      '/dashboard/webhooks/events/%27%3B--',
      '/dashboard/users/00000000-0000-0000-0000-000000000000',
      '/dashboard/orders',
      '/dashboard/orders/abc',
      '/dashboard/operator/developers/nobody',
    ];
    for (const url of pages) {
      const response = await browser.get(url);
      assert.ok(response.statusCode < 500, `${url}: ${response.statusCode}`);
    }
    const token = formTokenIn((await browser.get('/dashboard/keys')).body);
    const posts: [string, Record<string, string | string[]>][] = [
      ['/dashboard/webhooks/replay', { csrf: token }],
      ['/dashboard/webhooks/replay', { csrf: token, selected: ['evt_x', 'evt_x'] }],
      [
        '/dashboard/webhooks/replay',
        { csrf: token, selected: Array.from({ length: 60 }, (_, i) => `evt_${i}`) },
      ],
      ['/dashboard/webhooks/destination', { csrf: token, url: 'http://' }],
      ['/dashboard/users/nope/historical-read', { csrf: token, type: 'sleep' }],
      ['/dashboard/users/00000000-0000-0000-0000-000000000000/historical-read', { csrf: token, type: 'x' }],
      ['/dashboard/users/00000000-0000-0000-0000-000000000000/deauthenticate', { csrf: token }],
      ['/dashboard/keys/revoke', { csrf: token, key_id: 'nope' }],
      ['/dashboard/providers/selection', { csrf: token, providers: ['NOPE'] }],
      ['/dashboard/providers/selection', { csrf: token, providers: ['APPLE'] }],
      ['/dashboard/orders/abc/simulate', { csrf: [token, 'second'], event: 'x' }],
    ];
    for (const [url, form] of posts) {
      const response = await browser.post(url, form);
      assert.ok(response.statusCode < 500, `${url}: ${response.statusCode} ${response.body.slice(0, 200)}`);
    }
  });

  test('over HTTPS (here: behind a trusted proxy) the session cookie is Secure', async () => {
    const browser = new DashboardClient(service.app, { 'x-forwarded-proto': 'https' });
    assert.equal((await browser.signIn(dev.devId, dev.apiKey)).statusCode, 303);
    const line = browser.lastSetCookies.find((cookie) => cookie.startsWith('tributary_dashboard='));
    assert.match(line ?? '', /; Secure/i);
  });

  test('CSRF: a post without the form token, or with another session’s, changes nothing', async () => {
    const browser = new DashboardClient(service.app);
    await browser.signIn(dev.devId, dev.apiKey);
    const otherBrowser = new DashboardClient(service.app);
    await otherBrowser.signIn(dev.devId, dev.apiKey);
    const foreignToken = formTokenIn((await otherBrowser.get('/dashboard/keys')).body);
    const before = await liveKeyCount(dev.devId);
    assert.equal((await browser.post('/dashboard/keys/create', {})).statusCode, 403);
    assert.equal((await browser.post('/dashboard/keys/create', { csrf: foreignToken })).statusCode, 403);
    assert.equal((await browser.post('/dashboard/webhooks/test', { csrf: 'forged' })).statusCode, 403);
    assert.equal((await browser.post('/dashboard/sign-out', { csrf: 'forged' })).statusCode, 403);
    assert.equal(await liveKeyCount(dev.devId), before);
    assert.equal(
      (await browser.get('/dashboard/keys')).statusCode,
      200,
      'still signed in after a forged sign-out',
    );
    const genuine = await browser.submit('/dashboard/keys', '/dashboard/keys/create');
    assert.equal(genuine.statusCode, 200);
    assert.match(genuine.body, /id="new-key">sk_test_/);
    assert.equal(await liveKeyCount(dev.devId), before + 1);
  });

  test('sign-out ends the session for good, even for a copy of the cookie', async () => {
    const browser = new DashboardClient(service.app);
    await browser.signIn(dev.devId, dev.apiKey);
    const stolen = browser.cookies.get('tributary_dashboard')!;
    const out = await browser.submit('/dashboard', '/dashboard/sign-out');
    assert.equal(out.statusCode, 303);
    assert.ok(!browser.cookies.has('tributary_dashboard'));
    const replayed = new DashboardClient(service.app);
    replayed.cookies.set('tributary_dashboard', stolen);
    assert.equal((await replayed.get('/dashboard/users')).statusCode, 303);
    assert.match((await replayed.get('/dashboard')).body, /Developer ID/);
  });

  test('revoking the key a session was made with ends it (CLI/API path and the dashboard itself)', async () => {
    const spare = await service.ctx.developers.createKey(dev.devId);
    const browser = new DashboardClient(service.app);
    assert.equal((await browser.signIn(dev.devId, spare.apiKey)).statusCode, 303);
    assert.equal((await browser.get('/dashboard/keys')).statusCode, 200);
    await service.ctx.developers.revokeKey(dev.devId, spare.id);
    assert.equal((await browser.get('/dashboard/keys')).statusCode, 303);

    const second = await service.ctx.developers.createKey(dev.devId);
    const self = new DashboardClient(service.app);
    await self.signIn(dev.devId, second.apiKey);
    const revoked = await self.submit('/dashboard/keys', '/dashboard/keys/revoke', { key_id: second.id });
    assert.equal(revoked.statusCode, 303);
    assert.equal((await self.get('/dashboard/keys')).statusCode, 303, 'signed out with its own key');
    assert.equal(
      (
        await service.app.inject({
          method: 'GET',
          url: '/v2/webhook',
          headers: { 'dev-id': dev.devId, 'x-api-key': second.apiKey },
        })
      ).statusCode,
      401,
    );
  });

  test('tenant isolation: another developer’s users are never shown', async () => {
    const mine = await insertUser(service.ctx, {
      developerId: dev.devId,
      provider: 'SANDBOX',
      referenceId: 'shared-ref',
    });
    const theirs = await insertUser(service.ctx, {
      developerId: other.devId,
      provider: 'SANDBOX',
      referenceId: 'shared-ref',
    });
    const browser = new DashboardClient(service.app);
    await browser.signIn(dev.devId, dev.apiKey);
    const search = await browser.get('/dashboard/users?q=shared-ref');
    assert.ok(search.body.includes(`/dashboard/users/${mine}`));
    assert.ok(!search.body.includes(theirs));
    // Searching their id echoes the query in the search box, but lists nobody.
    const byId = await browser.get(`/dashboard/users?q=${theirs}`);
    assert.ok(!byId.body.includes(`/dashboard/users/${theirs}`));
    assert.match(byId.body, /No user has this user id or reference id/);
    assert.ok(!(await browser.get('/dashboard/users')).body.includes(theirs));
    assert.equal((await browser.get(`/dashboard/users/${theirs}`)).statusCode, 404);
    // The detail page lists the end user's other connections (same reference id): only this developer's.
    const mySecond = await insertUser(service.ctx, {
      developerId: dev.devId,
      provider: 'STRAVA',
      referenceId: 'shared-ref',
    });
    const detail = await browser.get(`/dashboard/users/${mine}`);
    assert.match(detail.body, /Other connections of this reference id/);
    assert.ok(detail.body.includes(`/dashboard/users/${mySecond}`));
    assert.ok(!detail.body.includes(theirs));
    const deauth = await browser.submit(
      `/dashboard/users/${mine}`,
      `/dashboard/users/${theirs}/deauthenticate`,
    );
    assert.equal(deauth.statusCode, 303);
    assert.ok(
      await service.ctx.db.selectFrom('connections').select('id').where('id', '=', theirs).executeTakeFirst(),
      'their user is untouched',
    );
  });

  test('actions are audited (developer, session, action, target, time) and shown on the overview', async () => {
    const browser = new DashboardClient(service.app);
    await browser.signIn(other.devId, other.apiKey);
    await browser.submit('/dashboard/keys', '/dashboard/keys/create');
    const rows = await service.ctx.db
      .selectFrom('audit_log')
      .selectAll()
      .where('developer_id', '=', other.devId)
      .orderBy('id')
      .execute();
    assert.deepEqual(
      rows.map((row) => row.action),
      ['sign-in', 'key.create'],
    );
    assert.ok(rows.every((row) => row.actor === 'developer' && /^[0-9a-f]{12}$/.test(row.session_ref)));
    assert.match(rows[1]!.target ?? '', /^key_|[A-Za-z0-9]/);
    const overview = await browser.get('/dashboard');
    assert.match(overview.body, /<td>key\.create<\/td>/);
    const devOverview = new DashboardClient(service.app);
    await devOverview.signIn(dev.devId, dev.apiKey);
    assert.ok(
      !(await devOverview.get('/dashboard')).body.includes(rows[1]!.target!),
      'each developer sees its own log',
    );
  });

  test('operators: the token signs in, lists developers, suspends and resumes through the developers service', async () => {
    const victim = new DashboardClient(service.app);
    await victim.signIn(other.devId, other.apiKey);
    const browser = new DashboardClient(service.app);
    const page = await browser.get('/dashboard');
    const wrong = await browser.post('/dashboard/operator/sign-in', {
      csrf: formTokenIn(page.body),
      operator_token: 'nope',
    });
    assert.equal(wrong.statusCode, 401);
    const signedIn = await browser.post('/dashboard/operator/sign-in', {
      csrf: formTokenIn(page.body),
      operator_token: OPERATOR_TOKEN,
    });
    assert.equal(signedIn.statusCode, 303);
    const list = await browser.get('/dashboard/operator');
    assert.ok(list.body.includes(dev.devId) && list.body.includes(other.devId));
    assert.equal(
      (await browser.get('/dashboard/users')).statusCode,
      303,
      'an operator has no developer pages',
    );
    const suspend = await browser.submit(
      `/dashboard/operator/developers/${other.devId}`,
      `/dashboard/operator/developers/${other.devId}/status`,
      { status: 'suspended' },
    );
    assert.equal(suspend.statusCode, 303);
    assert.equal((await service.ctx.developers.get(other.devId)).status, 'suspended');
    const api = await service.app.inject({ method: 'GET', url: '/v2/webhook', headers: other.headers });
    assert.equal(api.statusCode, 403);
    assert.equal((await victim.get('/dashboard/keys')).statusCode, 303, 'a suspension ends its sessions');
    await browser.submit(
      `/dashboard/operator/developers/${other.devId}`,
      `/dashboard/operator/developers/${other.devId}/status`,
      { status: 'active' },
    );
    assert.equal((await service.ctx.developers.get(other.devId)).status, 'active');
    const limits = await browser.submit(
      `/dashboard/operator/developers/${other.devId}`,
      `/dashboard/operator/developers/${other.devId}/limits`,
      { hourly_days: '120', order_api: 'true' },
    );
    assert.equal(limits.statusCode, 303);
    const changed = await service.ctx.developers.get(other.devId);
    assert.equal(changed.hourlyDaysLimit, 120);
    assert.equal(changed.orderApiAccess, true);
    const bad = await browser.submit(
      `/dashboard/operator/developers/${other.devId}`,
      `/dashboard/operator/developers/${other.devId}/limits`,
      { hourly_days: '-3' },
    );
    assert.equal(bad.statusCode, 303);
    assert.match(
      (await browser.get(`/dashboard/operator/developers/${other.devId}`)).body,
      /invalid hourly-days/,
    );
    const switched = await browser.submit(
      `/dashboard/operator/developers/${other.devId}`,
      `/dashboard/operator/developers/${other.devId}/providers`,
      { disable: 'SANDBOX' },
    );
    assert.equal(switched.statusCode, 303);
    const sandbox = (await service.ctx.integrations.forDeveloper(other.devId)).find(
      (row) => row.provider === 'SANDBOX',
    );
    assert.equal(sandbox?.enabled, false);
    const audit = await service.ctx.db
      .selectFrom('audit_log')
      .select(['actor', 'action'])
      .where('actor', '=', 'operator')
      .execute();
    assert.ok(audit.some((row) => row.action === 'developer.suspend'));
  });
});

describe('dashboard without OPERATOR_TOKEN', { timeout: 60_000 }, () => {
  let service: TestService;
  before(async () => {
    service = await startTestService({ work: false });
  });
  after(async () => {
    await service?.close();
  });

  test('no operator form, and operator sign-in answers 404 whatever is posted', async () => {
    const browser = new DashboardClient(service.app);
    const page = await browser.get('/dashboard');
    assert.doesNotMatch(page.body, /Operator/);
    const response = await browser.post('/dashboard/operator/sign-in', {
      csrf: formTokenIn(page.body),
      operator_token: '',
    });
    assert.equal(response.statusCode, 404);
    assert.ok(!browser.cookies.has('tributary_dashboard'));
  });
});
