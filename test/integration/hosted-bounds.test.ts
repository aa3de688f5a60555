// What hosted pages let anyone create without a credential is bounded (issue 13, item 3): a widget
// session holds at most one pending user whatever is clicked (so one auth error event when it
// expires, not one per click), its form carries a per-session token, and connect attempts and kit
// activations are limited per sender address and per session, answering 429 as a page to a browser
// and as problem+json to anything else. The limits are counted in the database, so two processes
// share them (PostgreSQL).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { InjectOptions } from 'fastify';
import { EXPIRE_AUTH_SESSION_QUEUE, type ExpireAuthSessionJob } from '../../src/features/connecting/ports.ts';
import { createRequestWindows } from '../../src/features/limits/windows.ts';
import { MESSAGES } from '../../src/http/hosted/i18n.ts';
import type { App } from '../../src/http/app-type.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { pathOf } from '../helpers/connections.ts';
import { formToken } from '../helpers/widget.ts';

const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

async function newSession(app: App, developer: TestDeveloper, payload: object = {}) {
  const created = await app.inject({
    method: 'POST',
    url: '/v2/auth/generateWidgetSession',
    headers: developer.headers,
    payload,
  });
  assert.equal(created.statusCode, 200, created.body);
  const { url, session_id: id } = created.json() as { url: string; session_id: string };
  const page = await app.inject({ method: 'GET', url: pathOf(url) });
  return { id, path: pathOf(url), token: formToken(page.body) ?? '' };
}

function connect(
  app: App,
  session: { path: string; token: string },
  input: { provider: string; token?: string; from?: string; headers?: Record<string, string> },
) {
  const options: InjectOptions = {
    method: 'POST',
    url: `${session.path}/connect`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...input.headers },
    payload: new URLSearchParams({
      provider: input.provider,
      csrf_token: input.token ?? session.token,
    }).toString(),
    remoteAddress: input.from ?? '198.51.100.20',
  };
  return app.inject(options);
}

async function pendingUsers(service: TestService, developerId: string) {
  return service.ctx.db
    .selectFrom('connections')
    .select(['id', 'provider'])
    .where('developer_id', '=', developerId)
    .where('status', '=', 'pending')
    .execute();
}

describe('widget flood: one pending user per session', () => {
  let service: TestService;
  let developer: TestDeveloper;
  const clock = { shiftMs: 0, now: () => new Date(Date.now() + clock.shiftMs) };

  before(async () => {
    service = await startTestService({
      clock,
      // No workers: the expiry timers stay queued, to be counted and fired here.
      work: false,
      env: {
        OURA_CLIENT_ID: 'oura-id',
        OURA_CLIENT_SECRET: 'oura-secret',
        HOSTED_ACTION_LIMIT_PER_IP: '1000/60',
        HOSTED_ACTION_LIMIT_PER_SESSION: '1000/900',
      },
    });
    developer = await createDeveloper(service.ctx);
  });
  after(async () => {
    await service?.close();
  });

  test('300 clicks across two providers leave one pending user, and one auth error when it expires', async () => {
    const session = await newSession(service.app, developer, { reference_id: 'flooded' });
    let last = '';
    for (let click = 0; click < 300; click += 1) {
      last = click % 2 === 0 ? 'SANDBOX' : 'OURA';
      const answer = await connect(service.app, session, {
        provider: last,
        from: `203.0.113.${click % 200}`,
      });
      assert.equal(answer.statusCode, 303, answer.body);
    }
    const pending = await pendingUsers(service, developer.devId);
    assert.equal(pending.length, 1, 'one pending user, reused across retries and providers');
    assert.equal(pending[0]?.provider, last, 'the user follows the provider chosen last');
    const open = await service.ctx.db
      .selectFrom('auth_sessions')
      .select('id')
      .where('widget_session_id', '=', session.id)
      .where('consumed_at', 'is', null)
      .execute();
    assert.equal(open.length, 1, 'only the latest attempt can still complete');

    // Fifteen minutes later every timer fires: only the live attempt fails, once.
    const timers = await service.ctx.jobs.boss().findJobs<ExpireAuthSessionJob>(EXPIRE_AUTH_SESSION_QUEUE);
    assert.ok(timers.length >= 300);
    clock.shiftMs = 16 * 60_000;
    try {
      let expired = 0;
      for (const timer of timers)
        if (await service.ctx.connecting.expireAuthSession(timer.data.authSessionId)) expired += 1;
      assert.equal(expired, 1);
    } finally {
      clock.shiftMs = 0;
    }
    const authEvents = await service.ctx.db
      .selectFrom('events')
      .select('body')
      .where('developer_id', '=', developer.devId)
      // The failure arm of the auth event (`auth_cancelled` in the current contract).
      .where('type', 'in', ['auth', 'auth_cancelled'])
      .execute();
    assert.equal(authEvents.length, 1, 'one auth error event, not 300');
    assert.match(authEvents[0]?.body ?? '', /"status":"error"/);
    assert.match(authEvents[0]?.body ?? '', /"reference_id":"flooded"/);
    assert.equal((await pendingUsers(service, developer.devId)).length, 0);
  });

  test('a new attempt after the pending user is gone starts a fresh one', async () => {
    const session = await newSession(service.app, developer);
    assert.equal((await connect(service.app, session, { provider: 'SANDBOX' })).statusCode, 303);
    const [first] = await pendingUsers(service, developer.devId);
    await service.ctx.db.deleteFrom('connections').where('id', '=', first!.id).execute();
    assert.equal((await connect(service.app, session, { provider: 'SANDBOX' })).statusCode, 303);
    const [second] = await pendingUsers(service, developer.devId);
    assert.ok(second && second.id !== first?.id);
    await service.ctx.db.deleteFrom('connections').where('id', '=', second.id).execute();
  });
});

