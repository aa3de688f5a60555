import { createHash, randomBytes } from 'node:crypto';
import type { ResolvedProvider } from './catalog.ts';
import type { ProviderRuntime, TokenSet } from '../provider-kit/types.ts';
import { currentTraceparent, inSpan, SpanKind, tracingEnabled } from '../core/tracing.ts';
import { providerHttpSettings } from './settings.ts';
import { AnswerTooLargeError, readAnswerText } from './answer-size.ts';

/**
 * The generic OAuth2 client: everything provider-specific comes from the declaration, so no
 * provider is named here. Every call to a provider has a timeout, and every way it can fail
 * becomes an `OAuthFlowError` with a short machine reason (sent on to the failure URL).
 */

export class OAuthFlowError extends Error {
  override name = 'OAuthFlowError';
  readonly reason: string;
  constructor(reason: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.reason = reason;
  }
}

/** PROVIDER_HTTP_TIMEOUT_MS, parsed once for the OAuth and the API client (a bad value stops the boot). */
export const timeoutMs = (runtime: ProviderRuntime) =>
  runtime.config.settings.get(providerHttpSettings).timeoutMs;

/** PROVIDER_HTTP_MAX_ANSWER_MB in bytes: the most of a token endpoint's answer read. */
export const maxAnswerBytes = (runtime: ProviderRuntime) =>
  runtime.config.settings.get(providerHttpSettings).maxAnswerBytes;

/** RFC 7636: a 43-character verifier and its S256 challenge. */
export function newPkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier, 'ascii').digest('base64url') };
}

export function buildAuthorizeUrl(
  provider: ResolvedProvider,
  input: { state: string; redirectUri: string; codeChallenge: string | null; language: string },
): string {
  const oauth = provider.oauth;
  if (!oauth) throw new Error(`${provider.id} has no OAuth declaration`);
  const url = new URL(oauth.authorizeUrl);
  url.searchParams.set('response_type', 'code');
  if (provider.credentials) url.searchParams.set('client_id', provider.credentials.clientId);
  url.searchParams.set('redirect_uri', input.redirectUri);
  if (oauth.scopes.length > 0) url.searchParams.set('scope', oauth.scopes.join(oauth.scopeSeparator));
  url.searchParams.set('state', input.state);
  if (input.codeChallenge) {
    url.searchParams.set('code_challenge', input.codeChallenge);
    url.searchParams.set('code_challenge_method', 'S256');
  }
  if (oauth.languageParam) url.searchParams.set(oauth.languageParam, input.language);
  for (const [name, value] of Object.entries(oauth.authorizeParams ?? {})) url.searchParams.set(name, value);
  return url.toString();
}

function valueAt(document: unknown, path: string): unknown {
  let current = document;
  for (const key of path.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** The payload of a JWT (the middle part, base64url JSON); null when it is not one. */
function idTokenClaims(value: unknown): unknown {
  if (typeof value !== 'string') return null;
  const payload = value.split('.')[1];
  if (!payload) return null;
  try {
    return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown;
  } catch {
    return null;
  }
}

function idFrom(value: unknown): string | null {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

/**
 * One bounded request to a provider's OAuth endpoint; no redirects followed. With tracing on, a
 * client span that sends its `traceparent` along.
 */
async function fetchProvider(runtime: ProviderRuntime, url: string | URL, init: RequestInit, reason: string) {
  if (!tracingEnabled()) return fetchBounded(runtime, url, init, reason);
  const method = init.method ?? 'GET';
  const target = new URL(url);
  return inSpan(
    `${method} OAuth`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        'http.request.method': method,
        'server.address': target.hostname,
        'url.path': target.pathname,
      },
    },
    async (span) => {
      const headers = new Headers(init.headers);
      const traceparent = currentTraceparent();
      if (traceparent) headers.set('traceparent', traceparent);
      const response = await fetchBounded(runtime, url, { ...init, headers }, reason);
      span?.setAttribute('http.response.status_code', response.status);
      return response;
    },
  );
}

async function fetchBounded(runtime: ProviderRuntime, url: string | URL, init: RequestInit, reason: string) {
  try {
    return await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs(runtime)) });
  } catch (error) {
    throw new OAuthFlowError(reason, `provider unreachable: ${(error as Error).message}`, { cause: error });
  }
}

async function callProvider(runtime: ProviderRuntime, url: string, init: RequestInit, reason: string) {
  const response = await fetchProvider(runtime, url, init, reason);
  const who = `the provider at ${new URL(url).host}${new URL(url).pathname}`;
  const text = await readAnswerText(response, maxAnswerBytes(runtime), who).catch((error: unknown) => {
    if (error instanceof AnswerTooLargeError) throw new OAuthFlowError(reason, error.message);
    return '';
  });
  if (!response.ok) throw new OAuthFlowError(reason, `provider answered ${response.status}`);
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new OAuthFlowError(reason, 'provider answered with something other than JSON', { cause: error });
  }
}

function clientAuthorization(provider: ResolvedProvider): string | undefined {
  if (!provider.credentials) return undefined;
  const { clientId, clientSecret } = provider.credentials;
  return `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`;
}

