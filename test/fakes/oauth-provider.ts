import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real local OAuth2 authorization server (node:http, 127.0.0.1, free port) shaped like one
 * provider's documented endpoints (docs/providers.md). Tributary reaches it through
 * `<PROVIDER>_BASE_URL`, so every endpoint path is the provider's own. It checks what a strict
 * provider checks: client authentication in the declared style, the registered redirect URI,
 * single-use codes and, when a challenge was sent, PKCE S256.
 */
export type FakeProfile = {
  authorizePath: string;
  tokenPath: string;
  revokePath: string;
  userInfoPath?: string;
  clientAuth: 'basic' | 'body';
  /** Token-response field carrying the account id (when there is no userinfo endpoint). */
  tokenAccountField?: string;
  /** Userinfo field carrying the account id (`id` unless said). */
  userInfoAccountField?: string;
};

/** Oura v2: credentials in the body, no PKCE, account id from personal_info. */
export const OURA_PROFILE: FakeProfile = {
  authorizePath: '/oauth/authorize',
  tokenPath: '/oauth/token',
  revokePath: '/oauth/revoke',
  userInfoPath: '/v2/usercollection/personal_info',
  clientAuth: 'body',
};

/** Wahoo: credentials in the body, PKCE, account id from GET /v1/user. */
export const WAHOO_PROFILE: FakeProfile = {
  authorizePath: '/oauth/authorize',
  tokenPath: '/oauth/token',
  revokePath: '/v1/permissions',
  userInfoPath: '/v1/user',
  clientAuth: 'body',
};

/**
 * Fitbit, through Google's OAuth (the Google Health API): Basic client auth, PKCE, the account id
 * (`healthUserId`) from users/me/identity.
 */
export const FITBIT_PROFILE: FakeProfile = {
  authorizePath: '/o/oauth2/v2/auth',
  tokenPath: '/token',
  revokePath: '/revoke',
  userInfoPath: '/v4/users/me/identity',
  userInfoAccountField: 'healthUserId',
  clientAuth: 'basic',
};

type PendingCode = {
  redirectUri: string;
  challenge: string | null;
  method: string | null;
  scope: string;
  account: string;
};

export type TokenRequestRecord = {
  form: Record<string, string>;
  authorization: string | undefined;
  /** true: S256(verifier) matched the challenge; null: no challenge was involved. */
  pkceVerified: boolean | null;
};

export type FakeOAuthProvider = {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** The provider account the next consent belongs to. */
  account: string;
  /** The next authorize request is denied by the "user". */
  denyNext: boolean;
  /**
   * The scopes the next consents grant instead of those requested (a user unticking boxes):
   * RFC 6749 §3.3 lets the server grant less than asked and say so in the token's `scope`.
   */
  grantScope: string | null;
  /** The next token request fails this way. */
  tokenFailure: { status: number } | 'hang' | 'not-json' | null;
  revocationStatus: number;
  authorizeRequests: URLSearchParams[];
  tokenRequests: TokenRequestRecord[];
  issuedAccessTokens: string[];
  revocations: { method: string; token: string | null; authorization: string | undefined }[];
  /** Follows an auth_url like a browser whose user consents; returns where the provider redirects. */
  authorize(authUrl: string): Promise<URL>;
  close(): Promise<void>;
};

const s256 = (verifier: string) => createHash('sha256').update(verifier, 'ascii').digest('base64url');

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function json(response: ServerResponse, status: number, body: unknown) {
  response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  response.end(JSON.stringify(body));
}

