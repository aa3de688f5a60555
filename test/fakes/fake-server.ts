import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Generic plumbing for the provider fakes (oura.ts, strava.ts, whoop.ts): a real node:http server
 * on 127.0.0.1 with a free port, path routing with `:params`, a record of every request, scripted
 * faults (401, 429, 5xx bursts, slow answers), a settable clock, deterministic pseudo-random data
 * and opaque page tokens. A provider fake supplies routes and the provider's own error shapes.
 */

export type FakeRequest = {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** Raw body, exactly as received. */
  body: string;
  /** The body read as a form (token endpoints); empty for other bodies. */
  form: URLSearchParams;
  params: Record<string, string>;
  /** The token of an `Authorization: Bearer` header, or null. */
  bearer: string | null;
};

export type FakeReply = { status: number; headers?: Record<string, string>; body?: unknown };

export type Route = {
  method: string;
  /** `/v2/usercollection/:kind/:id`; a `:name` segment matches one path segment. */
  path: string;
  handler(request: FakeRequest): FakeReply | Promise<FakeReply>;
};

export type Fault =
  /** The provider's answer to an expired or revoked access token. */
  | { kind: 'unauthorized' }
  /** The provider's 429 with its rate-limit headers. */
  | { kind: 'rate_limit'; retryAfterSeconds?: number }
  | { kind: 'server_error'; status?: number }
  /** Answers normally, after a delay. */
  | { kind: 'slow'; delayMs: number };

export type FaultRule = Fault & {
  /** How many matching requests it affects (default 1). */
  times?: number;
  /** Path prefix, pattern, or predicate; every request when absent. */
  match?: string | RegExp | ((request: FakeRequest) => boolean);
};

export type RecordedRequest = {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  body: string;
  /** 0 while the answer is still pending. */
  status: number;
  /** The fault that answered (or delayed) it, if one did. */
  fault: Fault['kind'] | null;
  at: number;
};

export type FakeClock = { now(): number; advance(ms: number): void; set(epochMs: number): void };

/** Requests a test holds unanswered (a provider taking its time) until it releases them. */
export type RequestHold = {
  /** Matching requests waiting for the release now. */
  waiting(): number;
  release(): void;
};

export type FakeServer = {
  baseUrl: string;
  requests: RecordedRequest[];
  clock: FakeClock;
  inject(rule: FaultRule): void;
  clearFaults(): void;
  /**
   * Leaves every request that matches unanswered until `release` (then answers it as usual): the
   * service's work on them stays running, for as long as a test needs.
   */
  hold(match: NonNullable<FaultRule['match']>): RequestHold;
  /** Requests whose path starts with `prefix` (or matches the pattern). */
  requestsTo(prefix: string | RegExp): RecordedRequest[];
  close(): Promise<void>;
};

export type FakeServerOptions = {
  routes: Route[];
  /** How this provider words a fault (status, headers, body). `slow` never reaches it. */
  faultReply(fault: Exclude<Fault, { kind: 'slow' }>, request: FakeRequest): FakeReply;
  /** Runs before routing (after faults): answers instead of the route when it returns a reply. */
  gate?(request: FakeRequest): FakeReply | null;
  /** Headers added to every answer (e.g. rate-limit usage), computed after routing. */
  everyReply?(request: FakeRequest, reply: FakeReply): Record<string, string>;
  clock?: FakeClock;
};

export function createClock(start = Date.now()): FakeClock {
  let skew = start - Date.now();
  return {
    now: () => Date.now() + skew,
    advance: (ms) => {
      skew += ms;
    },
    set: (epochMs) => {
      skew = epochMs - Date.now();
    },
  };
}

function compile(path: string): { pattern: RegExp; names: string[] } {
  const names: string[] = [];
  const source = path
    .split('/')
    .map((segment) => {
      if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(segment.slice(1));
      return '([^/]+)';
    })
    .join('/');
  return { pattern: new RegExp(`^${source}/?$`), names };
}

