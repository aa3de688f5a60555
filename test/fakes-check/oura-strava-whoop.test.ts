// Fakes check, not product tests: these check that the local Oura, Strava and WHOOP fakes behave like the real
// providers (their OAuth, paging, signatures and payload shapes), so the connector tests that use
// them mean something. They live apart (test/fakes-check/, every suite titled "fakes check: …")
// so the runner's report keeps them apart from the product's own tests; they still run in npm test.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { followAuthorize } from '../fakes/fake-server.ts';
import { type OuraFake, startOuraFake } from '../fakes/oura.ts';
import { type StravaFake, startStravaFake } from '../fakes/strava.ts';
import { startWhoopFake, type WhoopFake } from '../fakes/whoop.ts';
import { missingProviderSamples } from '../helpers/provider-samples.ts';

/** The fakes built from the shared provider samples are checked only where the samples are. */
const withoutSamples = missingProviderSamples();

const NOW = Date.parse('2024-11-20T12:00:00Z');
const REDIRECT = 'http://127.0.0.1:9/callback';

type Received = { method: string; url: URL; headers: IncomingHttpHeaders; body: string };

/** A callback endpoint answering through `answer`; records what it got. */
async function startReceiver(answer: (request: Received) => { status: number; body?: unknown }) {
  const received: Received[] = [];
  const server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const request = {
        method: incoming.method ?? '',
        url: new URL(incoming.url ?? '/', 'http://receiver.invalid'),
        headers: incoming.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(request);
      const reply = answer(request);
      response.writeHead(reply.status, { 'content-type': 'application/json' });
      response.end(reply.body === undefined ? '' : JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function postForm(url: string, form: Record<string, string>) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
}

async function getJson(url: string, token?: string) {
  const response = await fetch(url, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: (text ? JSON.parse(text) : null) as unknown,
  };
}

describe('fakes check: Oura fake', { skip: withoutSamples }, () => {
  let oura: OuraFake;
  let tokens: { access_token: string; refresh_token: string };
  before(async () => {
    oura = await startOuraFake({ now: NOW, pageSize: 7 });
  });
  after(() => oura.close());
  const exchange = (code: string) =>
    postForm(`${oura.baseUrl}/oauth/token`, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      client_id: oura.clientId,
      client_secret: oura.clientSecret,
    });
  const refresh = (refreshToken: string) =>
    postForm(`${oura.baseUrl}/oauth/token`, {
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: oura.clientId,
      client_secret: oura.clientSecret,
    });

  test('authorization code: consent redirect, single-use code, credentials in the body', async () => {
    const authUrl = `${oura.baseUrl}/oauth/authorize?response_type=code&client_id=${oura.clientId}&redirect_uri=${encodeURIComponent(REDIRECT)}&scope=daily%20heartrate%20workout%20personal&state=s-123`;
    const redirect = await followAuthorize(authUrl);
    assert.equal(redirect.searchParams.get('state'), 's-123');
    const code = redirect.searchParams.get('code') ?? '';
    const first = await exchange(code);
    assert.equal(first.status, 200);
    assert.deepEqual(Object.keys(first.body).sort(), [
      'access_token',
      'expires_in',
      'refresh_token',
      'token_type',
    ]);
    assert.equal(first.body.expires_in, 86400);
    tokens = first.body as typeof tokens;
    assert.equal((await exchange(code)).status, 400);
    const basicOnly = await fetch(`${oura.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${oura.clientId}:${oura.clientSecret}`).toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token }),
    });
    assert.equal(basicOnly.status, 401);
  });

  test('refresh tokens are single-use: the old one is refused after a refresh', async () => {
    const renewed = await refresh(tokens.refresh_token);
    assert.equal(renewed.status, 200);
    assert.notEqual(renewed.body.refresh_token, tokens.refresh_token);
    const reused = await refresh(tokens.refresh_token);
    assert.equal(reused.status, 400);
    assert.deepEqual(reused.body, {
      error: 'invalid_grant',
      error_description: 'Token already used or revoked',
    });
    tokens = renewed.body as typeof tokens;
    assert.equal(
      (await getJson(`${oura.baseUrl}/v2/usercollection/personal_info`, tokens.access_token)).status,
      200,
    );
  });

  test('next_token pagination walks every page of a 30-day range', async () => {
    const seen: string[] = [];
    let next: string | null = null;
    let pages = 0;
    do {
      const query = `start_date=2024-10-21&end_date=2024-11-19${next ? `&next_token=${next}` : ''}`;
      const page = await getJson(
        `${oura.baseUrl}/v2/usercollection/daily_activity?${query}`,
        tokens.access_token,
      );
      assert.equal(page.status, 200);
      const body = page.body as { data: { id: string; day: string }[]; next_token: string | null };
      seen.push(...body.data.map((document) => document.day));
      next = body.next_token;
      pages += 1;
    } while (next);
    assert.equal(pages, 5);
    assert.equal(seen.length, 30);
    assert.equal(new Set(seen).size, 30);
    assert.equal(seen[0], '2024-10-21');
    const stale = await getJson(
      `${oura.baseUrl}/v2/usercollection/sleep?next_token=garbage`,
      tokens.access_token,
    );
    assert.equal(stale.status, 400);
  });

  test('time series pages and single documents by id', async () => {
    oura.timeSeriesPageSize = 100;
    const first = await getJson(
      `${oura.baseUrl}/v2/usercollection/heartrate?start_datetime=2024-11-10T00:00:00%2B01:00&end_datetime=2024-11-11T00:00:00%2B01:00`,
      tokens.access_token,
    );
    const body = first.body as { data: { timestamp_unix: number }[]; next_token: string };
    assert.equal(body.data.length, 100);
    assert.equal(body.data[0]?.timestamp_unix, Date.parse('2024-11-09T23:00:00Z'));
    const list = (
      await getJson(
        `${oura.baseUrl}/v2/usercollection/workout?start_date=2024-11-01&end_date=2024-11-10`,
        tokens.access_token,
      )
    ).body as { data: { id: string }[] };
    const id = list.data[0]?.id ?? '';
    const one = await getJson(`${oura.baseUrl}/v2/usercollection/workout/${id}`, tokens.access_token);
    assert.deepEqual(one.body, list.data[0]);
  });

  test('faults: 401, 429 with Retry-After, a 503 burst, a slow answer; expiry and revocation', async () => {
    const url = `${oura.baseUrl}/v2/usercollection/daily_sleep`;
    oura.inject({ kind: 'unauthorized', match: '/v2/usercollection/daily_sleep' });
    assert.equal((await getJson(url, tokens.access_token)).status, 401);
    oura.inject({ kind: 'rate_limit', retryAfterSeconds: 17 });
    const limited = await getJson(url, tokens.access_token);
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get('retry-after'), '17');
    assert.equal(limited.headers.get('x-ratelimit-window'), '300');
    oura.inject({ kind: 'server_error', status: 503, times: 3 });
    const statuses = [];
    for (let attempt = 0; attempt < 4; attempt++)
      statuses.push((await getJson(url, tokens.access_token)).status);
    assert.deepEqual(statuses, [503, 503, 503, 200]);
    oura.inject({ kind: 'slow', delayMs: 400 });
    await assert.rejects(
      fetch(url, {
        headers: { authorization: `Bearer ${tokens.access_token}` },
        signal: AbortSignal.timeout(50),
      }),
    );
    assert.equal(
      oura.requestsTo('/v2/usercollection/daily_sleep').filter((request) => request.fault).length,
      6,
    );

    oura.clock.advance(86_401_000);
    assert.equal((await getJson(url, tokens.access_token)).status, 401);
    const renewed = await refresh(tokens.refresh_token);
    tokens = renewed.body as typeof tokens;
    assert.equal((await getJson(url, tokens.access_token)).status, 200);
    const revoked = await fetch(`${oura.baseUrl}/oauth/revoke?access_token=${tokens.access_token}`, {
      method: 'POST',
    });
    assert.equal(revoked.status, 200);
    assert.equal((await getJson(url, tokens.access_token)).status, 401);
    assert.equal((await refresh(tokens.refresh_token)).status, 400);
  });

  test('webhook subscription: GET challenge verification, then signed events; 410 cancels', async () => {
    let status = 200;
    const receiver = await startReceiver((request) =>
      request.method === 'GET'
        ? request.url.searchParams.get('verification_token') === 'vt-1'
          ? { status: 200, body: { challenge: request.url.searchParams.get('challenge') } }
          : { status: 401 }
        : { status },
    );
    try {
      const app = {
        'x-client-id': oura.clientId,
        'x-client-secret': oura.clientSecret,
        'content-type': 'application/json',
      };
      const create = (token: string) =>
        fetch(`${oura.baseUrl}/v2/webhook/subscription`, {
          method: 'POST',
          headers: app,
          body: JSON.stringify({
            callback_url: receiver.url,
            verification_token: token,
            event_type: 'update',
            data_type: 'sleep',
          }),
        });
      assert.equal((await create('wrong')).status, 422);
      const created = await create('vt-1');
      assert.equal(created.status, 201);
      const subscription = (await created.json()) as { id: string; expiration_time: string };
      assert.ok(subscription.expiration_time);

      const [delivery] = await oura.notify({ event_type: 'update', data_type: 'sleep', object_id: 'abc' });
      const event = receiver.received.at(-1) as Received;
      assert.equal(delivery?.status, 200);
      const timestamp = String(event.headers['x-oura-timestamp']);
      const expected = createHmac('sha256', oura.clientSecret)
        .update(timestamp + event.body)
        .digest('hex')
        .toUpperCase();
      assert.equal(event.headers['x-oura-signature'], expected);
      assert.deepEqual(Object.keys(JSON.parse(event.body)).sort(), [
        'data_type',
        'event_time',
        'event_type',
        'object_id',
        'user_id',
      ]);

      status = 410;
      await oura.notify({ event_type: 'update', data_type: 'sleep', object_id: 'abc' });
      assert.equal(oura.subscriptions.size, 0);
    } finally {
      await receiver.close();
    }
  });
});