export async function startFakeOAuthProvider(profile: FakeProfile): Promise<FakeOAuthProvider> {
  const codes = new Map<string, PendingCode>();
  const tokens = new Map<string, string>(); // access token -> account
  const hanging = new Set<ServerResponse>();

  const fake: FakeOAuthProvider = {
    baseUrl: '',
    clientId: `client-${randomBytes(4).toString('hex')}`,
    clientSecret: `secret-${randomBytes(12).toString('hex')}`,
    account: 'account-1',
    denyNext: false,
    grantScope: null,
    tokenFailure: null,
    revocationStatus: 200,
    authorizeRequests: [],
    tokenRequests: [],
    issuedAccessTokens: [],
    revocations: [],
    async authorize(authUrl) {
      const response = await fetch(authUrl, { redirect: 'manual' });
      const location = response.headers.get('location');
      if (response.status !== 302 || !location) throw new Error(`fake authorize answered ${response.status}`);
      return new URL(location);
    },
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  function clientAuthenticated(request: IncomingMessage, form: URLSearchParams): boolean {
    if (profile.clientAuth === 'body') {
      return form.get('client_id') === fake.clientId && form.get('client_secret') === fake.clientSecret;
    }
    const expected = `Basic ${Buffer.from(`${fake.clientId}:${fake.clientSecret}`).toString('base64')}`;
    return request.headers.authorization === expected;
  }

  function handleAuthorize(url: URL, response: ServerResponse) {
    const params = url.searchParams;
    fake.authorizeRequests.push(params);
    const redirectUri = params.get('redirect_uri');
    if (params.get('response_type') !== 'code' || params.get('client_id') !== fake.clientId || !redirectUri) {
      return json(response, 400, { error: 'invalid_request' });
    }
    const target = new URL(redirectUri);
    if (fake.denyNext) {
      fake.denyNext = false;
      target.searchParams.set('error', 'access_denied');
    } else {
      const code = randomBytes(16).toString('hex');
      codes.set(code, {
        redirectUri,
        challenge: params.get('code_challenge'),
        method: params.get('code_challenge_method'),
        scope: fake.grantScope ?? params.get('scope') ?? '',
        account: fake.account,
      });
      target.searchParams.set('code', code);
    }
    target.searchParams.set('state', params.get('state') ?? '');
    response.writeHead(302, { location: target.toString() });
    response.end();
  }

  function handleToken(request: IncomingMessage, form: URLSearchParams, response: ServerResponse) {
    const record: TokenRequestRecord = {
      form: Object.fromEntries(form),
      authorization: request.headers.authorization,
      pkceVerified: null,
    };
    fake.tokenRequests.push(record);
    const failure = fake.tokenFailure;
    fake.tokenFailure = null;
    if (failure === 'hang') {
      hanging.add(response);
      return;
    }
    if (failure === 'not-json') {
      response.writeHead(200, { 'content-type': 'text/html' });
      return response.end('<html>maintenance</html>');
    }
    if (failure) return json(response, failure.status, { error: 'server_error' });
    if (!clientAuthenticated(request, form)) return json(response, 401, { error: 'invalid_client' });
    const code = form.get('code') ?? '';
    const pending = codes.get(code);
    codes.delete(code); // single use, whatever happens next
    if (form.get('grant_type') !== 'authorization_code' || !pending)
      return json(response, 400, { error: 'invalid_grant' });
    if (form.get('redirect_uri') !== pending.redirectUri)
      return json(response, 400, { error: 'invalid_grant' });
    if (pending.challenge) {
      const verifier = form.get('code_verifier');
      record.pkceVerified =
        pending.method === 'S256' && verifier !== null && s256(verifier) === pending.challenge;
      if (!record.pkceVerified)
        return json(response, 400, { error: 'invalid_grant', error_description: 'PKCE' });
    }
    const accessToken = `at-${randomBytes(16).toString('hex')}`;
    tokens.set(accessToken, pending.account);
    fake.issuedAccessTokens.push(accessToken);
    const body: Record<string, unknown> = {
      access_token: accessToken,
      token_type: 'bearer',
      expires_in: 86_400,
      refresh_token: `rt-${randomBytes(16).toString('hex')}`,
      scope: pending.scope,
    };
    if (profile.tokenAccountField) body[profile.tokenAccountField] = pending.account;
    return json(response, 200, body);
  }

  const server: Server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', 'http://fake');
      const body = await readBody(request);
      const form = new URLSearchParams(body);
      if (request.method === 'GET' && url.pathname === profile.authorizePath)
        return handleAuthorize(url, response);
      if (request.method === 'POST' && url.pathname === profile.tokenPath)
        return handleToken(request, form, response);
      if (url.pathname === profile.userInfoPath && request.method === 'GET') {
        const bearer = request.headers.authorization?.replace(/^Bearer /, '') ?? '';
        const account = tokens.get(bearer);
        if (!account) return json(response, 401, { detail: 'invalid token' });
        return json(response, 200, {
          [profile.userInfoAccountField ?? 'id']: account,
          age: 33,
          email: `${account}@example.test`,
        });
      }
      if (url.pathname === profile.revokePath) {
        const token = url.searchParams.get('access_token') ?? form.get('token') ?? form.get('access_token');
        fake.revocations.push({
          method: request.method ?? '',
          token,
          authorization: request.headers.authorization,
        });
        return json(response, fake.revocationStatus, {});
      }
      return json(response, 404, { error: 'not_found' });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}

/** The env that wires a fake in place of provider `id` (credentials + base URL). */
export function fakeEnv(id: string, fake: FakeOAuthProvider): Record<string, string> {
  return {
    [`${id}_CLIENT_ID`]: fake.clientId,
    [`${id}_CLIENT_SECRET`]: fake.clientSecret,
    [`${id}_BASE_URL`]: fake.baseUrl,
  };
}
