// The generic OAuth2 client (src/provider-access/oauth.ts) against a real local HTTP server that
// records what it was sent: the authorize URL, the code exchange in each client-authentication
// style, the account-id lookup, revocation in each declared form, and every way a provider can
// fail. No provider is named: each test declares the provider it needs.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/core/config.ts';
import { createSecretBox } from '../../src/core/secret-box.ts';
import type { ResolvedProvider } from '../../src/provider-access/catalog.ts';
import {
  buildAuthorizeUrl,
  exchangeAuthorizationCode,
  newPkcePair,
  OAuthFlowError,
  parseTokenResponse,
  revokeAccess,
  timeoutMs,
} from '../../src/provider-access/oauth.ts';
import type { ProviderRuntime } from '../../src/provider-kit/types.ts';

type Seen = {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
};
type Answer = { status: number; body?: string; headers?: Record<string, string> } | 'hang';

const NOW = new Date('2026-03-01T12:00:00Z');

function runtime(env: Record<string, string> = {}): ProviderRuntime {
  return {
    config: loadConfig({ DATA_DIR: '/nonexistent', ENCRYPTION_KEY: randomBytes(32).toString('hex'), ...env }),
    clock: { now: () => NOW },
    secretBox: createSecretBox(randomBytes(32)),
  };
}

