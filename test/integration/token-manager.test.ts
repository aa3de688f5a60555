// The token manager's decisions on a controlled clock, against the real store and the Oura fake:
// when a token counts as expiring (10 minutes ahead, inclusive), what happens without a refresh
// token or without stored tokens, what a broken connection is told, and the token store itself.
// connector-tokens.test.ts covers refresh, rotation and concurrency.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ProviderDataError } from '../../src/provider-kit/data-source.ts';
import {
  deleteProviderTokens,
  readProviderTokens,
  saveProviderTokens,
} from '../../src/provider-access/token-store.ts';
import { createTokenManager, REFRESH_AHEAD_MS } from '../../src/provider-access/tokens.ts';
import { providerEnv } from '../fakes/fake-server.ts';
import { type OuraFake, startOuraFake } from '../fakes/oura.ts';
import { createDeveloper, startTestService, type TestService } from '../helpers/app.ts';
import { insertUser } from '../helpers/users.ts';

const NOW = new Date('2026-07-01T12:00:00Z');

describe('token manager decisions', () => {
  let fake: OuraFake;
  let service: TestService;
  let developerId: string;
  const clock = { current: NOW, now: () => clock.current };
  const broken: { userId: string; reason: string }[] = [];

  const manager = () =>
    createTokenManager({
      db: service.ctx.db,
      clock,
      config: service.ctx.config,
      secretBox: service.ctx.secretBox,
      log: service.ctx.log,
      providers: service.ctx.providers,
      markConnectionBroken: async (_trx, userId, reason) => {
        broken.push({ userId, reason });
        return true;
      },
    });

  /** An OURA user holding `access` (and maybe a refresh token) that expires `inMs` from NOW. */
  async function userWithTokens(access: string, inMs: number | null, refresh: string | null = null) {
    const userId = await insertUser(service.ctx, { developerId, provider: 'OURA' });
    const box = service.ctx.secretBox;
    await saveProviderTokens(
      service.ctx.db,
      userId,
      {
        access_token: box.seal(access),
        refresh_token: refresh === null ? null : box.seal(refresh),
        expires_at: inMs === null ? null : new Date(NOW.getTime() + inMs),
        scopes: 'daily',
        provider_user_id: 'oura-1',
      },
      NOW,
    );
    return { id: userId, provider: 'OURA' };
  }

  const refreshes = () =>
    fake.requestsTo('/oauth/token').filter((request) => request.body.includes('grant_type=refresh_token'));

  const failsWith = async (promise: Promise<unknown>, kind: string, message: string) =>
    assert.rejects(promise, (error: unknown) => {
      assert.ok(error instanceof ProviderDataError, String(error));
      assert.equal(error.kind, kind);
      assert.equal(error.message, message);
      return true;
    });

  before(async () => {
    fake = await startOuraFake();
    service = await startTestService({ env: providerEnv('OURA', fake), work: false });
    developerId = (await createDeveloper(service.ctx)).devId;
  });
  after(async () => {
    await service?.close();
    await fake?.close();
  });

  test('the token store saves, replaces, reads and deletes one row per user', async () => {
    const user = await userWithTokens('first', 60_000);
    const box = service.ctx.secretBox;
    assert.equal(
      box.open(String((await readProviderTokens(service.ctx.db, user.id))?.access_token)),
      'first',
    );
    await saveProviderTokens(
      service.ctx.db,
      user.id,
      {
        access_token: box.seal('second'),
        refresh_token: null,
        expires_at: null,
        scopes: null,
        provider_user_id: null,
      },
      NOW,
    );
    const replaced = await readProviderTokens(service.ctx.db, user.id);
    assert.equal(box.open(String(replaced?.access_token)), 'second');
    assert.equal(replaced?.expires_at, null);
    const other = await userWithTokens('other', 60_000);
    await deleteProviderTokens(service.ctx.db, user.id);
    assert.equal(await readProviderTokens(service.ctx.db, user.id), undefined);
    assert.ok(await readProviderTokens(service.ctx.db, other.id), 'only that user’s row goes');
  });

  test('a token more than 10 minutes from its expiry, or without one, is used without a refresh', async () => {
    assert.equal(REFRESH_AHEAD_MS, 10 * 60_000);
    const tokens = manager();
    const later = await userWithTokens('still-good', REFRESH_AHEAD_MS + 1, 'rt-unused');
    const before = refreshes().length;
    assert.equal(await tokens.current(later), 'still-good');
    assert.equal(refreshes().length, before, 'no refresh yet');
    const noExpiry = await userWithTokens('forever', null, 'rt-unused');
    assert.equal(await tokens.current(noExpiry), 'forever', 'a token without expiry is used as is');
  });

  test('without a refresh token: an expiring token is used until it expires, then the connection breaks', async () => {
    const tokens = manager();
    const expiring = await userWithTokens('last-minutes', 5 * 60_000);
    assert.equal(await tokens.current(expiring), 'last-minutes');
    assert.equal(await tokens.current(await userWithTokens('edge', REFRESH_AHEAD_MS)), 'edge');
    assert.equal(broken.length, 0);

    const expired = await userWithTokens('gone', 0);
    await failsWith(
      tokens.current(expired),
      'unauthorized',
      'connection needs reconnecting: no refresh token',
    );
    assert.deepEqual(broken.at(-1), {
      userId: expired.id,
      reason: 'access token expired and there is no refresh token',
    });

    // The provider refused a token that has no refresh token behind it: nothing left to try.
    const refused = await userWithTokens('refused', 60 * 60_000);
    await failsWith(
      tokens.rejected(refused, 'refused'),
      'unauthorized',
      'connection needs reconnecting: no refresh token',
    );
    assert.equal(broken.at(-1)?.userId, refused.id);
    // A token other than the one refused is already a newer one: it is handed out.
    const newer = await userWithTokens('newer', 60 * 60_000);
    assert.equal(await tokens.rejected(newer, 'older'), 'newer');
  });

  test('no stored tokens, or a provider without OAuth: the connection needs reconnecting', async () => {
    const tokens = manager();
    const bare = { id: await insertUser(service.ctx, { developerId, provider: 'OURA' }), provider: 'OURA' };
    await failsWith(tokens.current(bare), 'unauthorized', 'no stored tokens for this user');
    await failsWith(
      tokens.rejected(bare, 'x'),
      'unauthorized',
      'connection needs reconnecting: no stored tokens',
    );
    assert.equal(await tokens.freshOrNull(bare), null);
    const unknown = { id: bare.id, provider: 'NOT_A_PROVIDER' };
    await failsWith(
      tokens.rejected(unknown, 'x'),
      'unauthorized',
      'connection needs reconnecting: NOT_A_PROVIDER has no OAuth to refresh with',
    );
  });

  test('a session reports a failure as a broken connection; freshOrNull hands out a usable token', async () => {
    const tokens = manager();
    const user = await userWithTokens('usable', 60 * 60_000);
    assert.equal(await tokens.freshOrNull(user), 'usable');
    const session = tokens.session(user);
    assert.equal(await session.current(), 'usable');
    await session.failed('provider answered 403');
    assert.deepEqual(broken.at(-1), { userId: user.id, reason: 'provider answered 403' });
    await tokens.failed(user, 'provider answered 412');
    assert.deepEqual(broken.at(-1), { userId: user.id, reason: 'provider answered 412' });
  });
});
