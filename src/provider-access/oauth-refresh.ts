// The refresh-token grant, generic over providers: endpoint, client authentication and extra
// parameters come from the declaration. The answer is classified, because what happens next
// depends on it: a 400 (invalid_grant: revoked, expired, already used) will never succeed, so
// the connection is broken at once; anything else (timeouts, 5xx, 429, an unexpected body) may
// pass and only counts towards the failure limit.
import { maxAnswerBytes, OAuthFlowError, parseTokenResponse, timeoutMs } from './oauth.ts';
import { readAnswerText } from './answer-size.ts';
import type { ResolvedProvider } from './catalog.ts';
import type { ProviderRuntime, TokenSet } from '../provider-kit/types.ts';
import { inSpan, SpanKind, withTraceHeaders } from '../core/tracing.ts';
import { parseRetryAfter } from './http-client.ts';

export type RefreshResult =
  | { kind: 'ok'; tokens: TokenSet }
  | { kind: 'definitive'; reason: string }
  | { kind: 'transient'; reason: string; retryAfterSeconds: number | null };

function oauthErrorOf(text: string): string | null {
  try {
    const body = JSON.parse(text) as { error?: unknown };
    return typeof body.error === 'string' ? body.error : null;
  } catch {
    return null;
  }
}

export async function requestRefresh(
  provider: ResolvedProvider,
  runtime: ProviderRuntime,
  refreshToken: string,
): Promise<RefreshResult> {
  const oauth = provider.oauth;
  if (!oauth) return { kind: 'definitive', reason: 'provider has no OAuth declaration' };
  const form = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken });
  for (const [name, value] of Object.entries(oauth.refreshParams ?? {})) form.set(name, value);
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
  };
  const credentials = provider.credentials;
  if (credentials && oauth.clientAuth === 'body') {
    form.set('client_id', credentials.clientId);
    form.set('client_secret', credentials.clientSecret);
  } else if (credentials) {
    const pair = `${encodeURIComponent(credentials.clientId)}:${encodeURIComponent(credentials.clientSecret)}`;
    headers.authorization = `Basic ${Buffer.from(pair).toString('base64')}`;
  }

  let response: Response;
  let text: string;
  try {
    // A client span (tracing on) for the exchange, its traceparent sent along.
    ({ response, text } = await inSpan(
      `POST ${provider.id} token refresh`,
      {
        kind: SpanKind.CLIENT,
        attributes: { 'http.request.method': 'POST', 'tributary.provider': provider.id },
      },
      async (span) => {
        const answer = await fetch(oauth.tokenUrl, {
          method: 'POST',
          headers: withTraceHeaders(headers),
          body: form.toString(),
          redirect: 'manual',
          signal: AbortSignal.timeout(timeoutMs(runtime)),
        });
        span?.setAttribute('http.response.status_code', answer.status);
        return {
          response: answer,
          text: await readAnswerText(answer, maxAnswerBytes(runtime), `${provider.id} token endpoint`),
        };
      },
    ));
  } catch (error) {
    return {
      kind: 'transient',
      reason: `token endpoint unreachable: ${(error as Error).message}`,
      retryAfterSeconds: null,
    };
  }
  if (response.status === 400) {
    return { kind: 'definitive', reason: oauthErrorOf(text) ?? 'refresh refused (400)' };
  }
  if (!response.ok) {
    return {
      kind: 'transient',
      reason: `token endpoint answered ${response.status}${oauthErrorOf(text) ? ` (${oauthErrorOf(text)})` : ''}`,
      retryAfterSeconds: parseRetryAfter(response.headers.get('retry-after'), runtime.clock.now()),
    };
  }
  try {
    return { kind: 'ok', tokens: parseTokenResponse(provider, JSON.parse(text), runtime.clock.now()) };
  } catch (error) {
    const reason =
      error instanceof OAuthFlowError
        ? error.message
        : 'token endpoint answered with something other than JSON';
    return { kind: 'transient', reason, retryAfterSeconds: null };
  }
}