describe('OAuth client', () => {
  let server: Server;
  let base: string;
  let seen: Seen[];
  let answers: Map<string, Answer>;

  const answer = (path: string, status: number, body?: unknown, headers?: Record<string, string>) =>
    answers.set(path, {
      status,
      body: typeof body === 'string' ? body : JSON.stringify(body),
      ...(headers ? { headers } : {}),
    });

  function provider(
    overrides: Partial<NonNullable<ResolvedProvider['oauth']>> = {},
    extra: Partial<ResolvedProvider> = {},
  ) {
    return {
      id: 'TESTPROV',
      credentials: { clientId: 'client id:1', clientSecret: 's&cret/2' },
      connector: undefined,
      oauth: {
        authorizeUrl: `${base}/authorize?existing=1`,
        tokenUrl: `${base}/token`,
        scopes: ['read', 'write'],
        scopeSeparator: ' ',
        clientAuth: 'basic',
        ...overrides,
      },
      ...extra,
    } as unknown as ResolvedProvider;
  }

  before(async () => {
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const url = new URL(request.url ?? '/', 'http://x');
        seen.push({
          method: request.method ?? '',
          path: url.pathname,
          query: url.searchParams,
          headers: request.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        const scripted = answers.get(url.pathname) ?? { status: 404, body: '{}' };
        if (scripted === 'hang') return;
        response.writeHead(scripted.status, { 'content-type': 'application/json', ...scripted.headers });
        response.end(scripted.body ?? '');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    seen = [];
    answers = new Map();
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const rejectsWith = async (promise: Promise<unknown>, reason: string, message: string | RegExp) =>
    assert.rejects(promise, (error: unknown) => {
      assert.ok(error instanceof OAuthFlowError, String(error));
      assert.equal(error.reason, reason);
      if (typeof message === 'string') assert.equal(error.message, message);
      else assert.match(error.message, message);
      return true;
    });

  test('a PKCE pair is a 43-character verifier and its S256 challenge, fresh each time', () => {
    const pair = newPkcePair();
    assert.match(pair.verifier, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(pair.challenge, createHash('sha256').update(pair.verifier).digest('base64url'));
    assert.notEqual(newPkcePair().verifier, pair.verifier);
  });

  test('the provider timeout comes from PROVIDER_HTTP_TIMEOUT_MS, parsed as the API client parses it', () => {
    assert.equal(timeoutMs(runtime({ PROVIDER_HTTP_TIMEOUT_MS: '2500' })), 2500);
    assert.equal(timeoutMs(runtime()), 10_000);
    // One parser for both clients: a bad value stops the boot rather than silently meaning 10 s.
    for (const raw of ['0', '-5', 'soon']) {
      assert.throws(
        () => timeoutMs(runtime({ PROVIDER_HTTP_TIMEOUT_MS: raw })),
        (error: unknown) =>
          error instanceof ConfigError &&
          error.message === `PROVIDER_HTTP_TIMEOUT_MS must be a positive number, got "${raw}"`,
        raw,
      );
    }
  });

  describe('authorize URL', () => {
    test('carries every declared parameter, PKCE and the language', () => {
      const url = new URL(
        buildAuthorizeUrl(
          provider({ scopeSeparator: ',', languageParam: 'locale', authorizeParams: { prompt: 'consent' } }),
          { state: 'st', redirectUri: 'https://t.example/cb', codeChallenge: 'ch', language: 'de' },
        ),
      );
      assert.equal(`${url.origin}${url.pathname}`, `${base}/authorize`);
      assert.deepEqual(Object.fromEntries(url.searchParams), {
        existing: '1',
        response_type: 'code',
        client_id: 'client id:1',
        redirect_uri: 'https://t.example/cb',
        scope: 'read,write',
        state: 'st',
        code_challenge: 'ch',
        code_challenge_method: 'S256',
        locale: 'de',
        prompt: 'consent',
      });
    });

    test('leaves out what does not apply: credentials, scopes, PKCE, language', () => {
      const url = new URL(
        buildAuthorizeUrl(provider({ scopes: [] }, { credentials: null }), {
          state: 'st',
          redirectUri: 'https://t.example/cb',
          codeChallenge: null,
          language: 'en',
        }),
      );
      assert.deepEqual([...url.searchParams.keys()].sort(), [
        'existing',
        'redirect_uri',
        'response_type',
        'state',
      ]);
      assert.throws(
        () =>
          buildAuthorizeUrl(provider({}, { oauth: null }), {
            state: 's',
            redirectUri: 'r',
            codeChallenge: null,
            language: 'en',
          }),
        { message: 'TESTPROV has no OAuth declaration' },
      );
    });
  });

  describe('token answer', () => {
    const parse = (document: unknown, overrides: Partial<NonNullable<ResolvedProvider['oauth']>> = {}) =>
      parseTokenResponse(provider(overrides), document, NOW);

    test('expiry from expires_at or expires_in, scopes from a string or a list, an empty refresh token is none', () => {
      const inSeconds = parse({
        access_token: 'a',
        refresh_token: 'r',
        expires_in: 3600,
        scope: 'read  write,extra',
      });
      assert.equal(inSeconds.accessToken, 'a');
      assert.equal(inSeconds.refreshToken, 'r');
      assert.deepEqual(inSeconds.expiresAt, new Date(NOW.getTime() + 3_600_000));
      assert.deepEqual(inSeconds.scopes, ['read', 'write', 'extra']);
      const at = parse({ access_token: 'a', expires_at: 1_800_000_000, expires_in: 5, scope: ['x', 7, 'y'] });
      assert.deepEqual(at.expiresAt, new Date(1_800_000_000_000), 'expires_at wins');
      assert.deepEqual(at.scopes, ['x', 'y']);
      assert.equal(at.refreshToken, null);
      const bare = parse({ access_token: 'a', refresh_token: '' });
      assert.equal(bare.expiresAt, null);
      assert.equal(bare.scopes, null);
      assert.equal(bare.refreshToken, null);
      assert.deepEqual(bare.raw, { access_token: 'a', refresh_token: '' });
    });

    test('a wrapped answer is read at its declared path', () => {
      const wrapped = parse(
        { status: 0, body: { token: { access_token: 'deep' } } },
        { tokenResponsePath: 'body.token' },
      );
      assert.equal(wrapped.accessToken, 'deep');
      assert.throws(() => parse({ body: 'text' }, { tokenResponsePath: 'body.token' }), {
        message: 'no token in answer',
      });
    });

    test('no token: a token_exchange_failed error', () => {
      for (const [document, message] of [
        [null, 'no token in answer'],
        ['text', 'no token in answer'],
        [{}, 'answer has no access_token'],
        [{ access_token: '' }, 'answer has no access_token'],
        [{ access_token: 12 }, 'answer has no access_token'],
      ] as const) {
        assert.throws(
          () => parse(document),
          (error: unknown) =>
            error instanceof OAuthFlowError &&
            error.reason === 'token_exchange_failed' &&
            error.message === message,
          JSON.stringify(document),
        );
      }
    });
  });

  describe('code exchange', () => {
    const input = { code: 'the-code', codeVerifier: 'the-verifier', redirectUri: 'https://t.example/cb' };

    test('client credentials in a Basic header, form-encoded, with the verifier and fixed parameters', async () => {
      answer('/token', 200, { access_token: 'at', refresh_token: 'rt', expires_in: 60 });
      const result = await exchangeAuthorizationCode(
        provider({ tokenParams: { action: 'requesttoken' } }),
        runtime(),
        input,
      );
      assert.equal(result.tokens.accessToken, 'at');
      assert.equal(result.accountId, null, 'no account id declared');
      const [request] = seen;
      assert.equal(request?.method, 'POST');
      assert.equal(request?.headers['content-type'], 'application/x-www-form-urlencoded');
      assert.equal(request?.headers.accept, 'application/json');
      const expectedBasic = Buffer.from(
        `${encodeURIComponent('client id:1')}:${encodeURIComponent('s&cret/2')}`,
      ).toString('base64');
      assert.equal(request?.headers.authorization, `Basic ${expectedBasic}`);
      assert.deepEqual(Object.fromEntries(new URLSearchParams(request?.body)), {
        grant_type: 'authorization_code',
        code: 'the-code',
        redirect_uri: 'https://t.example/cb',
        code_verifier: 'the-verifier',
        action: 'requesttoken',
      });
    });

    test('client credentials in the body instead, and no verifier when there is none', async () => {
      answer('/token', 200, { access_token: 'at' });
      await exchangeAuthorizationCode(provider({ clientAuth: 'body' }), runtime(), {
        ...input,
        codeVerifier: null,
      });
      const [request] = seen;
      assert.equal(request?.headers.authorization, undefined);
      assert.deepEqual(Object.fromEntries(new URLSearchParams(request?.body)), {
        grant_type: 'authorization_code',
        code: 'the-code',
        redirect_uri: 'https://t.example/cb',
        client_id: 'client id:1',
        client_secret: 's&cret/2',
      });
    });

    test('the account id from the token answer, or from a userinfo call with the new token', async () => {
      answer('/token', 200, { access_token: 'at', user: { id: 42 } });
      const fromToken = await exchangeAuthorizationCode(
        provider({ accountId: { from: 'token', path: 'user.id' } }),
        runtime(),
        input,
      );
      assert.equal(fromToken.accountId, '42');

      answer('/me', 200, { data: { id: 'acct-7' } });
      const fromProfile = await exchangeAuthorizationCode(
        provider({ accountId: { from: 'userinfo', url: `${base}/me`, path: 'data.id' } }),
        runtime(),
        input,
      );
      assert.equal(fromProfile.accountId, 'acct-7');
      const profileCall = seen.at(-1);
      assert.equal(profileCall?.method, 'GET');
      assert.equal(profileCall?.headers.authorization, 'Bearer at');

      answer('/me', 200, { data: { id: '' } });
      await rejectsWith(
        exchangeAuthorizationCode(
          provider({ accountId: { from: 'userinfo', url: `${base}/me`, path: 'data.id' } }),
          runtime(),
          input,
        ),
        'account_lookup_failed',
        "no data.id in the provider's profile",
      );
      answer('/me', 500, {});
      await rejectsWith(
        exchangeAuthorizationCode(
          provider({ accountId: { from: 'userinfo', url: `${base}/me`, path: 'data.id' } }),
          runtime(),
          input,
        ),
        'account_lookup_failed',
        'provider answered 500',
      );
    });

    test('the account id from a claim of the id_token in the answer (read, not fetched)', async () => {
      const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
      const idToken = `${part({ alg: 'RS256' })}.${part({ sub: 'union-1', openid: 'open-9' })}.signature`;
      answer('/token', 200, { access_token: 'at', id_token: idToken });
      const result = await exchangeAuthorizationCode(
        provider({ accountId: { from: 'idToken', claim: 'openid' } }),
        runtime(),
        input,
      );
      assert.equal(result.accountId, 'open-9');
      assert.equal(seen.length, 1, 'no call beyond the token exchange');

      for (const broken of [{ access_token: 'at' }, { access_token: 'at', id_token: 'not-a-jwt' }]) {
        answer('/token', 200, broken);
        await rejectsWith(
          exchangeAuthorizationCode(
            provider({ accountId: { from: 'idToken', claim: 'openid' } }),
            runtime(),
            input,
          ),
          'account_lookup_failed',
          "no openid claim in the provider's id_token",
        );
      }
    });

    test('every failure is a token_exchange_failed with a short reason', async () => {
      answer('/token', 400, { error: 'invalid_grant' });
      await rejectsWith(
        exchangeAuthorizationCode(provider(), runtime(), input),
        'token_exchange_failed',
        'provider answered 400',
      );
      answer('/token', 302, '', { location: `${base}/elsewhere` });
      await rejectsWith(
        exchangeAuthorizationCode(provider(), runtime(), input),
        'token_exchange_failed',
        'provider answered 302',
      );
      assert.ok(!seen.some((request) => request.path === '/elsewhere'), 'redirects are not followed');
      answer('/token', 200, '<html>');
      await rejectsWith(
        exchangeAuthorizationCode(provider(), runtime(), input),
        'token_exchange_failed',
        'provider answered with something other than JSON',
      );
      answers.set('/token', 'hang');
      await rejectsWith(
        exchangeAuthorizationCode(provider(), runtime({ PROVIDER_HTTP_TIMEOUT_MS: '100' }), input),
        'token_exchange_failed',
        /^provider unreachable: /,
      );
      await rejectsWith(
        exchangeAuthorizationCode(provider({}, { oauth: null }), runtime(), input),
        'unsupported',
        'TESTPROV has no OAuth declaration',
      );
    });

    test('a connector that exchanges codes itself is used instead, and its failure is reported the same way', async () => {
      const connector = {
        exchangeCode: async (given: typeof input) => ({
          accessToken: `for-${given.code}`,
          refreshToken: null,
          expiresAt: null,
          scopes: null,
          raw: {},
          accountId: 'own',
        }),
      };
      const result = await exchangeAuthorizationCode(provider({}, { connector } as never), runtime(), input);
      assert.equal(result.tokens.accessToken, 'for-the-code');
      assert.equal(result.accountId, 'own');
      assert.equal(seen.length, 0, 'the token endpoint is not called');
      const failing = {
        exchangeCode: async () => {
          throw new Error('code_verifier does not match');
        },
      };
      await rejectsWith(
        exchangeAuthorizationCode(provider({}, { connector: failing } as never), runtime(), input),
        'token_exchange_failed',
        'code_verifier does not match',
      );
    });
  });

  describe('revocation', () => {
    const revoke = (
      declaration: NonNullable<ResolvedProvider['oauth']>['revoke'],
      extra: Partial<ResolvedProvider> = {},
    ) =>
      revokeAccess(provider({ revoke: declaration }, extra), runtime(), {
        accessToken: 'tok en',
        providerUserId: 'u/1',
      });

    test('nothing declared: nothing sent, false', async () => {
      assert.equal(await revoke(undefined), false);
      assert.equal(seen.length, 0);
    });

    test('bearer, with the provider user id in the path (declared or percent-encoded by a base-URL override)', async () => {
      answer(`/users/${encodeURIComponent('u/1')}/revoke`, 204);
      assert.equal(
        await revoke({ url: `${base}/users/{provider_user_id}/revoke`, method: 'DELETE', token: 'bearer' }),
        true,
      );
      assert.equal(
        await revoke({
          url: `${base}/users/%7Bprovider_user_id%7D/revoke`,
          method: 'DELETE',
          token: 'bearer',
        }),
        true,
      );
      for (const request of seen) {
        assert.equal(request.method, 'DELETE');
        assert.equal(request.path, `/users/${encodeURIComponent('u/1')}/revoke`);
        assert.equal(request.headers.authorization, 'Bearer tok en');
        assert.equal(request.headers['content-type'], undefined, 'no body, no content type');
        assert.equal(request.body, '');
      }
    });

    test('the token as a query or form parameter, with client credentials as declared', async () => {
      answer('/revoke', 200);
      await revoke({ url: `${base}/revoke`, method: 'GET', token: { param: 'access_token', in: 'query' } });
      assert.equal(seen[0]?.query.get('access_token'), 'tok en');
      assert.equal(seen[0]?.headers.authorization, undefined);

      await revoke({
        url: `${base}/revoke`,
        method: 'POST',
        token: { param: 'token', in: 'form' },
        clientAuth: 'basic',
      });
      assert.equal(seen[1]?.headers['content-type'], 'application/x-www-form-urlencoded');
      assert.deepEqual(Object.fromEntries(new URLSearchParams(seen[1]?.body)), { token: 'tok en' });
      assert.match(String(seen[1]?.headers.authorization), /^Basic /);

      await revoke({
        url: `${base}/revoke`,
        method: 'POST',
        token: { param: 'token', in: 'form' },
        clientAuth: 'body',
      });
      assert.deepEqual(Object.fromEntries(new URLSearchParams(seen[2]?.body)), {
        token: 'tok en',
        client_id: 'client id:1',
        client_secret: 's&cret/2',
      });
      assert.equal(seen[2]?.headers.authorization, undefined);

      // Basic client auth never replaces a bearer token.
      await revoke({ url: `${base}/revoke`, method: 'POST', token: 'bearer', clientAuth: 'basic' });
      assert.equal(seen[3]?.headers.authorization, 'Bearer tok en');
      // Body client auth without credentials sends none.
      await revoke(
        { url: `${base}/revoke`, method: 'POST', token: 'bearer', clientAuth: 'body' },
        { credentials: null },
      );
      assert.equal(seen[4]?.body, '');
    });

    test('already revoked (401) or unknown (404) is success; other failures throw', async () => {
      for (const status of [401, 404]) {
        answer('/revoke', status);
        assert.equal(
          await revoke({ url: `${base}/revoke`, method: 'POST', token: 'bearer' }),
          true,
          String(status),
        );
      }
      answer('/revoke', 500);
      await rejectsWith(
        revoke({ url: `${base}/revoke`, method: 'POST', token: 'bearer' }),
        'revocation_failed',
        'provider answered 500',
      );
      answer('/revoke', 403);
      await rejectsWith(
        revoke({ url: `${base}/revoke`, method: 'POST', token: 'bearer' }),
        'revocation_failed',
        'provider answered 403',
      );
    });
  });
});