describe('fakes check: Strava fake', { skip: withoutSamples }, () => {
  let strava: StravaFake;
  let tokens: { access_token: string; refresh_token: string; expires_at: number };
  before(async () => {
    strava = await startStravaFake({ now: NOW, historyDays: 60, streamPoints: 50 });
  });
  after(() => strava.close());
  const token = (form: Record<string, string>) =>
    postForm(`${strava.baseUrl}/oauth/token`, {
      client_id: strava.clientId,
      client_secret: strava.clientSecret,
      ...form,
    });

  test('authorization code: the redirect carries the granted scope, the exchange the athlete', async () => {
    strava.consent.grantScopes = ['read', 'activity:read_all'];
    const redirect = await followAuthorize(
      `${strava.baseUrl}/oauth/authorize?response_type=code&client_id=${strava.clientId}&redirect_uri=${encodeURIComponent(REDIRECT)}&scope=read,profile:read_all,activity:read_all&approval_prompt=auto&state=st-1`,
    );
    assert.equal(redirect.searchParams.get('scope'), 'read,activity:read_all');
    strava.consent.grantScopes = null;
    const exchanged = await token({
      grant_type: 'authorization_code',
      code: redirect.searchParams.get('code') ?? '',
    });
    assert.equal(exchanged.status, 200);
    assert.equal(exchanged.body.token_type, 'Bearer');
    // Strava counts expires_in down from expires_at on a running clock: a loaded machine crosses a
    // second or more between issuing the token and answering (21599 for 21600). Six hours,
    // give or take the time the exchange took.
    const expiresIn = exchanged.body.expires_in as number;
    assert.ok(expiresIn <= 21_600 && expiresIn > 21_600 - 60, `expires_in ${expiresIn}`);
    assert.equal((exchanged.body.athlete as { id: number }).id, strava.athleteIdOf('account-1'));
    tokens = exchanged.body as typeof tokens;
    // profile:read_all was unticked: the zones need it.
    assert.equal((await getJson(`${strava.baseUrl}/api/v3/athlete/zones`, tokens.access_token)).status, 401);
  });

  test('refresh: same tokens while > 1 h is left, then both rotate and the old refresh token dies', async () => {
    const early = await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    assert.equal(early.body.access_token, tokens.access_token);
    assert.equal(early.body.refresh_token, tokens.refresh_token);
    assert.equal(early.body.athlete, undefined);
    strava.clock.advance(5.5 * 3_600_000);
    const late = await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    assert.notEqual(late.body.access_token, tokens.access_token);
    assert.notEqual(late.body.refresh_token, tokens.refresh_token);
    assert.equal(
      (await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token })).status,
      400,
    );
    tokens = late.body as typeof tokens;
  });

  test('page/per_page walks every activity; before/after filter by epoch seconds', async () => {
    const all = strava.activityIds('account-1', Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY);
    const seen: number[] = [];
    for (let page = 1; ; page++) {
      const response = await getJson(
        `${strava.baseUrl}/api/v3/athlete/activities?page=${page}&per_page=10`,
        tokens.access_token,
      );
      const list = response.body as { id: number }[];
      if (list.length === 0) break;
      seen.push(...list.map((activity) => activity.id));
    }
    assert.deepEqual(seen, all);
    assert.ok(all.length > 20);
    const after = Math.floor(Date.parse('2024-11-01T00:00:00Z') / 1000);
    const before = Math.floor(Date.parse('2024-11-10T00:00:00Z') / 1000);
    const window = (
      await getJson(
        `${strava.baseUrl}/api/v3/athlete/activities?after=${after}&before=${before}&per_page=200`,
        tokens.access_token,
      )
    ).body as { start_date: string }[];
    assert.ok(window.length > 0);
    for (const activity of window) {
      const at = Date.parse(activity.start_date) / 1000;
      assert.ok(at > after && at < before);
    }
  });

  test('rate-limit headers on every answer, natural and injected 429s, 401, 5xx', async () => {
    const url = `${strava.baseUrl}/api/v3/athlete`;
    const ok = await getJson(url, tokens.access_token);
    assert.equal(ok.headers.get('x-ratelimit-limit'), '200,2000');
    assert.equal(ok.headers.get('x-readratelimit-limit'), '100,1000');
    assert.match(ok.headers.get('x-ratelimit-usage') ?? '', /^\d+,\d+$/);
    strava.inject({ kind: 'rate_limit' });
    const injected = await getJson(url, tokens.access_token);
    assert.equal(injected.status, 429);
    assert.equal(injected.headers.get('x-readratelimit-usage')?.split(',')[0], '101');
    strava.clock.advance(15 * 60_000);
    strava.limits.read = [2, 1000];
    const statuses = [];
    for (let attempt = 0; attempt < 3; attempt++)
      statuses.push((await getJson(url, tokens.access_token)).status);
    assert.deepEqual(statuses, [200, 200, 429]);
    strava.limits.read = [100, 1000];
    strava.clock.advance(15 * 60_000);
    strava.inject({ kind: 'unauthorized' });
    const denied = await getJson(url, tokens.access_token);
    assert.deepEqual(denied.body, {
      message: 'Authorization Error',
      errors: [{ resource: 'Athlete', field: 'access_token', code: 'invalid' }],
    });
    strava.inject({ kind: 'server_error', status: 502, times: 2 });
    assert.deepEqual(
      [(await getJson(url, tokens.access_token)).status, (await getJson(url, tokens.access_token)).status],
      [502, 502],
    );
  });

  test('push subscription: hub.challenge validation, one per app, events, deauthorization event', async () => {
    const receiver = await startReceiver((request) =>
      request.method === 'GET'
        ? { status: 200, body: { 'hub.challenge': request.url.searchParams.get('hub.challenge') } }
        : { status: 200 },
    );
    try {
      const subscribe = () =>
        postForm(`${strava.baseUrl}/api/v3/push_subscriptions`, {
          client_id: strava.clientId,
          client_secret: strava.clientSecret,
          callback_url: receiver.url,
          verify_token: 'STRAVA',
        });
      const created = await subscribe();
      assert.equal(created.status, 201);
      const validation = receiver.received[0] as Received;
      assert.equal(validation.url.searchParams.get('hub.mode'), 'subscribe');
      assert.equal(validation.url.searchParams.get('hub.verify_token'), 'STRAVA');
      assert.equal((await subscribe()).status, 400);

      await strava.sendEvent({
        object_type: 'activity',
        object_id: 42,
        aspect_type: 'update',
        updates: { title: 'Messy' },
      });
      const event = JSON.parse((receiver.received.at(-1) as Received).body) as Record<string, unknown>;
      assert.deepEqual(Object.keys(event).sort(), [
        'aspect_type',
        'event_time',
        'object_id',
        'object_type',
        'owner_id',
        'subscription_id',
        'updates',
      ]);
      assert.equal(event.subscription_id, created.body.id);

      const deauthorized = await postForm(`${strava.baseUrl}/oauth/deauthorize`, {
        access_token: tokens.access_token,
      });
      assert.equal(deauthorized.status, 200);
      await strava.settled();
      const deauth = JSON.parse((receiver.received.at(-1) as Received).body) as Record<string, unknown>;
      assert.deepEqual([deauth.object_type, deauth.updates], ['athlete', { authorized: 'false' }]);
      assert.equal((await getJson(`${strava.baseUrl}/api/v3/athlete`, tokens.access_token)).status, 401);
      assert.equal(
        (await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token })).status,
        400,
      );
    } finally {
      await receiver.close();
    }
  });
});

