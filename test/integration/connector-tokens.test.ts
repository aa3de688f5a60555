// The token lifecycle against the Oura fake (single-use refresh tokens) and the real store:
// concurrent reads with an expired token refresh once, in one process and across two; rotation
// round after round never locks the user out; a refusal breaks the connection at once, transient
// failures only after several in a row.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTokenManager, MAX_REFRESH_FAILURES } from '../../src/provider-access/tokens.ts';
import { saveProviderTokens } from '../../src/provider-access/token-store.ts';
import { findConnectionById } from '../../src/features/connections/repo.ts';
import type { ConnectionRow } from '../../src/features/connections/service.ts';
import { ProviderDataError } from '../../src/provider-kit/data-source.ts';
import { providerEnv } from '../fakes/fake-server.ts';
import { type OuraFake, startOuraFake } from '../fakes/oura.ts';
import { createDeveloper, startTestService, type TestService } from '../helpers/app.ts';
import { insertUser } from '../helpers/users.ts';

const REDIRECT = 'http://127.0.0.1:1/callback';
const PERSONAL_INFO = 'https://api.ouraring.com/v2/usercollection/personal_info';

describe('token lifecycle', () => {
  let fake: OuraFake;
  let service: TestService;
  let developerId: string;

  const refreshes = () =>
    fake.requestsTo('/oauth/token').filter((request) => request.body.includes('grant_type=refresh_token'));

  /** A user holding a real grant of the fake, stored as already expired. */
  async function connectedUser(account: string): Promise<ConnectionRow> {
    const userId = await insertUser(service.ctx, { developerId, provider: 'OURA' });
    fake.consent.account = account;
    const code = fake.issueCode({ redirectUri: REDIRECT });
    const response = await fetch(`${fake.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        client_id: fake.clientId,
        client_secret: fake.clientSecret,
      }).toString(),
    });
    const tokens = (await response.json()) as { access_token: string; refresh_token: string };
    const box = service.ctx.secretBox;
    await saveProviderTokens(
      service.ctx.db,
      userId,
      {
        access_token: box.seal(tokens.access_token),
        refresh_token: box.seal(tokens.refresh_token),
        expires_at: new Date(Date.now() - 1000),
        scopes: null,
        provider_user_id: null,
      },
      new Date(),
    );
    return (await findConnectionById(service.ctx.db, userId)) as ConnectionRow;
  }

  const expireStored = (userId: string) =>
    service.ctx.db
      .updateTable('provider_tokens')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('user_id', '=', userId)
      .execute();
  const storedRefreshToken = async (userId: string) => {
    const row = await service.ctx.db
      .selectFrom('provider_tokens')
      .select('refresh_token')
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    return row.refresh_token ? service.ctx.secretBox.open(row.refresh_token) : null;
  };
  const statusOf = async (userId: string) => (await findConnectionById(service.ctx.db, userId))?.status;
  const concurrentReads = (user: ConnectionRow, count: number) => {
    const http = service.ctx.connectors.dataContext(user).http;
    assert.ok(http, 'the connector context has an HTTP client');
    return Promise.all(
      Array.from({ length: count }, () => http.json<{ id: string }>({ url: PERSONAL_INFO })),
    );
  };

  before(async () => {
    fake = await startOuraFake();
    service = await startTestService({ env: providerEnv('OURA', fake), work: false });
    developerId = (await createDeveloper(service.ctx)).devId;
  });
  after(async () => {
    await service?.close();
    await fake?.close();
  });

  test('twenty concurrent reads with an expired token: exactly one refresh at the provider', async () => {
    const user = await connectedUser('concurrent');
    const before = refreshes().length;
    const answers = await concurrentReads(user, 20);
    assert.equal(refreshes().length - before, 1);
    assert.ok(answers.every((answer) => answer?.id === fake.userIdOf('concurrent')));
    const grant = fake.grants.find((candidate) => candidate.account === 'concurrent');
    assert.equal(
      await storedRefreshToken(user.id),
      grant?.refreshToken,
      'the rotated refresh token is stored',
    );
  });

  test('two processes (two token managers on one database) still refresh once', async () => {
    const user = await connectedUser('two-processes');
    const ctx = service.ctx;
    const other = createTokenManager({
      db: ctx.db,
      clock: ctx.clock,
      config: ctx.config,
      secretBox: ctx.secretBox,
      log: ctx.log,
      providers: ctx.providers,
      markConnectionBroken: ctx.connecting.markConnectionBroken,
    });
    const before = refreshes().length;
    const tokens = await Promise.all([
      ...Array.from({ length: 5 }, () => ctx.connectors.tokens.current(user)),
      ...Array.from({ length: 5 }, () => other.current(user)),
    ]);
    assert.equal(
      refreshes().length - before,
      1,
      're-read after the lock: the second process uses the first one’s refresh',
    );
    assert.equal(new Set(tokens).size, 1);
  });

  test('single-use refresh tokens rotate round after round without locking the user out', async () => {
    const user = await connectedUser('rotation');
    for (let round = 1; round <= 3; round++) {
      const before = refreshes().length;
      const retired = await storedRefreshToken(user.id);
      await expireStored(user.id);
      await concurrentReads(user, 8);
      assert.equal(refreshes().length - before, 1, `round ${round}: one refresh`);
      assert.notEqual(
        await storedRefreshToken(user.id),
        retired,
        `round ${round}: a new refresh token stored`,
      );
      assert.equal(await statusOf(user.id), 'active');
    }
  });

  test('a token the provider refuses is refreshed once, even when many requests report it', async () => {
    const user = await connectedUser('refused');
    await concurrentReads(user, 1); // refreshed: the stored token is now valid for a day
    const before = refreshes().length;
    fake.expireAccessTokens();
    const answers = await concurrentReads(user, 6);
    assert.equal(answers.length, 6);
    assert.equal(refreshes().length - before, 1);
    const current = await service.ctx.connectors.tokens.current(user);
    assert.equal(
      await service.ctx.connectors.tokens.rejected(user, 'an-older-token'),
      current,
      'already replaced: no refresh',
    );
    assert.equal(refreshes().length - before, 1);
  });

  test('a refused refresh (invalid_grant) breaks the connection at once', async () => {
    const user = await connectedUser('revoked-at-provider');
    fake.revokeAccount('revoked-at-provider');
    await assert.rejects(service.ctx.connectors.tokens.current(user), (error: unknown) => {
      assert.ok(error instanceof ProviderDataError);
      assert.equal(error.kind, 'unauthorized');
      return true;
    });
    assert.equal(await statusOf(user.id), 'broken');
  });

  test(`transient refresh failures break the connection only after ${MAX_REFRESH_FAILURES} in a row`, async () => {
    const user = await connectedUser('flaky-token-endpoint');
    fake.inject({ kind: 'server_error', status: 502, times: MAX_REFRESH_FAILURES, match: '/oauth/token' });
    for (let attempt = 1; attempt <= MAX_REFRESH_FAILURES; attempt++) {
      await assert.rejects(service.ctx.connectors.tokens.current(user), ProviderDataError);
      const health = await service.ctx.db
        .selectFrom('connector_token_health')
        .select('consecutive_failures')
        .where('user_id', '=', user.id)
        .executeTakeFirstOrThrow();
      assert.equal(health.consecutive_failures, attempt);
      assert.equal(await statusOf(user.id), attempt < MAX_REFRESH_FAILURES ? 'active' : 'broken');
    }
  });
});