describe('hosted actions: form token, per-sender and per-session limits', () => {
  let service: TestService;
  let developer: TestDeveloper;
  const PER_IP = 8;
  const PER_SESSION = 5;

  before(async () => {
    service = await startTestService({
      work: false,
      env: {
        HOSTED_ACTION_LIMIT_PER_IP: `${PER_IP}/3600`,
        HOSTED_ACTION_LIMIT_PER_SESSION: `${PER_SESSION}/900`,
      },
    });
    developer = await createDeveloper(service.ctx);
  });
  after(async () => {
    await service?.close();
  });

  test('a post without the form token, or with another session’s, starts nothing: 403', async () => {
    const session = await newSession(service.app, developer);
    const other = await newSession(service.app, developer);
    const missing = await connect(service.app, session, {
      provider: 'SANDBOX',
      token: '',
      from: '192.0.2.1',
    });
    assert.equal(missing.statusCode, 403);
    assert.match(String(missing.headers['content-type']), /application\/problem\+json/);
    const foreign = await connect(service.app, session, {
      provider: 'SANDBOX',
      token: other.token,
      from: '192.0.2.2',
      headers: BROWSER,
    });
    assert.equal(foreign.statusCode, 403);
    assert.match(String(foreign.headers['content-type']), /text\/html/);
    assert.ok(foreign.body.includes(MESSAGES.en.invalidTitle));
    assert.equal((await pendingUsers(service, developer.devId)).length, 0);
    assert.equal(
      (await connect(service.app, session, { provider: 'SANDBOX', from: '192.0.2.3' })).statusCode,
      303,
    );
  });

  test('one session: 429 past its limit, as a page for a browser and problem+json otherwise', async () => {
    const session = await newSession(service.app, developer);
    for (let attempt = 0; attempt < PER_SESSION; attempt += 1) {
      const answer = await connect(service.app, session, {
        provider: 'SANDBOX',
        from: `192.0.2.${10 + attempt}`,
      });
      assert.equal(answer.statusCode, 303, answer.body);
    }
    const api = await connect(service.app, session, { provider: 'SANDBOX', from: '192.0.2.30' });
    assert.equal(api.statusCode, 429);
    assert.match(String(api.headers['content-type']), /application\/problem\+json/);
    assert.ok(Number(api.headers['retry-after']) > 0);
    const browser = await connect(service.app, session, {
      provider: 'SANDBOX',
      from: '192.0.2.31',
      headers: { ...BROWSER, 'accept-language': 'fr-FR,fr;q=0.9' },
    });
    assert.equal(browser.statusCode, 429);
    assert.match(String(browser.headers['content-type']), /text\/html/);
    assert.ok(browser.body.includes(MESSAGES.fr.busyTitle));
    assert.ok(Number(browser.headers['retry-after']) > 0);
    assert.equal(browser.headers['x-frame-options'], 'DENY');
  });

  test('one sender: 429 past its limit, across sessions and across hosted pages', async () => {
    const from = '192.0.2.99';
    for (let attempt = 0; attempt < PER_IP; attempt += 1) {
      const session = await newSession(service.app, developer);
      assert.equal((await connect(service.app, session, { provider: 'SANDBOX', from })).statusCode, 303);
    }
    const fresh = await newSession(service.app, developer);
    assert.equal((await connect(service.app, fresh, { provider: 'SANDBOX', from })).statusCode, 429);
    // The kit activation form and the anonymous API count against the same sender.
    const page = await service.app.inject({
      method: 'POST',
      url: '/activate',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...BROWSER },
      payload: 'kit_id=KIT-AAAA-BBBB-CCCC-DDDD',
      remoteAddress: from,
    });
    assert.equal(page.statusCode, 429);
    assert.match(String(page.headers['content-type']), /text\/html/);
    const api = await service.app.inject({
      method: 'POST',
      url: '/api/v1/orders/activate',
      payload: { supplier_kit_id: 'KIT-AAAA-BBBB-CCCC-DDDD' },
      remoteAddress: from,
    });
    assert.equal(api.statusCode, 429);
    assert.match(String(api.headers['content-type']), /application\/problem\+json/);
    // Another sender is not affected.
    assert.equal(
      (await connect(service.app, fresh, { provider: 'SANDBOX', from: '192.0.2.100' })).statusCode,
      303,
    );
  });

  test('guessing kit ids is limited per sender', async () => {
    const from = '192.0.2.150';
    const statuses: number[] = [];
    for (let attempt = 0; attempt < PER_IP + 3; attempt += 1) {
      const answer = await service.app.inject({
        method: 'POST',
        url: '/api/v1/orders/activate',
        payload: { supplier_kit_id: `KIT-AAAA-BBBB-CCCC-${String(1000 + attempt)}` },
        remoteAddress: from,
      });
      statuses.push(answer.statusCode);
    }
    assert.deepEqual(statuses, [...Array(PER_IP).fill(404), 429, 429, 429]);
  });
});