describe('fakes check: WHOOP fake', { skip: withoutSamples }, () => {
  let whoop: WhoopFake;
  let tokens: { access_token: string; refresh_token: string; scope: string };
  before(async () => {
    whoop = await startWhoopFake({ now: NOW });
  });
  after(() => whoop.close());
  const token = (form: Record<string, string>) =>
    postForm(`${whoop.baseUrl}/oauth/oauth2/token`, {
      client_id: whoop.clientId,
      client_secret: whoop.clientSecret,
      ...form,
    });

  test('a refresh token only with `offline`; every refresh rotates it', async () => {
    const without = await token({
      grant_type: 'authorization_code',
      code: whoop.issueCode({ redirectUri: REDIRECT, scopes: ['read:cycles'] }),
      redirect_uri: REDIRECT,
    });
    assert.equal(without.status, 200);
    assert.equal(without.body.refresh_token, undefined);
    const redirect = await followAuthorize(
      `${whoop.baseUrl}/oauth/oauth2/auth?response_type=code&client_id=${whoop.clientId}&redirect_uri=${encodeURIComponent(REDIRECT)}&scope=offline%20read:cycles%20read:recovery%20read:sleep%20read:workout&state=state-123456`,
    );
    const granted = await token({
      grant_type: 'authorization_code',
      code: redirect.searchParams.get('code') ?? '',
      redirect_uri: REDIRECT,
    });
    assert.equal(granted.body.expires_in, 3600);
    assert.equal(granted.body.scope, 'offline read:cycles read:recovery read:sleep read:workout');
    tokens = granted.body as typeof tokens;
    const rotated = await token({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      scope: 'offline',
    });
    assert.equal(rotated.status, 200);
    assert.notEqual(rotated.body.refresh_token, tokens.refresh_token);
    assert.equal(
      (await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, scope: 'offline' }))
        .status,
      400,
    );
    tokens = rotated.body as typeof tokens;
  });

  test('nextToken walks every page (limit <= 25), newest first; limit 26 is refused', async () => {
    const base = `${whoop.baseUrl}/developer/v2/cycle?start=2024-10-21T05:00:00.000Z&end=2024-11-20T05:00:00.000Z&limit=7`;
    const starts: string[] = [];
    let next: string | undefined;
    do {
      const page = await getJson(next ? `${base}&nextToken=${next}` : base, tokens.access_token);
      const body = page.body as { records: { start: string }[]; next_token?: string };
      assert.ok(body.records.length <= 7);
      starts.push(...body.records.map((record) => record.start));
      next = body.next_token;
    } while (next);
    assert.equal(starts.length, 31);
    assert.deepEqual([...starts].sort().reverse(), starts);
    assert.equal(
      (await getJson(`${whoop.baseUrl}/developer/v2/cycle?limit=26`, tokens.access_token)).status,
      400,
    );
  });

  test('rate-limit headers, injected 429/401/500, expiry, revocation stops data and webhooks', async () => {
    const url = `${whoop.baseUrl}/developer/v2/activity/sleep`;
    const ok = await getJson(url, tokens.access_token);
    assert.equal(ok.headers.get('x-ratelimit-limit'), '100, 100;window=60, 10000;window=86400');
    assert.ok(Number(ok.headers.get('x-ratelimit-remaining')) < 100);
    assert.ok(ok.headers.get('x-ratelimit-reset'));
    whoop.inject({ kind: 'rate_limit', retryAfterSeconds: 42 });
    const limited = await getJson(url, tokens.access_token);
    assert.deepEqual(
      [
        limited.status,
        limited.headers.get('x-ratelimit-remaining'),
        limited.headers.get('x-ratelimit-reset'),
      ],
      [429, '0', '42'],
    );
    whoop.inject({ kind: 'server_error', times: 2 });
    assert.equal((await getJson(url, tokens.access_token)).status, 500);
    assert.equal((await getJson(url, tokens.access_token)).status, 500);
    assert.equal((await getJson(url, tokens.access_token)).status, 200);
    whoop.expireAccessTokens();
    assert.equal((await getJson(url, tokens.access_token)).status, 401);
    tokens = (await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token }))
      .body as typeof tokens;

    const receiver = await startReceiver(() => ({ status: 204 }));
    try {
      whoop.webhookUrl = receiver.url;
      const delivery = await whoop.notify('sleep.updated', 'ecfc6a15-4661-442f-a9a4-f160dd7afae8');
      assert.equal(delivery?.status, 204);
      const event = receiver.received[0] as Received;
      const timestamp = String(event.headers['x-whoop-signature-timestamp']);
      assert.match(timestamp, /^\d{13}$/);
      const expected = createHmac('sha256', whoop.clientSecret)
        .update(timestamp + event.body)
        .digest('base64');
      assert.equal(event.headers['x-whoop-signature'], expected);
      assert.deepEqual(Object.keys(JSON.parse(event.body)).sort(), ['id', 'trace_id', 'type', 'user_id']);

      const revoked = await fetch(`${whoop.baseUrl}/developer/v2/user/access`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${tokens.access_token}` },
      });
      assert.equal(revoked.status, 204);
      assert.equal((await getJson(url, tokens.access_token)).status, 401);
      assert.equal(await whoop.notify('sleep.updated', 'x'), null);
    } finally {
      await receiver.close();
    }
  });
});
