import { createHash } from 'node:crypto';
import { type DexcomUser, deviceOf, egvAt, egvsBetween, eventsBetween, SLOT_MS } from './dexcom-data.ts';
import {
  authorizeReply,
  type Consent,
  createTokenStore,
  type FakeReply,
  type FakeRequest,
  type FakeServer,
  type Grant,
  type Route,
  randomId,
  startFakeServer,
} from './fake-server.ts';

/**
 * A faithful local Dexcom API v3 (docs/providers.md#dexcom, developer.dexcom.com v3 pages):
 * OAuth2 with the credentials in the form body, 2 h access tokens, a refresh token only with
 * `offline_access`, single-use and replaced on every refresh; no push — GET /v3/users/self/
 * dataRange (`lastSyncTime`), egvs and events (`startDate`/`endDate` as `YYYY-MM-DDThh:mm:ss`,
 * no zone, compared with systemTime in UTC; both required, start before end, at most 30 days
 * apart), devices. Envelopes `{recordType, recordVersion: "3.0", userId, records}`, newest
 * first. 60,000 requests per app per hour, then 429. Errors are the API gateway's
 * `{fault: {faultstring, detail: {errorcode}}}` [?]. Point `DEXCOM_BASE_URL` at `baseUrl`.
 */
export type DexcomFake = FakeServer & {
  clientId: string;
  clientSecret: string;
  consent: Consent;
  offsetMinutes: number;
  displayDevice: DexcomUser['displayDevice'];
  /** How long before now the account's data starts. */
  historyDays: number;
  /** Newest data withheld for this long (Dexcom delays some regions' data). */
  delayMinutes: number;
  /** Largest startDate..endDate window in days. */
  maxWindowDays: number;
  perHour: number;
  grants: Grant[];
  issueCode(input: { redirectUri: string; scopes?: string[] }): string;
  expireAccessTokens(): void;
  revokeAccount(account?: string): void;
  userIdOf(account: string): string;
};

export const DEXCOM_SCOPES = ['offline_access'] as const;
const ACCESS_TTL = 7200;
const DAY_MS = 86_400_000;

const fault = (status: number, faultstring: string, errorcode: string): FakeReply => ({
  status,
  body: { fault: { faultstring, detail: { errorcode } } },
});

/** `YYYY-MM-DDThh:mm:ss` (Dexcom's documented form); a trailing zone is tolerated as UTC-relative. */
function parseWindowTime(text: string | null): number | null {
  if (!text || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/.test(text)) return null;
  const epochMs = /[zZ]|[+-]\d{2}:?\d{2}$/.test(text) ? Date.parse(text) : Date.parse(`${text}Z`);
  return Number.isNaN(epochMs) ? null : epochMs;
}