describe('behind a trusted proxy', () => {
  test('each client behind it is counted by its own address, not the proxy’s', async () => {
    const service = await startTestService({
      work: false,
      env: { TRUST_PROXY: '10.0.0.0/8', HOSTED_ACTION_LIMIT_PER_IP: '2/3600' },
    });
    try {
      const through = (client: string, proxy = '10.1.2.3') =>
        service.app.inject({
          method: 'POST',
          url: '/api/v1/orders/activate',
          payload: { supplier_kit_id: 'KIT-AAAA-BBBB-CCCC-DDDD' },
          headers: { 'x-forwarded-for': client },
          remoteAddress: proxy,
        });
      const statuses = [];
      for (const client of ['203.0.113.1', '203.0.113.1', '203.0.113.1', '203.0.113.2'])
        statuses.push((await through(client)).statusCode);
      assert.deepEqual(statuses, [404, 404, 429, 404]);
      // A sender that is not the proxy cannot choose its address.
      const direct = [];
      for (const claimed of ['198.51.100.1', '198.51.100.2', '198.51.100.3'])
        direct.push((await through(claimed, '192.0.2.50')).statusCode);
      assert.deepEqual(direct, [404, 404, 429]);
    } finally {
      await service.close();
    }
  });
});

describe('request windows', () => {
  test('a window refuses past its limit without counting, reopens on time, and is pruned once ended', async () => {
    const service = await startTestService({ work: false });
    try {
      const clock = { at: new Date('2026-05-01T10:00:10Z'), now: () => clock.at };
      const windows = createRequestWindows({ db: service.ctx.db, clock });
      const rule = { limit: 3, windowSeconds: 60 };
      const verdicts = [];
      for (let hit = 0; hit < 5; hit += 1) verdicts.push(await windows.take('test:a', rule));
      assert.deepEqual(
        verdicts.map((verdict) => verdict.allowed),
        [true, true, true, false, false],
      );
      assert.deepEqual(verdicts[4], { allowed: false, retryAfterSeconds: 50 });
      assert.equal(await windows.used('test:a', rule), 3, 'refused hits are not counted');
      clock.at = new Date('2026-05-01T10:01:00Z');
      assert.equal((await windows.take('test:a', rule)).allowed, true, 'the next window is open');
      assert.equal(await windows.prune(), 1, 'the ended window is dropped');
      assert.equal(await windows.used('test:a', rule), 1);
    } finally {
      await service.close();
    }
  });
});

describe('hosted limits across processes', () => {
  test('two API processes share one widget session’s limit and its one pending user', async () => {
    const env = {
      HOSTED_ACTION_LIMIT_PER_IP: '1000/60',
      HOSTED_ACTION_LIMIT_PER_SESSION: '10/900',
      // Processes of one deployment share the key (the form token is derived from it).
      ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    };
    const first = await startTestService({ work: false, env });
    const second = await startTestService({ work: false, env, database: first.database });
    try {
      const developer = await createDeveloper(first.ctx);
      const session = await newSession(first.app, developer);
      const attempts = Array.from({ length: 30 }, (_, index) =>
        connect(index % 2 === 0 ? first.app : second.app, session, {
          provider: 'SANDBOX',
          from: `203.0.113.${index}`,
        }),
      );
      const statuses = (await Promise.all(attempts)).map((answer) => answer.statusCode);
      assert.equal(statuses.filter((status) => status === 303).length, 10);
      assert.equal(statuses.filter((status) => status === 429).length, 20);
      assert.equal((await pendingUsers(first, developer.devId)).length, 1);
    } finally {
      await second.close();
      await first.close();
    }
  });
});
