import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createSecretBox } from '../../src/core/secret-box.ts';
import { EXPIRE_AUTH_SESSION_QUEUE } from '../../src/features/connecting/ports.ts';
import {
  type FakeOAuthProvider,
  fakeEnv,
  OURA_PROFILE,
  WAHOO_PROFILE,
  startFakeOAuthProvider,
} from '../fakes/oauth-provider.ts';
import {
  createDeveloper,
  problemOf,
  startTestService,
  type TestDeveloper,
  type TestService,
} from '../helpers/app.ts';
import {
  authenticateUser,
  callback,
  connectSandboxUser,
  decideSandboxConsent,
} from '../helpers/connections.ts';
import { findJobs, makeJobDue, waitForJobsSettled } from '../helpers/jobs.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

type Event = Record<string, unknown> & { type: string; status?: string };

describe('connections: auth links, OAuth callback, reconnection', () => {
  let service: TestService;
  let oura: FakeOAuthProvider;
  // A web provider with PKCE (it must have a connector to be offered at all).
  let wahoo: FakeOAuthProvider;
  let receiver: WebhookReceiver;
  let dev: TestDeveloper;
  let other: TestDeveloper;
  const clock = { shiftMs: 0, now: () => new Date(Date.now() + clock.shiftMs) };

  const events = (): Event[] => receiver.received.map((entry) => JSON.parse(entry.body) as Event);
  const waitForEvent = async (predicate: (event: Event) => boolean, description: string) => {
    await receiver.waitFor(() => events().some(predicate), description);
    return events().find(predicate) as Event;
  };
  const userInfo = (userId: string, developer = dev) =>
    service.app.inject({ method: 'GET', url: `/v2/userInfo?user_id=${userId}`, headers: developer.headers });

  before(async () => {
    oura = await startFakeOAuthProvider(OURA_PROFILE);
    wahoo = await startFakeOAuthProvider(WAHOO_PROFILE);
    receiver = await startWebhookReceiver();
    service = await startTestService({
      clock,
      env: { ...fakeEnv('OURA', oura), ...fakeEnv('WAHOO', wahoo), PROVIDER_HTTP_TIMEOUT_MS: '500' },
    });
    dev = await createDeveloper(service.ctx);
    other = await createDeveloper(service.ctx, { name: 'Other developer' });
    await service.ctx.webhooks.setDestination(dev.devId, { url: receiver.url });
  });
  after(async () => {
    await service?.close();
    await Promise.all([oura?.close(), wahoo?.close(), receiver?.close()]);
  });

  test('sandbox: pending user, consent, callback, active user, auth success event', async () => {
    const { userId, authUrl } = await authenticateUser(service.app, dev, 'SANDBOX', {
      reference_id: 'customer-1',
      auth_success_redirect_url: 'https://app.example/connected?from=tributary',
    });
    const pending = (await userInfo(userId)).json();
    assert.equal(pending.is_authenticated, false);
    assert.equal(pending.user.provider, 'SANDBOX');

    const page = await service.app.inject({ method: 'GET', url: `${authUrl.pathname}${authUrl.search}` });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<button[^>]*value="approve"/);
    assert.equal(page.headers['x-frame-options'], 'DENY');
    assert.equal(page.headers['cache-control'], 'no-store');

    const back = await decideSandboxConsent(service.app, authUrl, 'approve', 'account-a');
    const landed = await callback(service.app, back);
    assert.equal(landed.statusCode, 302);
    const location = new URL(String(landed.headers.location));
    assert.equal(location.origin + location.pathname, 'https://app.example/connected');
    assert.equal(location.searchParams.get('from'), 'tributary');
    assert.equal(location.searchParams.get('user_id'), userId);
    assert.equal(location.searchParams.get('resource'), 'SANDBOX');
    assert.equal(location.searchParams.get('reference_id'), 'customer-1');

    const info = (await userInfo(userId)).json();
    assert.equal(info.is_authenticated, true);
    assert.match(info.user.scopes, /activity/);
    const auth = await waitForEvent(
      (e) => e.type === 'auth' && (e.user as { user_id: string }).user_id === userId,
      'auth',
    );
    assert.equal(auth.status, 'success');
    assert.equal(auth.reference_id, 'customer-1');
    assert.equal(auth.widget_session_id, null);
  });

  test('resource in the body, and the generateAuthURL alias', async () => {
    for (const url of ['/v2/auth/authenticateUser', '/v2/auth/generateAuthURL']) {
      const response = await service.app.inject({
        method: 'POST',
        url,
        headers: dev.headers,
        payload: { resource: 'sandbox' },
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.match(response.json().auth_url, /\/providers\/sandbox\/consent\?/);
    }
    const noBody = await service.app.inject({
      method: 'POST',
      url: '/v2/auth/authenticateUser?resource=SANDBOX',
      headers: dev.headers,
    });
    assert.equal(noBody.statusCode, 200, noBody.body);
  });

  test('400 / 401 / 403 / 404 paths of authenticateUser', async () => {
    const post = (url: string, payload: object = {}, headers = dev.headers) =>
      service.app.inject({ method: 'POST', url, headers, payload });
    const cases: [Awaited<ReturnType<typeof post>>, number, RegExp][] = [
      [await post('/v2/auth/authenticateUser'), 400, /missing resource/],
      [await post('/v2/auth/authenticateUser?resource=NOPE'), 404, /unknown provider/],
      [await post('/v2/auth/authenticateUser?resource=WHOOP'), 404, /not enabled/],
      [await post('/v2/auth/authenticateUser?resource=APPLE'), 400, /invalid resource: .*mobile SDK/],
      [
        await post('/v2/auth/authenticateUser?resource=SANDBOX', { auth_success_redirect_url: '/relative' }),
        400,
        /invalid auth_success_redirect_url/,
      ],
      [
        await post('/v2/auth/authenticateUser?resource=SANDBOX', {
          auth_failure_redirect_url: 'javascript:alert(1)',
        }),
        400,
        /invalid auth_failure_redirect_url/,
      ],
      [
        await post('/v2/auth/authenticateUser?resource=SANDBOX', { reference_id: 'x'.repeat(300) }),
        400,
        /reference_id/,
      ],
      [await post('/v2/auth/authenticateUser?resource=SANDBOX', {}, {}), 401, /dev-id or x-api-key/],
      [
        await post(
          '/v2/auth/authenticateUser?resource=SANDBOX',
          {},
          { ...dev.headers, 'x-api-key': other.apiKey },
        ),
        401,
        /invalid API key/,
      ],
    ];
    for (const [response, status, detail] of cases) {
      const problem = problemOf(response);
      assert.equal(problem.status, status, response.body);
      assert.match(problem.body.detail, detail);
    }
    const suspended = await createDeveloper(service.ctx, { name: 'Suspended' });
    await service.ctx.developers.setStatus(suspended.devId, 'suspended');
    assert.equal(
      (await post('/v2/auth/authenticateUser?resource=SANDBOX', {}, suspended.headers)).statusCode,
      403,
    );
  });

  test('OAuth2 against a fake provider: body client auth, no PKCE, account from userinfo, tokens sealed', async () => {
    oura.account = 'oura-user-1';
    const { userId, authUrl } = await authenticateUser(service.app, dev, 'OURA', { reference_id: 'r-oura' });
    assert.equal(authUrl.origin, oura.baseUrl);
    assert.equal(authUrl.pathname, '/oauth/authorize');
    assert.equal(authUrl.searchParams.get('code_challenge'), null);
    assert.equal(authUrl.searchParams.get('scope')?.split(' ').includes('daily'), true);
    const response = await callback(service.app, await oura.authorize(authUrl.toString()));
    assert.equal(response.statusCode, 302, response.body);
    assert.equal(new URL(String(response.headers.location)).searchParams.get('user_id'), userId);
    const request = oura.tokenRequests.at(-1);
    assert.equal(request?.form.client_secret, oura.clientSecret);
    assert.equal(request?.pkceVerified, null);

    const row = await service.ctx.db
      .selectFrom('provider_tokens')
      .selectAll()
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    const issued = oura.issuedAccessTokens.at(-1) ?? '';
    assert.equal(JSON.stringify(row).includes(issued), false, 'plaintext token in the row');
    assert.equal(row.provider_user_id, 'oura-user-1');
    assert.equal(service.ctx.secretBox.open(row.access_token), issued);
    const otherKey = createSecretBox(randomBytes(32));
    assert.throws(() => otherKey.open(row.access_token));
    assert.throws(() => otherKey.open(row.refresh_token ?? ''));
  });

  test('OAuth2 + PKCE against a fake provider: the S256 challenge matches the verifier sent', async () => {
    wahoo.account = 'wahoo-user-9';
    const { userId, authUrl } = await authenticateUser(service.app, dev, 'WAHOO');
    assert.equal(authUrl.searchParams.get('code_challenge_method'), 'S256');
    assert.match(authUrl.searchParams.get('code_challenge') ?? '', /^[A-Za-z0-9_-]{43}$/);
    const response = await callback(service.app, await wahoo.authorize(authUrl.toString()));
    assert.equal(response.statusCode, 302, response.body);
    const request = wahoo.tokenRequests.at(-1);
    assert.equal(request?.pkceVerified, true);
    assert.match(request?.form.code_verifier ?? '', /^[A-Za-z0-9_-]{43}$/);
    assert.equal(request?.authorization, undefined, 'credentials in the body, no Basic header');
    assert.ok(request?.form.client_secret, 'the secret in the body');
    assert.equal((await userInfo(userId)).json().is_authenticated, true);
  });

  test('state is one-time: a replayed callback gets an error page and changes nothing', async () => {
    const { authUrl } = await authenticateUser(service.app, dev, 'SANDBOX');
    const back = await decideSandboxConsent(service.app, authUrl, 'approve');
    assert.equal((await callback(service.app, back)).statusCode, 302);
    const replay = await callback(service.app, back);
    assert.equal(replay.statusCode, 400);
    assert.match(String(replay.headers['content-type']), /text\/html/);
    const unknown = new URL(back);
    unknown.searchParams.set('state', 'not-a-state');
    assert.equal((await callback(service.app, unknown)).statusCode, 400);
    const missing = new URL(back);
    missing.searchParams.delete('state');
    assert.equal((await callback(service.app, missing)).statusCode, 400);
  });

  test('state is bound to its provider', async () => {
    const { authUrl } = await authenticateUser(service.app, dev, 'SANDBOX');
    const back = await decideSandboxConsent(service.app, authUrl, 'approve');
    const elsewhere = new URL(back.toString().replace('/callback/SANDBOX', '/callback/OURA'));
    assert.equal((await callback(service.app, elsewhere)).statusCode, 400);
  });

  test('the sandbox consent page only ever redirects to our own callback', async () => {
    const { authUrl } = await authenticateUser(service.app, dev, 'SANDBOX');
    const evil = new URL(authUrl);
    evil.searchParams.set('redirect_uri', 'https://evil.example/steal');
    const page = await service.app.inject({ method: 'GET', url: `${evil.pathname}${evil.search}` });
    assert.equal(page.statusCode, 400);
    const form = new URLSearchParams(evil.search);
    form.set('decision', 'approve');
    form.set('account', 'victim');
    const posted = await service.app.inject({
      method: 'POST',
      url: evil.pathname,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: form.toString(),
    });
    assert.equal(posted.statusCode, 400);
    assert.equal(posted.headers.location, undefined);
    const noPkce = new URL(authUrl);
    noPkce.searchParams.delete('code_challenge');
    assert.equal(
      (await service.app.inject({ method: 'GET', url: `${noPkce.pathname}${noPkce.search}` })).statusCode,
      400,
    );
  });

  test('denial: failure URL with resource, reference_id and reason; auth error; user deleted', async () => {
    const { userId, authUrl } = await authenticateUser(service.app, dev, 'SANDBOX', {
      reference_id: 'denier',
      auth_failure_redirect_url: 'https://app.example/failed',
    });
    const response = await callback(service.app, await decideSandboxConsent(service.app, authUrl, 'deny'));
    const location = new URL(String(response.headers.location));
    assert.equal(location.origin + location.pathname, 'https://app.example/failed');
    assert.deepEqual(Object.fromEntries(location.searchParams), {
      resource: 'SANDBOX',
      reference_id: 'denier',
      reason: 'access_denied',
    });
    assert.equal((await userInfo(userId)).statusCode, 404);
    const event = await waitForEvent(
      (e) => e.type === 'auth_cancelled' && e.status === 'error' && e.reference_id === 'denier',
      'auth error',
    );
    assert.equal(event.reason, 'access_denied');
    assert.equal(event.provider, 'SANDBOX');
    assert.equal(event.flow_id, userId, 'the flow is named by the user_id authenticateUser returned');
    assert.equal(event.user, undefined, 'the failure arm carries no user');
  });

  test('expiry: a late callback fails with reason expired', async () => {
    const { userId, authUrl } = await authenticateUser(service.app, dev, 'SANDBOX', { reference_id: 'late' });
    const back = await decideSandboxConsent(service.app, authUrl, 'approve');
    clock.shiftMs = 16 * 60_000;
    try {
      const response = await callback(service.app, back);
      assert.equal(new URL(String(response.headers.location)).searchParams.get('reason'), 'expired');
    } finally {
      clock.shiftMs = 0;
    }
    assert.equal((await userInfo(userId)).statusCode, 404);
    await waitForEvent(
      (e) => e.type === 'auth_cancelled' && e.reference_id === 'late' && e.reason === 'expired',
      'expired auth',
    );
  });

  test('an abandoned flow is failed by its timer, fired through the real queue when it expires', async () => {
    const requestedAt = clock.now().getTime();
    const { userId } = await authenticateUser(service.app, dev, 'SANDBOX', { reference_id: 'abandoned' });
    const answeredAt = clock.now().getTime();
    const session = await service.ctx.db
      .selectFrom('auth_sessions')
      .select(['id', 'expires_at'])
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    // Fifteen minutes from the moment the link was made.
    assert.ok(session.expires_at.getTime() >= requestedAt + 15 * 60_000);
    assert.ok(session.expires_at.getTime() <= answeredAt + 15 * 60_000);
    // The timer is a durable job, enqueued with the session and due 5 s after the session expires.
    const [timer, ...others] = await findJobs(service.ctx, EXPIRE_AUTH_SESSION_QUEUE, { id: session.id });
    assert.equal(others.length, 0);
    assert.ok(timer, 'an expiry job exists for the session');
    assert.equal(timer.state, 'created');
    assert.deepEqual(timer.data, { authSessionId: session.id });
    assert.equal(timer.startAfter.getTime(), session.expires_at.getTime() + 5_000);

    // Its time comes: the service's clock is past the expiry, and the queue sees the job due.
    clock.shiftMs = 16 * 60_000;
    try {
      await makeJobDue(service.ctx, timer.id);
      const [fired] = await waitForJobsSettled(service.ctx, EXPIRE_AUTH_SESSION_QUEUE, { id: session.id });
      assert.equal(fired?.state, 'completed');
    } finally {
      clock.shiftMs = 0;
    }
    assert.equal((await userInfo(userId)).statusCode, 404);
    const event = await waitForEvent(
      (e) => e.type === 'auth_cancelled' && e.reference_id === 'abandoned' && e.status === 'error',
      'abandoned',
    );
    assert.equal(event.reason, 'expired');
    assert.equal(
      await service.ctx.connecting.expireAuthSession(session.id),
      false,
      'a session is expired once',
    );
  });

  test('the timer does nothing to a session that has not expired yet', async () => {
    const { userId } = await authenticateUser(service.app, dev, 'SANDBOX', { reference_id: 'early' });
    const session = await service.ctx.db
      .selectFrom('auth_sessions')
      .select('id')
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    await makeJobDue(service.ctx, session.id);
    const [fired] = await waitForJobsSettled(service.ctx, EXPIRE_AUTH_SESSION_QUEUE, { id: session.id });
    assert.equal(fired?.state, 'completed');
    assert.equal((await userInfo(userId)).statusCode, 200, 'still pending, not failed');
  });

  test('provider failures end in the failure redirect, never a 500', async () => {
    for (const failure of [{ status: 500 }, 'not-json', 'hang'] as const) {
      const { authUrl } = await authenticateUser(service.app, dev, 'OURA');
      const back = await oura.authorize(authUrl.toString());
      oura.tokenFailure = failure;
      const response = await callback(service.app, back);
      assert.equal(response.statusCode, 302, `${JSON.stringify(failure)}: ${response.body}`);
      assert.equal(
        new URL(String(response.headers.location)).searchParams.get('reason'),
        'token_exchange_failed',
      );
    }
  });

  test('reconnecting the same provider account: new user id, old one deleted, user_reauth', async () => {
    const first = await connectSandboxUser(service.app, dev, { account: 'same-person', referenceId: 're' });
    const second = await connectSandboxUser(service.app, dev, { account: 'same-person', referenceId: 're' });
    const elsewhere = await connectSandboxUser(service.app, other, { account: 'same-person' });
    assert.notEqual(first.userId, second.userId);
    assert.equal((await userInfo(first.userId)).statusCode, 404);
    assert.equal((await userInfo(second.userId)).statusCode, 200);
    assert.equal(
      (await userInfo(elsewhere.userId, other)).statusCode,
      200,
      'other developers are unaffected',
    );
    const reauth = await waitForEvent((e) => e.type === 'user_reauth', 'user_reauth');
    assert.equal((reauth.new_user as { user_id: string }).user_id, second.userId);
    assert.equal((reauth.old_user as { user_id: string }).user_id, first.userId);
    assert.equal((reauth.old_user as { active: boolean }).active, false, 'the old user is gone');
    assert.equal((reauth.new_user as { active: boolean }).active, true);
    assert.equal(reauth.status, 'warning');
  });
});
