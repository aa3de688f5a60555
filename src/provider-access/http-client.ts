// HTTP to a provider on behalf of one user (or the app): every request is budgeted, timed out
// and retried the way providers ask — jittered backoff on 5xx and network errors, Retry-After
// and the provider's own rate-limit headers honoured, one forced token refresh on a 401. Every
// way it fails becomes a ProviderDataError, which the data module turns into a retryable answer.
import type { Logger } from 'pino';
import type { Config } from '../core/config.ts';
import type { Clock } from '../core/clock.ts';
import { inSpan, type Span, SpanKind, withTraceHeaders } from '../core/tracing.ts';
import { ProviderDataError } from '../provider-kit/data-source.ts';
import { jsonListItems } from '../provider-kit/json-items.ts';
import { AnswerTooLargeError, readAnswer } from './answer-size.ts';
import type { ResolvedProvider } from './catalog.ts';
import type { ProviderApi, ProviderHttp, ProviderRequest } from '../provider-kit/api.ts';
import type { ApiKeyDeclaration } from '../provider-kit/types.ts';
import { type HttpSettings, providerHttpSettings } from './settings.ts';

export type { HttpSettings } from './settings.ts';

/** PROVIDER_HTTP_* (settings.ts): the OAuth client and the API client read the same values. */
export const httpSettingsOf = (config: Config): HttpSettings => config.settings.get(providerHttpSettings);

/** The user's tokens, as the client needs them (tokens.ts). */
export type TokenSession = {
  /** A token to use now; refreshed ahead of expiry. */
  current(): Promise<string>;
  /** The provider refused `token`: a fresh one (one forced refresh, shared by concurrent callers). */
  rejected(token: string): Promise<string>;
  /** Even the fresh token was refused: the connection is broken. */
  failed(reason: string): Promise<void>;
};

/** The request budget (request-budget.ts): null when granted, else seconds to wait. */
export type BudgetGate = {
  acquire(provider: ResolvedProvider, userId: string | null): Promise<number | null>;
  pause(providerId: string, seconds: number, reason: string): Promise<void>;
};

export type HttpClientDeps = {
  provider: ResolvedProvider;
  userId: string | null;
  session: TokenSession | null;
  budget: BudgetGate;
  settings: HttpSettings;
  clock: Clock;
  log?: Logger;
  /** Headers every request to this provider carries (an API gateway's subscription key). */
  headers?: Readonly<Record<string, string>>;
  /** Injected by tests to see the waits without sitting them out. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
};

/** How an answer is read: parsed whole, kept as bytes, or a list parsed item by item. */
type AnswerMode = 'json' | 'bytes' | 'items';

const isAsyncIterable = (value: unknown): value is AsyncIterable<unknown> =>
  typeof value === 'object' && value !== null && Symbol.asyncIterator in value;

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `Retry-After` as seconds: delta-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: Date): number | null {
  if (value === null || value.trim() === '') return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}

/** Exponential backoff with full-range jitter (0.5x to 1.5x), so retrying clients spread out. */
export function backoffMs(attempt: number, baseMs: number, random: () => number = Math.random): number {
  return Math.round(Math.min(baseMs * 2 ** attempt, 30_000) * (0.5 + random()));
}

function buildUrl(provider: ResolvedProvider, request: ProviderRequest): URL {
  const url = new URL(provider.resolveUrl(request.url));
  for (const [name, value] of Object.entries(request.query ?? {})) {
    if (value !== undefined) url.searchParams.set(name, String(value));
  }
  return url;
}

function requestInit(
  request: ProviderRequest,
  token: string | null,
  timeoutMs: number,
  fixed: Readonly<Record<string, string>> | undefined,
  accept: string,
  apiKey: ApiKeyDeclaration | undefined,
): RequestInit {
  const headers: Record<string, string> = withTraceHeaders({ accept, ...fixed, ...request.headers });
  // A personal API key goes in the header its declaration names; an OAuth token as a bearer.
  if (token && apiKey) headers[apiKey.header] = `${apiKey.prefix ?? ''}${token}`;
  else if (token) headers.authorization = `Bearer ${token}`;
  let body: string | undefined;
  if (request.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(request.form).toString();
  } else if (request.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(request.json);
  }
  return {
    method: request.method ?? 'GET',
    headers,
    ...(body === undefined ? {} : { body }),
    redirect: 'manual',
    signal: AbortSignal.timeout(timeoutMs),
  };
}