export async function startDexcomFake(
  options: { offsetMinutes?: number; displayDevice?: DexcomUser['displayDevice']; now?: number } = {},
): Promise<DexcomFake> {
  const clientId = `dexcom-client-${randomId(4)}`;
  const clientSecret = `dexcom-secret-${randomId(12)}`;
  const consent: Consent = { account: 'account-1', deny: false, grantScopes: null };
  const usage = { hour: -1, count: 0 };
  let fake: DexcomFake;
  let store: ReturnType<typeof createTokenStore>;

  const userIdOf = (account: string) =>
    createHash('sha256').update(`dexcom|${clientId}|${account}`).digest('hex');
  const now = () => fake.clock.now();
  const userFor = (account: string): DexcomUser => {
    const id = userIdOf(account);
    return {
      seed: `dexcom|${account}`,
      userId: id,
      offsetMinutes: fake.offsetMinutes,
      displayDevice: fake.displayDevice,
      transmitterId: id.slice(0, 6).toUpperCase(),
      transmitterGeneration: fake.displayDevice === 'receiver' ? 'g6' : 'g7',
      sinceMs: Math.floor((now() - fake.historyDays * DAY_MS) / DAY_MS) * DAY_MS,
    };
  };
  /** The newest instant data is served for. */
  const horizon = () => now() - fake.delayMinutes * 60_000;

  function authorized(request: FakeRequest): Grant | FakeReply {
    const result = store.authenticate(request.bearer);
    if ('error' in result)
      return fault(401, 'Invalid Access Token', 'keymanagement.service.invalid_access_token');
    return result.grant;
  }

  function tokenReply(grant: Grant): FakeReply {
    return {
      status: 200,
      headers: { 'cache-control': 'no-store' },
      body: {
        access_token: grant.accessToken,
        expires_in: ACCESS_TTL,
        token_type: 'Bearer',
        ...(grant.refreshToken ? { refresh_token: grant.refreshToken, refresh_expires_in: 0 } : {}),
        'not-before-policy': `${Math.floor(now() / 1000)},`,
        session_state: randomId(16),
      },
    };
  }

  function token(request: FakeRequest): FakeReply {
    const form = request.form;
    if (form.get('client_id') !== clientId || form.get('client_secret') !== clientSecret) {
      return {
        status: 401,
        body: { error: 'invalid_client', error_description: 'Invalid client credentials' },
      };
    }
    if (form.get('grant_type') === 'authorization_code') {
      const pending = store.takeCode(form.get('code') ?? '');
      if (!pending || pending.redirectUri !== form.get('redirect_uri')) {
        return { status: 400, body: { error: 'invalid_grant', error_description: 'Code not valid' } };
      }
      return tokenReply(
        store.createGrant(
          pending.account,
          pending.scopes,
          ACCESS_TTL,
          pending.scopes.includes('offline_access'),
        ),
      );
    }
    if (form.get('grant_type') === 'refresh_token') {
      const found = store.byRefresh(form.get('refresh_token') ?? '');
      if (!found || found.retired || found.grant.revoked) {
        return { status: 400, body: { error: 'invalid_grant', error_description: 'Token is not active' } };
      }
      store.renewAccess(found.grant, ACCESS_TTL);
      store.rotateRefresh(found.grant, true);
      return tokenReply(found.grant);
    }
    return {
      status: 400,
      body: { error: 'unsupported_grant_type', error_description: 'Unsupported grant type' },
    };
  }

  /** The `startDate`..`endDate` window, checked as Dexcom checks it. */
  function window(request: FakeRequest): { startMs: number; endMs: number } | FakeReply {
    const startMs = parseWindowTime(request.query.get('startDate'));
    const endMs = parseWindowTime(request.query.get('endDate'));
    if (startMs === null || endMs === null) {
      return fault(400, 'startDate and endDate are required, as YYYY-MM-DDThh:mm:ss', 'invalid_argument');
    }
    if (endMs <= startMs) return fault(400, 'startDate must be before endDate', 'invalid_argument');
    if (endMs - startMs > fake.maxWindowDays * DAY_MS) {
      return fault(400, `The time window cannot exceed ${fake.maxWindowDays} days`, 'invalid_argument');
    }
    return { startMs, endMs: Math.min(endMs, horizon()) };
  }

  const envelope = (recordType: string, user: DexcomUser, records: unknown[]): FakeReply => ({
    status: 200,
    body: { recordType, recordVersion: '3.0', userId: user.userId, records },
  });

  function records(request: FakeRequest, kind: 'egv' | 'event'): FakeReply {
    const grant = authorized(request);
    if (!('account' in grant)) return grant;
    const span = window(request);
    if (!('startMs' in span)) return span;
    const user = userFor(grant.account);
    const list =
      span.endMs < span.startMs
        ? []
        : kind === 'egv'
          ? egvsBetween(user, span.startMs, span.endMs)
          : eventsBetween(user, span.startMs, span.endMs);
    return envelope(kind, user, list);
  }

  function dataRange(request: FakeRequest): FakeReply {
    const grant = authorized(request);
    if (!('account' in grant)) return grant;
    const user = userFor(grant.account);
    const sync = request.query.get('lastSyncTime');
    const syncMs = sync === null ? null : parseWindowTime(sync);
    if (sync !== null && syncMs === null)
      return fault(400, 'lastSyncTime must be a date-time', 'invalid_argument');
    const oldest = Math.max(user.sinceMs, syncMs === null ? 0 : syncMs + 1);
    /** The first reading walking from `fromSlot` towards `toSlot` (sensor gaps are short). */
    const reading = (fromSlot: number, toSlot: number) => {
      const step = fromSlot <= toSlot ? 1 : -1;
      for (let slot = fromSlot; step > 0 ? slot <= toSlot : slot >= toSlot; slot += step) {
        const egv = egvAt(user, slot);
        if (egv) return { systemTime: egv.systemTime, displayTime: egv.displayTime };
      }
      return null;
    };
    const firstSlot = Math.ceil(oldest / SLOT_MS);
    const lastSlot = Math.floor(horizon() / SLOT_MS);
    const start = firstSlot <= lastSlot ? reading(firstSlot, lastSlot) : null;
    // Nothing new since the last sync: Dexcom leaves the range out.
    const egvs = start ? { start, end: reading(lastSlot, firstSlot) } : null;
    const events = eventsBetween(user, oldest, horizon());
    const body: Record<string, unknown> = {
      recordType: 'dataRange',
      recordVersion: '3.0',
      userId: user.userId,
    };
    if (egvs) body.egvs = egvs;
    const newestEvent = events[0];
    const oldestEvent = events[events.length - 1];
    if (newestEvent && oldestEvent) {
      body.events = {
        start: { systemTime: oldestEvent.systemTime, displayTime: oldestEvent.displayTime },
        end: { systemTime: newestEvent.systemTime, displayTime: newestEvent.displayTime },
      };
    }
    return { status: 200, body };
  }

  const routes: Route[] = [
    {
      method: 'GET',
      path: '/v2/oauth2/login',
      handler: (request) => authorizeReply(request, store, consent, { clientId, scopeSeparator: ' ' }),
    },
    { method: 'POST', path: '/v2/oauth2/token', handler: token },
    { method: 'GET', path: '/v3/users/self/egvs', handler: (request) => records(request, 'egv') },
    { method: 'GET', path: '/v3/users/self/events', handler: (request) => records(request, 'event') },
    {
      method: 'GET',
      path: '/v3/users/self/devices',
      handler: (request) => {
        const grant = authorized(request);
        if (!('account' in grant)) return grant;
        const user = userFor(grant.account);
        return envelope('device', user, [deviceOf(user, Math.floor(horizon() / SLOT_MS) * SLOT_MS)]);
      },
    },
    { method: 'GET', path: '/v3/users/self/dataRange', handler: dataRange },
  ];

  const server = await startFakeServer({
    routes,
    gate(request) {
      if (!request.path.startsWith('/v3/')) return null;
      const hour = Math.floor(fake.clock.now() / 3_600_000);
      if (hour !== usage.hour) Object.assign(usage, { hour, count: 0 });
      usage.count++;
      return usage.count > fake.perHour
        ? fault(429, 'Rate limit quota violation. Quota limit exceeded.', 'policies.ratelimit.QuotaViolation')
        : null;
    },
    faultReply(injected) {
      if (injected.kind === 'unauthorized')
        return fault(401, 'Invalid Access Token', 'keymanagement.service.invalid_access_token');
      if (injected.kind === 'server_error')
        return fault(
          injected.status ?? 500,
          'Internal Server Error',
          'messaging.adaptors.http.flow.ServiceUnavailable',
        );
      return {
        ...fault(
          429,
          'Rate limit quota violation. Quota limit exceeded.',
          'policies.ratelimit.QuotaViolation',
        ),
        headers: { 'Retry-After': String(injected.retryAfterSeconds ?? 60) },
      };
    },
  });
  if (options.now !== undefined) server.clock.set(options.now);
  store = createTokenStore(server.clock, 'dexcom');

  fake = Object.assign(server, {
    clientId,
    clientSecret,
    consent,
    offsetMinutes: options.offsetMinutes ?? -420,
    displayDevice: options.displayDevice ?? 'iOS',
    historyDays: 90,
    delayMinutes: 0,
    maxWindowDays: 30,
    perHour: 60_000,
    grants: store.grants,
    issueCode: ({ redirectUri, scopes }: { redirectUri: string; scopes?: string[] }) =>
      store.issueCode({
        account: consent.account,
        scopes: scopes ?? [...DEXCOM_SCOPES],
        redirectUri,
        clientId,
      }),
    expireAccessTokens: () => store.expireAccessTokens(),
    revokeAccount(account?: string) {
      store.revokeAccount(account);
    },
    userIdOf,
  }) as DexcomFake;
  return fake;
}
