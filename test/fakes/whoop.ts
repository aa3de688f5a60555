import { createHmac, randomUUID } from 'node:crypto';
import {
  authorizeReply,
  type Consent,
  createTokenStore,
  type Delivery,
  deliver,
  type FakeReply,
  type FakeRequest,
  type FakeServer,
  type Grant,
  pageOf,
  parseDayUuid,
  type Route,
  randomId,
  startFakeServer,
} from './fake-server.ts';
import {
  bodyOf,
  type DayRecords,
  dayOfCycleId,
  inV1Shape,
  profileOf,
  recordsOf,
  SLEEP_KIND,
  type WhoopUser,
  WORKOUT_KIND,
} from './whoop-data.ts';

/**
 * A faithful local WHOOP API v2 (docs/providers.md#whoop, OpenAPI 3.0.1): OAuth with credentials
 * in the body, a refresh token only with the `offline` scope and rotated on every refresh;
 * DELETE /v2/user/access; cycle, recovery, sleep and workout collections (`limit` <= 25, `start`
 * inclusive, `end` exclusive, `nextToken`, newest first) and by id; profile and body measurement;
 * 100/min and 10,000/day limits with X-RateLimit-Limit/Remaining/Reset; signed webhooks
 * (X-WHOOP-Signature over timestamp + body). Point `WHOOP_BASE_URL` at `baseUrl`.
 */
export type WhoopEventType =
  | 'workout.updated'
  | 'workout.deleted'
  | 'sleep.updated'
  | 'sleep.deleted'
  | 'recovery.updated'
  | 'recovery.deleted';

export type WhoopFake = FakeServer & {
  clientId: string;
  clientSecret: string;
  consent: Consent;
  offsetMinutes: number;
  /** How far back data exists when a query gives no `start`. */
  historyDays: number;
  /** Day numbers whose sleep, recovery and workouts are answered in WHOOP's v1 shape (whoop-data.ts `inV1Shape`). */
  v1ShapedDays: Set<number>;
  limits: { perMinute: number; perDay: number };
  grants: Grant[];
  /** The webhook URL set in the developer dashboard (WHOOP has no subscription API). */
  webhookUrl: string | null;
  deliveries: Delivery[];
  issueCode(input: { redirectUri: string; scopes?: string[] }): string;
  expireAccessTokens(): void;
  revokeAccount(account?: string): void;
  userIdOf(account: string): number;
  /** One signed POST (X-WHOOP-Signature, X-WHOOP-Signature-Timestamp in ms). */
  sendWebhook(
    url: string,
    event: { type: WhoopEventType; id: string | number; user_id?: number; trace_id?: string },
    options?: { secret?: string; timestamp?: string },
  ): Promise<Delivery>;
  /** Sends to `webhookUrl` unless every grant of the account is revoked (null then). */
  notify(type: WhoopEventType, id: string | number, account?: string): Promise<Delivery | null>;
};

export const WHOOP_SCOPES = [
  'offline',
  'read:recovery',
  'read:cycles',
  'read:workout',
  'read:sleep',
  'read:profile',
  'read:body_measurement',
];

const DAY_MS = 86_400_000;
const ACCESS_TTL = 3600;
const oauthError = (status: number, error: string, description: string): FakeReply => ({
  status,
  body: { error, error_description: description, status_code: status },
});
const apiError = (status: number, message: string): FakeReply => ({ status, body: { message } });

type Kind = 'cycle' | 'recovery' | 'sleep' | 'workout';
const scopeOf: Readonly<Record<Kind | 'profile' | 'body', string>> = {
  cycle: 'read:cycles',
  recovery: 'read:recovery',
  sleep: 'read:sleep',
  workout: 'read:workout',
  profile: 'read:profile',
  body: 'read:body_measurement',
};