export function createProviderHttp(deps: HttpClientDeps): ProviderHttp {
  const { provider, settings, clock, budget } = deps;
  const api: ProviderApi | undefined = provider.connector?.api;
  const sleep = deps.sleep ?? defaultSleep;
  const random = deps.random ?? Math.random;
  const parse = (text: string): unknown => (text.trim() === '' ? null : (api?.parseJson ?? JSON.parse)(text));
  const where = (url: URL) => `${provider.id} ${url.pathname}`;

  /**
   * One request with every policy applied, as one client span (when tracing is on) over its
   * attempts; each attempt carries the span's `traceparent`.
   */
  function send(request: ProviderRequest, mode: AnswerMode): Promise<{ body: unknown } | null> {
    const method = request.method ?? 'GET';
    const url = buildUrl(provider, request);
    return inSpan(
      `${method} ${provider.id}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'http.request.method': method,
          'server.address': url.hostname,
          'url.path': url.pathname,
          'tributary.provider': provider.id,
        },
      },
      (span) => attempts(request, mode, url, span),
    );
  }

  /** The successful answer's body, or null when absent. */
  async function attempts(
    request: ProviderRequest,
    mode: AnswerMode,
    url: URL,
    span: Span | undefined,
  ): Promise<{ body: unknown } | null> {
    const binary = mode === 'bytes';
    // A list read as it arrives; a provider that needs its own parse or unwrap reads it whole.
    const streamed = mode === 'items' && !api?.parseJson && !api?.unwrap;
    const asUser = (request.auth ?? 'user') === 'user';
    if (asUser && !deps.session)
      throw new ProviderDataError('unauthorized', 'no user session for a user request');
    const session = asUser ? deps.session : null;
    let token = session ? await session.current() : null;
    let retried = 0;
    let refreshed = false;
    let budgetWaits = 0;

    for (;;) {
      const wait = await budget.acquire(provider, deps.userId);
      if (wait !== null) {
        // A window about to roll over is sat out; a long one goes back to the caller.
        if (wait <= settings.maxWaitSeconds && budgetWaits < 3) {
          budgetWaits += 1;
          await sleep(Math.max(wait, 1) * 1000);
          continue;
        }
        throw new ProviderDataError('rate_limited', `${provider.id} request budget spent`, {
          retryAfterSeconds: Math.max(1, wait),
        });
      }

      let response: Response;
      let text: string;
      let bytes: Uint8Array | null = null;
      try {
        response = await fetch(
          url,
          requestInit(
            request,
            token,
            settings.timeoutMs,
            deps.headers,
            binary ? 'application/octet-stream, */*' : 'application/json',
            provider.declaration.apiKey,
          ),
        );
        span?.setAttribute('http.response.status_code', response.status);
        // A file is read as bytes only when it is the answer; errors are read as text, each under
        // the answer cap. A streamed list is left unread here: its items are parsed as the caller
        // takes them (each item under the same cap).
        if (binary && response.ok) {
          // A caller's own cap (an original file's limit) applies when it is the lower one.
          const own = request.maxBytes !== undefined && request.maxBytes < settings.maxAnswerBytes;
          bytes = own
            ? await readAnswer(response, request.maxBytes!, where(url), 'the limit of an original file')
            : await readAnswer(response, settings.maxAnswerBytes, where(url));
          text = '';
        } else if (streamed && response.ok) {
          text = '';
        } else {
          text = new TextDecoder().decode(await readAnswer(response, settings.maxAnswerBytes, where(url)));
        }
      } catch (error) {
        // Too large is not a fault that a retry cures: the request fails at once, saying why.
        if (error instanceof AnswerTooLargeError) throw new ProviderDataError('unavailable', error.message);
        if (retried < settings.retries) {
          await sleep(backoffMs(retried++, settings.baseDelayMs, random));
          continue;
        }
        throw new ProviderDataError('unavailable', `${where(url)} unreachable: ${(error as Error).message}`, {
          cause: error,
        });
      }
      let status = response.status;
      let parsed: unknown = null;
      if (response.ok && !binary && !streamed) {
        parsed = parse(text);
        // A 200 whose body says otherwise is handled as the status it reports.
        if (api?.unwrap) ({ status, body: parsed } = api.unwrap(parsed));
      }
      const now = clock.now();
      const signal = api?.rateLimit?.(response.headers, status, now) ?? null;

      if (status >= 200 && status < 300) {
        if (signal?.exhausted && signal.retryAfterSeconds) {
          await budget.pause(provider.id, signal.retryAfterSeconds, 'window used up (provider headers)');
        }
        if (streamed) return { body: itemsOf(response, url) };
        return { body: binary ? bytes : parsed };
      }
      const scopeRefusal =
        (status === 401 || status === 403) && (api?.isScopeRefusal?.(status, text) ?? false);
      // A 401 is "absent" only when it is about a scope; otherwise it is a token to refresh.
      if (request.absentOn?.includes(status) && (status !== 401 || scopeRefusal)) return null;
      if (scopeRefusal)
        throw new ProviderDataError('unauthorized', `${where(url)}: a scope the user did not grant`, {
          status,
        });
      if (status === 401 && session && token) {
        if (!refreshed) {
          refreshed = true;
          token = await session.rejected(token);
          continue;
        }
        await session.failed(`${provider.id} refused a freshly refreshed token`);
        throw new ProviderDataError('unauthorized', `${where(url)} refused the user's credentials`);
      }
      if (status === 401 || status === 403) {
        throw new ProviderDataError('unauthorized', `${where(url)} answered ${status}`, { status });
      }
      if (status === 429) {
        const after =
          parseRetryAfter(response.headers.get('retry-after'), now) ?? signal?.retryAfterSeconds ?? 60;
        if (after <= settings.maxWaitSeconds && retried < settings.retries) {
          retried += 1;
          deps.log?.debug({ provider: provider.id, after }, 'provider rate limit: waiting');
          await sleep(Math.max(after, 0) * 1000);
          continue;
        }
        // Every process holds off, not just this request.
        await budget.pause(provider.id, after, '429 from the provider');
        throw new ProviderDataError('rate_limited', `${where(url)} rate-limited us`, {
          retryAfterSeconds: Math.max(1, after),
        });
      }
      if ((status >= 500 || status === 408) && retried < settings.retries) {
        await sleep(backoffMs(retried++, settings.baseDelayMs, random));
        continue;
      }
      throw new ProviderDataError('unavailable', `${where(url)} answered ${status}`, { status });
    }
  }

  /**
   * The items of a streamed list answer. A body that breaks off (the deadline, a reset) or is not
   * a list fails the iteration with a ProviderDataError; a caller that stops early cancels it.
   */
  async function* itemsOf(response: Response, url: URL): AsyncGenerator {
    const body = response.body;
    if (!body) return;
    try {
      yield* jsonListItems(body, settings.maxAnswerBytes);
    } catch (error) {
      if (error instanceof ProviderDataError) throw error;
      throw new ProviderDataError('unavailable', `${where(url)} answer failed: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }

  return {
    async json<T>(request: ProviderRequest): Promise<T | null> {
      const answer = await send(request, 'json');
      return (answer?.body ?? null) as T | null;
    },
    async items(request: ProviderRequest): Promise<AsyncIterable<unknown> | null> {
      const answer = await send(request, 'items');
      if (!answer) return null;
      if (answer.body === null) return (async function* () {})();
      if (Array.isArray(answer.body))
        return (async function* () {
          yield* answer.body as unknown[];
        })();
      if (isAsyncIterable(answer.body)) return answer.body;
      throw new ProviderDataError('unavailable', `${provider.id} answered something other than a list`);
    },
    async bytes(request: ProviderRequest): Promise<Uint8Array | null> {
      const answer = await send(request, 'bytes');
      return (answer?.body as Uint8Array | null | undefined) ?? null;
    },
    client: provider.credentials,
  };
}