export function parseTokenResponse(provider: ResolvedProvider, document: unknown, now: Date): TokenSet {
  const path = provider.oauth?.tokenResponsePath;
  const raw = path ? valueAt(document, path) : document;
  if (raw === null || typeof raw !== 'object')
    throw new OAuthFlowError('token_exchange_failed', 'no token in answer');
  const fields = raw as Record<string, unknown>;
  if (typeof fields.access_token !== 'string' || fields.access_token === '') {
    throw new OAuthFlowError('token_exchange_failed', 'answer has no access_token');
  }
  const expiresAt =
    typeof fields.expires_at === 'number'
      ? new Date(fields.expires_at * 1000)
      : typeof fields.expires_in === 'number'
        ? new Date(now.getTime() + fields.expires_in * 1000)
        : null;
  const scope = fields.scope;
  const scopes =
    typeof scope === 'string'
      ? scope.split(/[\s,]+/).filter(Boolean)
      : Array.isArray(scope)
        ? scope.filter((item): item is string => typeof item === 'string')
        : null;
  return {
    accessToken: fields.access_token,
    refreshToken:
      typeof fields.refresh_token === 'string' && fields.refresh_token !== '' ? fields.refresh_token : null,
    expiresAt,
    scopes,
    raw: fields,
  };
}

/** The authorization-code exchange, then the provider's account id (from the answer or a userinfo call). */
export async function exchangeAuthorizationCode(
  provider: ResolvedProvider,
  runtime: ProviderRuntime,
  input: { code: string; codeVerifier: string | null; redirectUri: string },
): Promise<{ tokens: TokenSet; accountId: string | null }> {
  const oauth = provider.oauth;
  if (!oauth) throw new OAuthFlowError('unsupported', `${provider.id} has no OAuth declaration`);
  if (provider.connector?.exchangeCode) {
    try {
      const { accountId, ...tokens } = await provider.connector.exchangeCode(input, runtime);
      return { tokens, accountId };
    } catch (error) {
      throw new OAuthFlowError('token_exchange_failed', (error as Error).message, { cause: error });
    }
  }

  const form = new URLSearchParams({
    grant_type: 'authorization_code',
    code: input.code,
    redirect_uri: input.redirectUri,
  });
  if (input.codeVerifier) form.set('code_verifier', input.codeVerifier);
  for (const [name, value] of Object.entries(oauth.tokenParams ?? {})) form.set(name, value);
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
  };
  if (provider.credentials && oauth.clientAuth === 'body') {
    form.set('client_id', provider.credentials.clientId);
    form.set('client_secret', provider.credentials.clientSecret);
  }
  const basic = oauth.clientAuth === 'basic' ? clientAuthorization(provider) : undefined;
  if (basic) headers.authorization = basic;
  const document = await callProvider(
    runtime,
    oauth.tokenUrl,
    { method: 'POST', headers, body: form.toString() },
    'token_exchange_failed',
  );
  const tokens = parseTokenResponse(provider, document, runtime.clock.now());

  const source = oauth.accountId;
  if (!source) return { tokens, accountId: null };
  if (source.from === 'token') return { tokens, accountId: idFrom(valueAt(tokens.raw, source.path)) };
  if (source.from === 'idToken') {
    const accountId = idFrom(valueAt(idTokenClaims(tokens.raw.id_token), source.claim));
    if (!accountId)
      throw new OAuthFlowError(
        'account_lookup_failed',
        `no ${source.claim} claim in the provider's id_token`,
      );
    return { tokens, accountId };
  }
  const profile = await callProvider(
    runtime,
    source.url,
    { method: 'GET', headers: { authorization: `Bearer ${tokens.accessToken}`, accept: 'application/json' } },
    'account_lookup_failed',
  );
  const accountId = idFrom(valueAt(profile, source.path));
  if (!accountId)
    throw new OAuthFlowError('account_lookup_failed', `no ${source.path} in the provider's profile`);
  return { tokens, accountId };
}

/** Revokes at the provider where it allows it; returns false when it does not. Throws on failure. */
export async function revokeAccess(
  provider: ResolvedProvider,
  runtime: ProviderRuntime,
  input: { accessToken: string; providerUserId: string | null },
): Promise<boolean> {
  const revoke = provider.oauth?.revoke;
  if (!revoke) return false;
  const url = new URL(
    // A `<ID>_BASE_URL` override has gone through `new URL`, which percent-encodes the braces.
    revoke.url.replace(
      /\{provider_user_id\}|%7Bprovider_user_id%7D/i,
      encodeURIComponent(input.providerUserId ?? ''),
    ),
  );
  const headers: Record<string, string> = { accept: 'application/json' };
  const form = new URLSearchParams();
  if (revoke.token === 'bearer') headers.authorization = `Bearer ${input.accessToken}`;
  else if (revoke.token.in === 'query') url.searchParams.set(revoke.token.param, input.accessToken);
  else form.set(revoke.token.param, input.accessToken);
  if (revoke.clientAuth === 'basic' && revoke.token !== 'bearer') {
    const basic = clientAuthorization(provider);
    if (basic) headers.authorization = basic;
  } else if (revoke.clientAuth === 'body' && provider.credentials) {
    form.set('client_id', provider.credentials.clientId);
    form.set('client_secret', provider.credentials.clientSecret);
  }
  const init: RequestInit = { method: revoke.method, headers };
  if ([...form.keys()].length > 0) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    init.body = form.toString();
  }
  const response = await fetchProvider(runtime, url, init, 'revocation_failed');
  await response.body?.cancel();
  // Already revoked or unknown at the provider is the outcome we wanted.
  if (!response.ok && response.status !== 401 && response.status !== 404) {
    throw new OAuthFlowError('revocation_failed', `provider answered ${response.status}`);
  }
  return true;
}
