// One HTTP POST per attempt over keep-alive connections. Production requests resolve through
// `checkedLookup`, so the address a socket connects to is the address that was checked (no DNS
// rebinding); the two environments never share an agent, so a production request can never ride
// a socket opened without that check. Redirects are not followed.
import http from 'node:http';
import https from 'node:https';
import { isIP, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { failSpan, inSpan, SpanKind, tracingEnabled, withTraceHeaders } from '../../core/tracing.ts';
import {
  checkedLookup,
  DestinationBlockedError,
  type ResolveHost,
  systemResolver,
  validateDestinationUrl,
  type WebhookEnvironment,
} from './destination-policy.ts';
import { type DeliveryFailureKind, deliveryFailureKind } from './retry-policy.ts';

export type SendResult = {
  statusCode: number | null;
  failure: DeliveryFailureKind | null;
  /** What went wrong, for the attempt log (never a stack). */
  error: string | null;
  retryAfter: string | null;
  durationMs: number;
};

export type Sender = {
  send(
    url: string,
    environment: WebhookEnvironment,
    headers: Record<string, string>,
    body: string | Uint8Array,
  ): Promise<SendResult>;
  close(): void;
};

/** Receivers answer with anything; we read a little (to reuse the connection) and keep none of it. */
const MAX_RESPONSE_BYTES = 64 * 1024;
/** Destination URLs kept parsed (every attempt to a destination names the same one); then cleared. */
const PARSED_URLS = 1_000;

export function createSender(options: {
  timeoutMs: number;
  /** How long opening the connection may take (within `timeoutMs`); default `timeoutMs`. */
  connectTimeoutMs?: number;
  resolve?: ResolveHost;
  maxSockets?: number;
}): Sender {
  const resolve = options.resolve ?? systemResolver;
  const maxSockets = options.maxSockets ?? 256;
  // Every socket a busy destination needed stays open for its next requests: with fewer kept
  // free than are in flight, each burst closed the surplus and opened it again (connect and close
  // were 6 % of a delivery's CPU in the bench's profile).
  const agentOptions = {
    keepAlive: true,
    maxSockets,
    maxFreeSockets: maxSockets,
    scheduling: 'lifo' as const,
  };
  const parsed = new Map<string, URL>();
  /** The URL parsed once per destination, not per attempt (never mutated: requests only read it). */
  function parseUrl(raw: string): URL {
    let url = parsed.get(raw);
    if (!url) {
      url = new URL(raw);
      if (parsed.size >= PARSED_URLS) parsed.clear();
      parsed.set(raw, url);
    }
    return url;
  }
  const agents = {
    sandbox: { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) },
    production: {
      http: new http.Agent({ ...agentOptions, lookup: checkedLookup('production', resolve) }),
      https: new https.Agent({ ...agentOptions, lookup: checkedLookup('production', resolve) }),
    },
  };

  /**
   * Node skips `lookup` for IP-literal hosts, so those (and the scheme) are checked here on every
   * attempt; host names are checked by the agent's lookup when a connection is opened.
   */
  function needsCheck(url: URL, environment: WebhookEnvironment): boolean {
    if (environment === 'sandbox') return false;
    return !(url.protocol === 'https:' && isIP(url.hostname.replace(/^\[|\]$/g, '')) === 0);
  }

  async function blockedReason(url: URL, environment: WebhookEnvironment): Promise<string | null> {
    const check = await validateDestinationUrl(url.href, environment, resolve);
    return check.allowed ? null : check.reason;
  }

  // A receiver that never accepts the connection fails sooner than one that is merely slow.
  const connectTimeoutMs = options.connectTimeoutMs ?? options.timeoutMs;
  /**
   * The connect deadline, for a request that opens a connection (`this` is the request: one
   * function for every request rather than a closure each, since most ride a kept-alive socket).
   */
  function onSocket(this: http.ClientRequest, socket: Socket) {
    if (!socket.connecting) return;
    const connectTimer = setTimeout(() => {
      this.destroy(
        Object.assign(new Error(`not connected within ${connectTimeoutMs} ms`), { code: 'ETIMEDOUT' }),
      );
    }, connectTimeoutMs);
    const stop = () => clearTimeout(connectTimer);
    socket.once('connect', stop);
    socket.once('close', stop);
    this.once('close', stop);
  }

  /**
   * The POST, its promise resolving to the attempt's result, whatever happened (one promise per
   * attempt: no async step around it, no intermediate answer object). `started`: when the
   * attempt began (performance.now()), for its duration.
   */
  function post(
    url: URL,
    environment: WebhookEnvironment,
    headers: Record<string, string>,
    body: string | Uint8Array,
    started: number,
  ) {
    return new Promise<SendResult>((resolvePost) => {
      let request: http.ClientRequest;
      try {
        const secure = url.protocol === 'https:';
        const agent = secure ? agents[environment].https : agents[environment].http;
        // The headers as one flat list of names and values, which Node writes as they are
        // (validating each, as it does an object's): given an object, it copies every header into
        // its own map with `setHeader` first (issue 44: ~2.3 KB and a tenth of the client's CPU
        // per request). A list gets no Host from Node, so it is named here, as Node would
        // (`url.host` omits a default port and keeps an IPv6 address's brackets).
        const list = ['host', url.host];
        for (const name in headers) list.push(name, headers[name]!);
        list.push('content-length', String(Buffer.byteLength(body)));
        request = (secure ? https : http).request(url, { method: 'POST', agent, headers: list });
      } catch (error) {
        resolvePost(failed(error, started));
        return;
      }
      // One deadline for the whole exchange (connect, TLS, headers and body), not per socket event.
      const timer = setTimeout(() => {
        request.destroy(
          Object.assign(new Error(`no answer within ${options.timeoutMs} ms`), { code: 'ETIMEDOUT' }),
        );
      }, options.timeoutMs);
      if (connectTimeoutMs < options.timeoutMs) request.on('socket', onSocket);
      request.on('error', (error) => {
        clearTimeout(timer);
        resolvePost(failed(error, started));
      });
      request.on('response', (response) => {
        let received = 0;
        response.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > MAX_RESPONSE_BYTES) response.destroy();
        });
        let answered = false;
        const done = () => {
          if (answered) return;
          answered = true;
          clearTimeout(timer);
          const retryAfter = response.headers['retry-after'];
          resolvePost({
            statusCode: response.statusCode ?? 0,
            failure: null,
            error: null,
            retryAfter: typeof retryAfter === 'string' ? retryAfter : null,
            durationMs: Math.round(performance.now() - started),
          });
        };
        response.on('end', done);
        // A receiver that answers and then hangs up (or floods us) still gave its status code.
        response.on('close', done);
        response.on('error', () => undefined);
      });
      request.end(body);
    });
  }

  /**
   * One attempt as a client span (when tracing is on), its `traceparent` sent along (outside the
   * signed content: a receiver that traces can join the trace, the signature is unchanged).
   */
  const tracedSend: Sender['send'] = (rawUrl, environment, headers, body) =>
    inSpan(
      'POST webhook',
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'http.request.method': 'POST',
          'tributary.webhook.event_id': headers['webhook-id'] ?? '',
          'tributary.webhook.environment': environment,
        },
      },
      async (span) => {
        const result = await attempt(rawUrl, environment, withTraceHeaders(headers), body);
        if (result.statusCode !== null) span?.setAttribute('http.response.status_code', result.statusCode);
        if (result.failure !== null || (result.statusCode ?? 0) >= 500)
          failSpan(span, new Error(result.error ?? `answered ${result.statusCode}`));
        return result;
      },
    );

  /** An attempt refused before any request (a URL that does not parse, an address the policy blocks). */
  function refused(error: unknown, started: number): SendResult {
    return {
      statusCode: null,
      failure: error instanceof DestinationBlockedError ? 'destination_blocked' : 'network_error',
      error: describe(error),
      retryAfter: null,
      durationMs: Math.round(performance.now() - started),
    };
  }

  /** A URL that needs the address check (sandbox and https host names do not): checked, then sent. */
  async function checkedPost(
    url: URL,
    environment: WebhookEnvironment,
    headers: Record<string, string>,
    body: string | Uint8Array,
    started: number,
  ): Promise<SendResult> {
    try {
      const reason = await blockedReason(url, environment);
      if (reason) throw new DestinationBlockedError(reason);
    } catch (error) {
      return refused(error, started);
    }
    return post(url, environment, headers, body, started);
  }

  const attempt: Sender['send'] = (rawUrl, environment, headers, body) => {
    const started = performance.now();
    let url: URL;
    try {
      url = parseUrl(rawUrl);
    } catch (error) {
      return Promise.resolve(refused(error, started));
    }
    return needsCheck(url, environment)
      ? checkedPost(url, environment, headers, body, started)
      : post(url, environment, headers, body, started);
  };

  return {
    send: (rawUrl, environment, headers, body) =>
      tracingEnabled()
        ? tracedSend(rawUrl, environment, headers, body)
        : attempt(rawUrl, environment, headers, body),
    close() {
      for (const pair of Object.values(agents)) {
        pair.http.destroy();
        pair.https.destroy();
      }
    },
  };
}

/** A request that failed (its error classed for the retry policy). */
function failed(error: unknown, started: number): SendResult {
  return {
    statusCode: null,
    failure: deliveryFailureKind(error),
    error: describe(error),
    retryAfter: null,
    durationMs: Math.round(performance.now() - started),
  };
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  const text =
    typeof code === 'string' && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
  return text.slice(0, 300);
}