export async function startWhoopFake(
  options: { offsetMinutes?: number; historyDays?: number; now?: number } = {},
): Promise<WhoopFake> {
  const clientId = randomUUID();
  const clientSecret = `whoop-secret-${randomId(16)}`;
  const consent: Consent = { account: 'account-1', deny: false, grantScopes: null };
  const deliveries: Delivery[] = [];
  const usage = { minute: -1, day: -1, inMinute: 0, inDay: 0 };
  let fake: WhoopFake;
  let store: ReturnType<typeof createTokenStore>;

  const userIdOf = (account: string) => {
    let hash = 11;
    for (let index = 0; index < account.length; index++)
      hash = (Math.imul(hash, 31) + account.charCodeAt(index)) >>> 0;
    return 10_000 + (hash % 90_000);
  };
  const userOf = (account: string): WhoopUser => ({
    seed: `whoop|${account}`,
    userId: userIdOf(account),
    offsetMinutes: fake.offsetMinutes,
  });

  function authorized(request: FakeRequest, scope: string): Grant | FakeReply {
    const result = store.authenticate(request.bearer);
    if ('error' in result) return apiError(401, 'Invalid authorization');
    if (!result.grant.scopes.includes(scope)) return apiError(401, `Missing scope ${scope}`);
    return result.grant;
  }

  function tokenReply(grant: Grant): FakeReply {
    return {
      status: 200,
      headers: { 'cache-control': 'no-store' },
      body: {
        access_token: grant.accessToken,
        expires_in: ACCESS_TTL,
        ...(grant.refreshToken ? { refresh_token: grant.refreshToken } : {}),
        scope: grant.scopes.join(' '),
        token_type: 'bearer',
      },
    };
  }

  function token(request: FakeRequest): FakeReply {
    const form = request.form;
    if (form.get('client_id') !== clientId || form.get('client_secret') !== clientSecret) {
      return oauthError(401, 'invalid_client', 'Client authentication failed');
    }
    if (form.get('grant_type') === 'authorization_code') {
      const pending = store.takeCode(form.get('code') ?? '');
      if (!pending || pending.redirectUri !== form.get('redirect_uri')) {
        return oauthError(
          400,
          'invalid_grant',
          'The provided authorization grant is invalid, expired, revoked, or was issued to another client.',
        );
      }
      // Only `offline` earns a refresh token.
      return tokenReply(
        store.createGrant(pending.account, pending.scopes, ACCESS_TTL, pending.scopes.includes('offline')),
      );
    }
    if (form.get('grant_type') === 'refresh_token') {
      const found = store.byRefresh(form.get('refresh_token') ?? '');
      if (!found || found.retired || found.grant.revoked) {
        return oauthError(
          400,
          'invalid_grant',
          'The refresh token is invalid, expired, revoked, or was already used.',
        );
      }
      const grant = found.grant;
      const requested = form.get('scope');
      const keepsOffline = requested === null || requested.split(' ').includes('offline');
      store.renewAccess(grant, ACCESS_TTL);
      store.rotateRefresh(grant, keepsOffline);
      return tokenReply(grant);
    }
    return oauthError(
      400,
      'unsupported_grant_type',
      'grant_type must be authorization_code or refresh_token',
    );
  }

  /** The days whose records can overlap [fromMs, toMs), newest first. */
  function daysBetween(fromMs: number, toMs: number): number[] {
    const last = Math.min(Math.floor(toMs / DAY_MS) + 1, Math.floor(fake.clock.now() / DAY_MS) + 1);
    const first = Math.floor(fromMs / DAY_MS) - 1;
    const days: number[] = [];
    for (let day = last; day >= first; day--) days.push(day);
    return days;
  }

  function collection(kind: Kind): Route['handler'] {
    return (request) => {
      const grant = authorized(request, scopeOf[kind]);
      if (!('account' in grant)) return grant;
      const limit = Number(request.query.get('limit') ?? '10');
      if (!Number.isInteger(limit) || limit < 1 || limit > 25)
        return apiError(400, 'limit must be between 1 and 25');
      const now = fake.clock.now();
      const startText = request.query.get('start');
      const endText = request.query.get('end');
      const fromMs = startText ? Date.parse(startText) : now - fake.historyDays * DAY_MS;
      const toMs = endText ? Date.parse(endText) : now;
      if (Number.isNaN(fromMs) || Number.isNaN(toMs))
        return apiError(400, 'start and end must be date-times');
      const user = userOf(grant.account);
      const records: { startMs: number; record: unknown }[] = [];
      for (const day of daysBetween(fromMs, toMs)) {
        const fresh = recordsOf(user, day, now);
        if (!fresh) continue;
        const found = fake.v1ShapedDays.has(day) ? inV1Shape(fresh) : fresh;
        const span = (record: Record<string, unknown>) => ({
          startMs: Date.parse(record.start as string),
          endMs: record.end ? Date.parse(record.end as string) : now,
        });
        const candidates: { startMs: number; endMs: number; record: unknown }[] =
          kind === 'cycle'
            ? [{ ...span(found.cycle), record: found.cycle }]
            : kind === 'sleep'
              ? [{ ...span(found.sleep), record: found.sleep }]
              : kind === 'workout'
                ? found.workouts.map((workout) => ({ ...span(workout), record: workout }))
                : [{ ...span(found.cycle), record: found.recovery }];
        // Inclusive start (records that occurred after or during it), exclusive end.
        for (const candidate of candidates) {
          if (candidate.endMs >= fromMs && candidate.startMs < toMs) records.push(candidate);
        }
      }
      records.sort((a, b) => b.startMs - a.startMs);
      const page = pageOf(
        records,
        limit,
        request.query.get('nextToken') || null,
        `${kind}|${fromMs}|${toMs}|${limit}`,
      );
      if (!page) return apiError(400, 'invalid nextToken');
      return {
        status: 200,
        body: {
          records: page.page.map((entry) => entry.record),
          ...(page.next ? { next_token: page.next } : {}),
        },
      };
    };
  }

  function byId(kind: Kind, pick: (records: DayRecords, id: string) => unknown): Route['handler'] {
    return (request) => {
      const grant = authorized(request, scopeOf[kind]);
      if (!('account' in grant)) return grant;
      const id = request.params.id ?? '';
      const day =
        kind === 'sleep' || kind === 'workout' ? parseDayUuid(id)?.dayNumber : dayOfCycleId(Number(id));
      const found = day == null ? null : recordsOf(userOf(grant.account), day, fake.clock.now());
      const record = found ? pick(found, id) : undefined;
      return record ? { status: 200, body: record } : apiError(404, 'No resource found');
    };
  }

  const routes: Route[] = [
    {
      method: 'GET',
      path: '/oauth/oauth2/auth',
      handler: (request) => authorizeReply(request, store, consent, { clientId, scopeSeparator: ' ' }),
    },
    { method: 'POST', path: '/oauth/oauth2/token', handler: token },
    {
      method: 'DELETE',
      path: '/developer/v2/user/access',
      handler: (request) => {
        const result = store.authenticate(request.bearer);
        if ('error' in result) return apiError(401, 'Invalid authorization');
        // The user's authorization of this client ends: every token of theirs stops working.
        store.revokeAccount(result.grant.account);
        return { status: 204 };
      },
    },
    { method: 'GET', path: '/developer/v2/cycle', handler: collection('cycle') },
    { method: 'GET', path: '/developer/v2/recovery', handler: collection('recovery') },
    { method: 'GET', path: '/developer/v2/activity/sleep', handler: collection('sleep') },
    { method: 'GET', path: '/developer/v2/activity/workout', handler: collection('workout') },
    { method: 'GET', path: '/developer/v2/cycle/:id', handler: byId('cycle', (records) => records.cycle) },
    {
      method: 'GET',
      path: '/developer/v2/cycle/:id/recovery',
      handler: byId('recovery', (records) => records.recovery),
    },
    {
      method: 'GET',
      path: '/developer/v2/cycle/:id/sleep',
      handler: byId('sleep', (records) => records.sleep),
    },
    {
      method: 'GET',
      path: '/developer/v2/activity/sleep/:id',
      handler: byId('sleep', (records, id) =>
        parseDayUuid(id)?.kindCode === SLEEP_KIND && records.sleep.id === id ? records.sleep : undefined,
      ),
    },
    {
      method: 'GET',
      path: '/developer/v2/activity/workout/:id',
      handler: byId('workout', (records, id) =>
        parseDayUuid(id)?.kindCode === WORKOUT_KIND
          ? records.workouts.find((workout) => workout.id === id)
          : undefined,
      ),
    },
    {
      method: 'GET',
      path: '/developer/v2/user/profile/basic',
      handler: (request) => {
        const grant = authorized(request, scopeOf.profile);
        return 'account' in grant ? { status: 200, body: profileOf(userOf(grant.account)) } : grant;
      },
    },
    {
      method: 'GET',
      path: '/developer/v2/user/measurement/body',
      handler: (request) => {
        const grant = authorized(request, scopeOf.body);
        return 'account' in grant ? { status: 200, body: bodyOf(userOf(grant.account)) } : grant;
      },
    },
  ];

  function rateHeaders(): Record<string, string> {
    const now = fake.clock.now();
    return {
      'x-ratelimit-limit': `${fake.limits.perMinute}, ${fake.limits.perMinute};window=60, ${fake.limits.perDay};window=86400`,
      'x-ratelimit-remaining': String(Math.max(0, fake.limits.perMinute - usage.inMinute)),
      'x-ratelimit-reset': String(Math.ceil((60_000 - (now % 60_000)) / 1000)),
    };
  }

  const server = await startFakeServer({
    routes,
    gate(request) {
      if (!request.path.startsWith('/developer/')) return null;
      const now = fake.clock.now();
      if (Math.floor(now / 60_000) !== usage.minute) {
        usage.minute = Math.floor(now / 60_000);
        usage.inMinute = 0;
      }
      if (Math.floor(now / DAY_MS) !== usage.day) {
        usage.day = Math.floor(now / DAY_MS);
        usage.inDay = 0;
      }
      usage.inMinute += 1;
      usage.inDay += 1;
      if (usage.inMinute > fake.limits.perMinute || usage.inDay > fake.limits.perDay)
        return apiError(429, 'Request rejected due to rate limiting');
      return null;
    },
    everyReply: (request) => (request.path.startsWith('/developer/') ? rateHeaders() : {}),
    faultReply(injected) {
      if (injected.kind === 'unauthorized') return apiError(401, 'Invalid authorization');
      if (injected.kind === 'server_error')
        return apiError(injected.status ?? 500, 'Server error occurred while making request');
      return {
        ...apiError(429, 'Request rejected due to rate limiting'),
        headers: {
          ...rateHeaders(),
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': String(injected.retryAfterSeconds ?? 60),
        },
      };
    },
  });
  store = createTokenStore(server.clock, 'whoop');

  fake = Object.assign(server, {
    clientId,
    clientSecret,
    consent,
    offsetMinutes: options.offsetMinutes ?? -300,
    historyDays: options.historyDays ?? 90,
    v1ShapedDays: new Set<number>(),
    limits: { perMinute: 100, perDay: 10_000 },
    grants: store.grants,
    webhookUrl: null as string | null,
    deliveries,
    issueCode: ({ redirectUri, scopes }: { redirectUri: string; scopes?: string[] }) =>
      store.issueCode({
        account: consent.account,
        scopes: scopes ?? [...WHOOP_SCOPES],
        redirectUri,
        clientId,
      }),
    expireAccessTokens: () => store.expireAccessTokens(),
    revokeAccount: (account?: string) => store.revokeAccount(account),
    userIdOf,
    async sendWebhook(
      url: string,
      event: { type: WhoopEventType; id: string | number; user_id?: number; trace_id?: string },
      signing: { secret?: string; timestamp?: string } = {},
    ) {
      const body = JSON.stringify({
        user_id: event.user_id ?? userIdOf(consent.account),
        id: event.id,
        type: event.type,
        trace_id: event.trace_id ?? randomUUID(),
      });
      const timestamp = signing.timestamp ?? String(fake.clock.now());
      const signature = createHmac('sha256', signing.secret ?? clientSecret)
        .update(timestamp + body)
        .digest('base64');
      const answer = await deliver(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-whoop-signature': signature,
          'x-whoop-signature-timestamp': timestamp,
        },
        body,
      });
      deliveries.push(answer);
      return answer;
    },
    async notify(type: WhoopEventType, id: string | number, account = consent.account) {
      const grants = store.grants.filter((grant) => grant.account === account);
      // Revoking access stops webhooks for that user (DELETE /v2/user/access).
      if (!fake.webhookUrl || (grants.length > 0 && grants.every((grant) => grant.revoked))) return null;
      return fake.sendWebhook(fake.webhookUrl, { type, id, user_id: userIdOf(account) });
    },
  });
  if (options.now !== undefined) fake.clock.set(options.now);
  return fake;
}