function matches(rule: Pick<FaultRule, 'match'>, request: FakeRequest): boolean {
  const match = rule.match;
  if (match === undefined) return true;
  if (typeof match === 'string') return request.path.startsWith(match);
  if (match instanceof RegExp) return match.test(request.path);
  return match(request);
}

function send(response: ServerResponse, reply: FakeReply, extra: Record<string, string>): void {
  if (response.destroyed) return;
  if (reply.body instanceof Uint8Array) {
    // A file (FIT): the bytes as they are.
    response.writeHead(reply.status, {
      'content-type': 'application/octet-stream',
      ...extra,
      ...reply.headers,
    });
    response.end(reply.body);
    return;
  }
  const isText = typeof reply.body === 'string';
  const payload =
    reply.body === undefined ? '' : isText ? (reply.body as string) : JSON.stringify(reply.body);
  const headers: Record<string, string> = { ...extra, ...reply.headers };
  if (payload !== '' && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) {
    headers['content-type'] = isText ? 'text/plain' : 'application/json';
  }
  response.writeHead(reply.status, headers);
  response.end(payload);
}

export async function startFakeServer(options: FakeServerOptions): Promise<FakeServer> {
  const routes = options.routes.map((route) => ({ ...route, ...compile(route.path) }));
  const faults: (FaultRule & { left: number })[] = [];
  const requests: RecordedRequest[] = [];
  const clock = options.clock ?? createClock();
  const holds = new Set<{
    match: NonNullable<FaultRule['match']>;
    waiting: number;
    released: Promise<void>;
  }>();

  async function handle(
    request: FakeRequest,
    record: RecordedRequest,
  ): Promise<{ reply: FakeReply; fault: Fault['kind'] | null }> {
    for (const hold of [...holds].filter((candidate) => matches(candidate, request))) {
      hold.waiting++;
      await hold.released;
      hold.waiting--;
    }
    const rule = faults.find((candidate) => candidate.left > 0 && matches(candidate, request));
    if (rule) {
      rule.left -= 1;
      record.fault = rule.kind;
      if (rule.kind === 'slow') {
        await new Promise((resolve) => setTimeout(resolve, rule.delayMs));
      } else {
        return { reply: options.faultReply(rule, request), fault: rule.kind };
      }
    }
    const gated = options.gate?.(request) ?? null;
    if (gated) return { reply: gated, fault: null };
    for (const route of routes) {
      if (route.method !== request.method) continue;
      const found = route.pattern.exec(request.path);
      if (!found) continue;
      route.names.forEach((name, index) => {
        request.params[name] = decodeURIComponent(found[index + 1] ?? '');
      });
      return { reply: await route.handler(request), fault: rule?.kind ?? null };
    }
    return { reply: { status: 404, body: { message: 'Not Found', path: request.path } }, fault: null };
  }

  const server: Server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      void (async () => {
        const url = new URL(incoming.url ?? '/', 'http://fake.invalid');
        const body = Buffer.concat(chunks).toString('utf8');
        const contentType = incoming.headers['content-type'] ?? '';
        const authorization = incoming.headers.authorization ?? '';
        const request: FakeRequest = {
          method: incoming.method ?? 'GET',
          path: url.pathname,
          query: url.searchParams,
          headers: incoming.headers,
          body,
          form: contentType.includes('application/x-www-form-urlencoded')
            ? new URLSearchParams(body)
            : new URLSearchParams(),
          params: {},
          bearer: /^Bearer\s+/i.test(authorization) ? authorization.replace(/^Bearer\s+/i, '') : null,
        };
        // Recorded on arrival, so a request still being answered (a slow fault) is visible.
        const record: RecordedRequest = {
          method: request.method,
          path: request.path,
          query: Object.fromEntries(request.query),
          headers: request.headers,
          body,
          status: 0,
          fault: null,
          at: clock.now(),
        };
        requests.push(record);
        let outcome: { reply: FakeReply; fault: Fault['kind'] | null };
        try {
          outcome = await handle(request, record);
        } catch (error) {
          outcome = { reply: { status: 500, body: { message: String(error) } }, fault: null };
        }
        record.status = outcome.reply.status;
        record.fault = outcome.fault;
        send(response, outcome.reply, options.everyReply?.(request, outcome.reply) ?? {});
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    clock,
    inject(rule) {
      faults.push({ ...rule, left: rule.times ?? 1 });
    },
    clearFaults() {
      faults.length = 0;
    },
    hold(match) {
      let release = () => {};
      const hold = { match, waiting: 0, released: new Promise<void>((resolve) => (release = resolve)) };
      holds.add(hold);
      return {
        waiting: () => hold.waiting,
        release() {
          holds.delete(hold);
          release();
        },
      };
    },
    requestsTo(prefix) {
      return requests.filter((request) =>
        typeof prefix === 'string' ? request.path.startsWith(prefix) : prefix.test(request.path),
      );
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// --- deterministic data ------------------------------------------------------------------

/** A repeatable pseudo-random stream for a seed string (FNV-1a hash into mulberry32). */
export function seeded(seed: string): {
  next(): number;
  between(min: number, max: number): number;
  int(min: number, max: number): number;
  pick<T>(values: readonly T[]): T;
} {
  let state = 2166136261;
  for (let index = 0; index < seed.length; index++) {
    state ^= seed.charCodeAt(index);
    state = Math.imul(state, 16777619);
  }
  const next = () => {
    state = (state + 0x6d2b79f5) | 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    between: (min, max) => min + (max - min) * next(),
    int: (min, max) => Math.floor(min + (max - min + 1) * next()),
    pick: (values) => values[Math.floor(next() * values.length)] as (typeof values)[number],
  };
}

/**
 * A UUID-shaped id that encodes (day number, index, kind code), so a fake can serve a document
 * by id without storing it: `xxxxxxxx-DDDD-4KKK-aIII-xxxxxxxxxxxx` (hex).
 */
export function dayUuid(seed: string, dayNumber: number, index: number, kindCode: number): string {
  const hash = createHash('sha256').update(`${seed}|${dayNumber}|${index}|${kindCode}`).digest('hex');
  const hex = (value: number, width: number) => value.toString(16).padStart(width, '0').slice(-width);
  return `${hash.slice(0, 8)}-${hex(dayNumber, 4)}-4${hex(kindCode, 3)}-a${hex(index, 3)}-${hash.slice(8, 20)}`;
}

export function parseDayUuid(id: string): { dayNumber: number; index: number; kindCode: number } | null {
  const match = /^[0-9a-f]{8}-([0-9a-f]{4})-4([0-9a-f]{3})-a([0-9a-f]{3})-[0-9a-f]{12}$/.exec(id);
  if (!match) return null;
  return {
    dayNumber: Number.parseInt(match[1] as string, 16),
    kindCode: Number.parseInt(match[2] as string, 16),
    index: Number.parseInt(match[3] as string, 16),
  };
}

/** Opaque page tokens bound to the query they continue (a token from another query is refused). */
export function pageOf<T>(
  items: readonly T[],
  size: number,
  token: string | null,
  querySignature: string,
): { page: T[]; next: string | null } | null {
  let offset = 0;
  if (token) {
    try {
      const decoded = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as {
        o?: unknown;
        q?: unknown;
      };
      if (typeof decoded.o !== 'number' || decoded.q !== querySignature) return null;
      offset = decoded.o;
    } catch {
      return null;
    }
  }
  const end = offset + size;
  return {
    page: items.slice(offset, end),
    next:
      end < items.length
        ? Buffer.from(JSON.stringify({ o: end, q: querySignature })).toString('base64url')
        : null,
  };
}

// --- OAuth grants --------------------------------------------------------------------------

export type Grant = {
  account: string;
  scopes: string[];
  /** The newest refresh token; null when none was issued (e.g. WHOOP without `offline`). */
  refreshToken: string | null;
  /** The newest access token and its expiry (ms). */
  accessToken: string;
  accessExpiresAt: number;
  revoked: boolean;
};

export type PendingCode = { account: string; scopes: string[]; redirectUri: string; clientId: string };

export type TokenStore = {
  grants: Grant[];
  issueCode(pending: PendingCode): string;
  /** Codes are single-use whatever happens next. */
  takeCode(code: string): PendingCode | null;
  createGrant(account: string, scopes: string[], ttlSeconds: number, withRefresh: boolean): Grant;
  /** A new access token; the previous one stays valid until it expires (unless revoked). */
  renewAccess(grant: Grant, ttlSeconds: number): void;
  /** A new refresh token; the previous one is retired and refused from now on. */
  rotateRefresh(grant: Grant, issue: boolean): void;
  byRefresh(token: string): { grant: Grant; retired: boolean } | null;
  authenticate(
    bearer: string | null,
  ): { grant: Grant } | { error: 'missing' | 'invalid' | 'expired' | 'revoked' };
  revoke(grant: Grant): void;
  /** Revokes every grant of `account` (the user disconnected the app), or of everyone when none is named. */
  revokeAccount(account?: string): void;
  /** Makes every access token expired now (a simulated clock jump for tokens only). */
  expireAccessTokens(): void;
};

export function createTokenStore(clock: FakeClock, prefix: string): TokenStore {
  const codes = new Map<string, PendingCode>();
  const access = new Map<string, { grant: Grant; expiresAt: number }>();
  const refresh = new Map<string, { grant: Grant; retired: boolean }>();
  const token = (kind: string) => `${prefix}-${kind}-${randomBytes(18).toString('base64url')}`;
  const store: TokenStore = {
    grants: [],
    issueCode(pending) {
      const code = randomBytes(16).toString('hex');
      codes.set(code, pending);
      return code;
    },
    takeCode(code) {
      const pending = codes.get(code) ?? null;
      codes.delete(code);
      return pending;
    },
    createGrant(account, scopes, ttlSeconds, withRefresh) {
      const grant: Grant = {
        account,
        scopes,
        refreshToken: null,
        accessToken: '',
        accessExpiresAt: 0,
        revoked: false,
      };
      store.grants.push(grant);
      store.renewAccess(grant, ttlSeconds);
      store.rotateRefresh(grant, withRefresh);
      return grant;
    },
    renewAccess(grant, ttlSeconds) {
      grant.accessToken = token('at');
      grant.accessExpiresAt = clock.now() + ttlSeconds * 1000;
      access.set(grant.accessToken, { grant, expiresAt: grant.accessExpiresAt });
    },
    rotateRefresh(grant, issue) {
      if (grant.refreshToken) refresh.set(grant.refreshToken, { grant, retired: true });
      grant.refreshToken = issue ? token('rt') : null;
      if (grant.refreshToken) refresh.set(grant.refreshToken, { grant, retired: false });
    },
    byRefresh(value) {
      return refresh.get(value) ?? null;
    },
    authenticate(bearer) {
      if (!bearer) return { error: 'missing' };
      const entry = access.get(bearer);
      if (!entry) return { error: 'invalid' };
      if (entry.grant.revoked) return { error: 'revoked' };
      if (entry.expiresAt <= clock.now()) return { error: 'expired' };
      return { grant: entry.grant };
    },
    revoke(grant) {
      grant.revoked = true;
    },
    revokeAccount(account) {
      for (const grant of store.grants)
        if (account === undefined || grant.account === account) store.revoke(grant);
    },
    expireAccessTokens() {
      for (const entry of access.values()) entry.expiresAt = Math.min(entry.expiresAt, clock.now());
    },
  };
  return store;
}

// --- outbound notifications ----------------------------------------------------------------

export type Delivery = {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string;
  status: number;
  responseBody: string;
};

/** Sends one request as the provider would (no redirects followed) and returns what came back. */
export async function deliver(
  url: string,
  init: { method: string; headers?: Record<string, string>; body?: string; timeoutMs?: number },
): Promise<Delivery> {
  const response = await fetch(url, {
    method: init.method,
    headers: init.headers,
    body: init.body,
    redirect: 'manual',
    signal: AbortSignal.timeout(init.timeoutMs ?? 10_000),
  });
  return {
    url,
    method: init.method,
    headers: init.headers ?? {},
    body: init.body ?? '',
    status: response.status,
    responseBody: await response.text(),
  };
}

/** Client credentials from an HTTP Basic header, for providers that accept both styles. */
export function basicCredentials(headers: IncomingHttpHeaders): { id: string; secret: string } | null {
  const value = headers.authorization;
  if (!value?.startsWith('Basic ')) return null;
  const decoded = Buffer.from(value.slice(6), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0
    ? null
    : {
        id: decodeURIComponent(decoded.slice(0, colon)),
        secret: decodeURIComponent(decoded.slice(colon + 1)),
      };
}

export function randomId(bytes = 8): string {
  return randomBytes(bytes).toString('hex');
}

// --- consent (the authorize endpoint) -------------------------------------------------------

/** What the end user does on the provider's consent page. */
export type Consent = {
  account: string;
  /** The next consent is refused (`error=access_denied`); resets after one use. */
  deny: boolean;
  /** Scopes the user leaves ticked; null grants everything requested. */
  grantScopes: string[] | null;
};

export function authorizeReply(
  request: FakeRequest,
  store: TokenStore,
  consent: Consent,
  options: {
    clientId: string;
    scopeSeparator: ' ' | ',';
    redirectParams?(granted: string[]): Record<string, string>;
  },
): FakeReply {
  const query = request.query;
  const redirectUri = query.get('redirect_uri');
  if (query.get('response_type') !== 'code' || query.get('client_id') !== options.clientId || !redirectUri) {
    return { status: 400, body: { error: 'invalid_request' } };
  }
  const target = new URL(redirectUri);
  const state = query.get('state');
  if (consent.deny) {
    consent.deny = false;
    target.searchParams.set('error', 'access_denied');
  } else {
    const requested = (query.get('scope') ?? '').split(options.scopeSeparator).filter(Boolean);
    const granted = consent.grantScopes
      ? requested.filter((scope) => consent.grantScopes?.includes(scope))
      : requested;
    const code = store.issueCode({
      account: consent.account,
      scopes: granted,
      redirectUri,
      clientId: options.clientId,
    });
    target.searchParams.set('code', code);
    for (const [name, value] of Object.entries(options.redirectParams?.(granted) ?? {}))
      target.searchParams.set(name, value);
  }
  if (state !== null) target.searchParams.set('state', state);
  return { status: 302, headers: { location: target.toString() } };
}

/** Follows an authorize URL like a browser whose user acts per `consent`; returns the redirect. */
export async function followAuthorize(authUrl: string): Promise<URL> {
  const response = await fetch(authUrl, { redirect: 'manual' });
  const location = response.headers.get('location');
  if (response.status !== 302 || !location) throw new Error(`fake authorize answered ${response.status}`);
  return new URL(location);
}

/** The environment that points Tributary at a fake in place of provider `id` (credentials + base URL). */
export function providerEnv(
  id: string,
  fake: { clientId: string; clientSecret: string; baseUrl: string },
): Record<string, string> {
  return {
    [`${id}_CLIENT_ID`]: fake.clientId,
    [`${id}_CLIENT_SECRET`]: fake.clientSecret,
    [`${id}_BASE_URL`]: fake.baseUrl,
  };
}
