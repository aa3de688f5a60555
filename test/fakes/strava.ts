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
  type Route,
  randomId,
  startFakeServer,
} from './fake-server.ts';
import {
  activityIdOf,
  athleteOf,
  athleteZones,
  dayOfActivityId,
  detailOf,
  lapsOf,
  planOf,
  type StravaUser,
  streamsOf,
  summaryOf,
  tokenAthleteOf,
} from './strava-data.ts';

/**
 * A faithful local Strava API v3 (docs/providers.md#strava): OAuth with credentials in the body
 * (or query), the `athlete` in the code exchange, 6-hour access tokens whose refresh returns the
 * same token while it has more than an hour left and rotates both tokens otherwise; deauthorize;
 * /api/v3 athlete, activities (page/per_page, before/after epoch seconds), detail, streams,
 * laps, zones; application rate limits with X-RateLimit-* and X-ReadRateLimit-* on every answer;
 * the push subscription API with its hub.challenge validation, and event POSTs. Point
 * `STRAVA_BASE_URL` at `baseUrl` (the token and API paths are the real ones).
 */
export type StravaEvent = {
  object_type: 'activity' | 'athlete';
  object_id: number;
  aspect_type: 'create' | 'update' | 'delete';
  updates?: Record<string, string>;
  owner_id?: number;
  subscription_id?: number;
  event_time?: number;
};

export type StravaPushSubscription = {
  id: number;
  callback_url: string;
  verify_token: string;
  created_at: string;
};

export type StravaFake = FakeServer & {
  clientId: string;
  clientSecret: string;
  consent: Consent;
  /** Activities exist from this many days before "today" (by the fake clock). */
  historyDays: number;
  offsetMinutes: number;
  streamPoints: number;
  /** [15-minute, daily] limits: overall and read (non-upload). */
  limits: { overall: [number, number]; read: [number, number] };
  grants: Grant[];
  subscription: StravaPushSubscription | null;
  deliveries: Delivery[];
  issueCode(input: { redirectUri: string; scopes?: string[] }): string;
  expireAccessTokens(): void;
  revokeAccount(account?: string): void;
  athleteIdOf(account: string): number;
  /** The ids of the account's activities between two instants (ms), newest first. */
  activityIds(account: string, fromMs: number, toMs: number): number[];
  /** Strava's subscription validation: GET hub.challenge; true when it was echoed. */
  validateCallback(callbackUrl: string, verifyToken: string): Promise<boolean>;
  /** One event POST (no signature: Strava sends none) to `url` or the push subscription. */
  sendEvent(event: StravaEvent, url?: string): Promise<Delivery>;
  /** Resolves once background deliveries (the deauthorization event) are done. */
  settled(): Promise<void>;
};

export const STRAVA_SCOPES = [
  'read',
  'read_all',
  'profile:read_all',
  'profile:write',
  'activity:read',
  'activity:read_all',
  'activity:write',
];

const DAY_MS = 86_400_000;
const ACCESS_TTL = 21_600;
const fault = (
  status: number,
  message: string,
  resource: string,
  field: string,
  code: string,
): FakeReply => ({
  status,
  body: { message, errors: [{ resource, field, code }] },
});

export async function startStravaFake(
  options: { historyDays?: number; offsetMinutes?: number; streamPoints?: number; now?: number } = {},
): Promise<StravaFake> {
  const clientId = String(10_000 + Math.floor(Math.random() * 80_000));
  const clientSecret = `strava-secret-${randomId(12)}`;
  const consent: Consent = { account: 'account-1', deny: false, grantScopes: null };
  const deliveries: Delivery[] = [];
  const background: Promise<unknown>[] = [];
  const usage = { window: -1, day: -1, overall: [0, 0], read: [0, 0] };
  let fake: StravaFake;
  let store: ReturnType<typeof createTokenStore>;

  const athleteIdOf = (account: string) => {
    let hash = 7;
    for (let index = 0; index < account.length; index++)
      hash = (Math.imul(hash, 31) + account.charCodeAt(index)) >>> 0;
    return 100_000 + (hash % 900_000);
  };
  const userOf = (account: string): StravaUser => ({
    seed: `strava|${account}`,
    athleteId: athleteIdOf(account),
    offsetMinutes: fake.offsetMinutes,
    zoneName: 'America/Los_Angeles',
    streamPoints: fake.streamPoints,
  });
  const param = (request: FakeRequest, name: string) => request.form.get(name) ?? request.query.get(name);

  function authorized(request: FakeRequest, scopes: string[] | null): Grant | FakeReply {
    const result = store.authenticate(request.bearer);
    if ('error' in result) return fault(401, 'Authorization Error', 'Athlete', 'access_token', 'invalid');
    if (scopes && !scopes.some((scope) => result.grant.scopes.includes(scope))) {
      return fault(401, 'Authorization Error', 'AccessToken', `${scopes[0]}_permission`, 'missing');
    }
    return result.grant;
  }

  function tokenBody(grant: Grant, withAthlete: boolean) {
    return {
      token_type: 'Bearer',
      expires_at: Math.floor(grant.accessExpiresAt / 1000),
      expires_in: Math.max(0, Math.floor((grant.accessExpiresAt - fake.clock.now()) / 1000)),
      refresh_token: grant.refreshToken,
      access_token: grant.accessToken,
      ...(withAthlete ? { athlete: tokenAthleteOf(userOf(grant.account)) } : {}),
    };
  }

  function token(request: FakeRequest): FakeReply {
    if (param(request, 'client_id') !== clientId || param(request, 'client_secret') !== clientSecret) {
      return fault(401, 'Bad Request', 'Application', 'client_id', 'invalid');
    }
    const grantType = param(request, 'grant_type');
    if (grantType === 'authorization_code') {
      const pending = store.takeCode(param(request, 'code') ?? '');
      if (!pending) return fault(400, 'Bad Request', 'AuthorizationCode', 'code', 'invalid');
      const grant = store.createGrant(pending.account, pending.scopes, ACCESS_TTL, true);
      return { status: 200, body: tokenBody(grant, true) };
    }
    if (grantType === 'refresh_token') {
      const found = store.byRefresh(param(request, 'refresh_token') ?? '');
      if (!found || found.retired || found.grant.revoked) {
        return fault(400, 'Bad Request', 'RefreshToken', 'refresh_token', 'invalid');
      }
      const grant = found.grant;
      // Strava hands back the current access token while it has more than an hour to live.
      if (grant.accessExpiresAt - fake.clock.now() <= 3_600_000) {
        store.renewAccess(grant, ACCESS_TTL);
        store.rotateRefresh(grant, true);
      }
      return { status: 200, body: tokenBody(grant, false) };
    }
    return fault(400, 'Bad Request', 'Token', 'grant_type', 'invalid');
  }

  function deauthorize(request: FakeRequest): FakeReply {
    const value = param(request, 'access_token') ?? request.bearer;
    const found = store.authenticate(value);
    if ('error' in found) return fault(401, 'Authorization Error', 'Athlete', 'access_token', 'invalid');
    const grant = found.grant;
    // All of the athlete's tokens for this application go, and Strava tells the subscription.
    for (const other of store.grants) if (other.account === grant.account) store.revoke(other);
    const subscription = fake.subscription;
    if (subscription) {
      const athleteId = athleteIdOf(grant.account);
      background.push(
        fake
          .sendEvent({
            object_type: 'athlete',
            object_id: athleteId,
            aspect_type: 'update',
            updates: { authorized: 'false' },
            owner_id: athleteId,
          })
          .catch(() => undefined),
      );
    }
    return { status: 200, body: { access_token: value } };
  }

  function activities(request: FakeRequest): FakeReply {
    const grant = authorized(request, ['activity:read', 'activity:read_all']);
    if (!('account' in grant)) return grant;
    const page = Number(request.query.get('page') ?? '1');
    const perPage = Math.min(200, Number(request.query.get('per_page') ?? '30'));
    const before = request.query.get('before');
    const after = request.query.get('after');
    if (!Number.isInteger(page) || page < 1 || !Number.isInteger(perPage) || perPage < 1) {
      return fault(400, 'Bad Request', 'Activity', 'page', 'invalid');
    }
    const toMs = before === null ? fake.clock.now() : Number(before) * 1000;
    const fromMs = after === null ? Number.NEGATIVE_INFINITY : Number(after) * 1000;
    let ids = fake.activityIds(grant.account, fromMs, toMs);
    // Strava lists newest first, but oldest first when only `after` is given [C].
    if (after !== null && before === null) ids = ids.reverse();
    const user = userOf(grant.account);
    const slice = ids.slice((page - 1) * perPage, page * perPage);
    return {
      status: 200,
      body: slice.map((id) =>
        summaryOf(
          user,
          planOf(user, dayOfActivityId(id) as number) as NonNullable<ReturnType<typeof planOf>>,
        ),
      ),
    };
  }

  function planFor(request: FakeRequest, grant: Grant) {
    const day = dayOfActivityId(Number(request.params.id));
    const user = userOf(grant.account);
    const plan = day === null || day > Math.floor(fake.clock.now() / DAY_MS) ? null : planOf(user, day);
    return plan ? { user, plan } : null;
  }

  function activityRoute(
    build: (
      request: FakeRequest,
      user: StravaUser,
      plan: NonNullable<ReturnType<typeof planOf>>,
    ) => FakeReply,
  ): Route['handler'] {
    return (request) => {
      const grant = authorized(request, ['activity:read', 'activity:read_all']);
      if (!('account' in grant)) return grant;
      const found = planFor(request, grant);
      return found
        ? build(request, found.user, found.plan)
        : fault(404, 'Record Not Found', 'Activity', 'id', 'invalid');
    };
  }

  function streams(
    request: FakeRequest,
    user: StravaUser,
    plan: NonNullable<ReturnType<typeof planOf>>,
  ): FakeReply {
    const keys = (request.query.get('keys') ?? '').split(',').filter(Boolean);
    if (keys.length === 0) return fault(400, 'Bad Request', 'Stream', 'keys', 'missing');
    const all = streamsOf(user, plan);
    const count = (all.time as unknown[]).length;
    const chosen = Object.entries(all).filter(([key]) => keys.includes(key));
    const stream = (data: unknown[]) => ({
      data,
      series_type: 'distance',
      original_size: count,
      resolution: 'high',
    });
    if (request.query.get('key_by_type') === 'true') {
      return { status: 200, body: Object.fromEntries(chosen.map(([key, data]) => [key, stream(data)])) };
    }
    return { status: 200, body: chosen.map(([key, data]) => ({ type: key, ...stream(data) })) };
  }

  function windowUsage(): void {
    const now = fake.clock.now();
    const window = Math.floor(now / 900_000);
    const day = Math.floor(now / DAY_MS);
    if (window !== usage.window) {
      usage.window = window;
      usage.overall[0] = 0;
      usage.read[0] = 0;
    }
    if (day !== usage.day) {
      usage.day = day;
      usage.overall[1] = 0;
      usage.read[1] = 0;
    }
  }

  const rateHeaders = (): Record<string, string> => ({
    'x-ratelimit-limit': fake.limits.overall.join(','),
    'x-ratelimit-usage': usage.overall.join(','),
    'x-readratelimit-limit': fake.limits.read.join(','),
    'x-readratelimit-usage': usage.read.join(','),
  });

  const appOk = (request: FakeRequest) =>
    param(request, 'client_id') === clientId && param(request, 'client_secret') === clientSecret;

  async function subscribe(request: FakeRequest): Promise<FakeReply> {
    if (!appOk(request)) return fault(401, 'Authorization Error', 'Application', 'client_id', 'invalid');
    if (fake.subscription) return fault(400, 'Bad Request', 'PushSubscription', '', 'already exists');
    const callback = param(request, 'callback_url');
    const verifyToken = param(request, 'verify_token');
    if (!callback || !verifyToken)
      return fault(400, 'Bad Request', 'PushSubscription', 'callback_url', 'missing');
    if (!(await fake.validateCallback(callback, verifyToken))) {
      return fault(
        400,
        'Bad Request',
        'PushSubscription',
        'callback url',
        'GET to callback URL does not return 200',
      );
    }
    fake.subscription = {
      id: 100_000 + Math.floor(Math.random() * 900_000),
      callback_url: callback,
      verify_token: verifyToken,
      created_at: new Date(fake.clock.now()).toISOString(),
    };
    return { status: 201, body: { id: fake.subscription.id } };
  }

  const routes: Route[] = [
    ...['/oauth/authorize', '/oauth/mobile/authorize'].map((path) => ({
      method: 'GET',
      path,
      // The redirect also carries the scopes the athlete left ticked (`scope`, comma-separated).
      handler: (request: FakeRequest) =>
        authorizeReply(request, store, consent, {
          clientId,
          scopeSeparator: ',',
          redirectParams: (granted) => ({ scope: granted.join(',') }),
        }),
    })),
    { method: 'POST', path: '/oauth/token', handler: token },
    { method: 'POST', path: '/api/v3/oauth/token', handler: token },
    { method: 'POST', path: '/oauth/deauthorize', handler: deauthorize },
    {
      method: 'GET',
      path: '/api/v3/athlete',
      handler: (request) => {
        const grant = authorized(request, null);
        return 'account' in grant ? { status: 200, body: athleteOf(userOf(grant.account)) } : grant;
      },
    },
    {
      method: 'GET',
      path: '/api/v3/athlete/zones',
      handler: (request) => {
        const grant = authorized(request, ['profile:read_all']);
        return 'account' in grant ? { status: 200, body: athleteZones() } : grant;
      },
    },
    { method: 'GET', path: '/api/v3/athlete/activities', handler: activities },
    {
      method: 'GET',
      path: '/api/v3/activities/:id',
      handler: activityRoute((_request, user, plan) => ({ status: 200, body: detailOf(user, plan) })),
    },
    { method: 'GET', path: '/api/v3/activities/:id/streams', handler: activityRoute(streams) },
    {
      method: 'GET',
      path: '/api/v3/activities/:id/laps',
      handler: activityRoute((_request, user, plan) => ({ status: 200, body: lapsOf(user, plan) })),
    },
    {
      method: 'GET',
      path: '/api/v3/activities/:id/zones',
      handler: activityRoute((_request, user, plan) => {
        const { time, heartrate } = streamsOf(user, plan) as { time: number[]; heartrate: number[] };
        const ranges = (athleteZones().heart_rate as { zones: { min: number; max: number }[] }).zones;
        const seconds = ranges.map(() => 0);
        for (let index = 0; index + 1 < time.length; index++) {
          const bpm = heartrate[index] as number;
          const zone = ranges.findLastIndex((range) => bpm >= range.min);
          seconds[zone] = (seconds[zone] ?? 0) + ((time[index + 1] as number) - (time[index] as number));
        }
        const buckets = ranges.map((range, index) => ({ ...range, time: seconds[index] }));
        return {
          status: 200,
          body: [
            {
              score: 42,
              distribution_buckets: buckets,
              type: 'heartrate',
              resource_state: 3,
              sensor_based: true,
              points: 7,
              custom_zones: false,
            },
          ],
        };
      }),
    },
    { method: 'POST', path: '/api/v3/push_subscriptions', handler: subscribe },
    {
      method: 'GET',
      path: '/api/v3/push_subscriptions',
      handler: (request) => {
        if (!appOk(request)) return fault(401, 'Authorization Error', 'Application', 'client_id', 'invalid');
        const subscription = fake.subscription;
        return {
          status: 200,
          body: subscription
            ? [
                {
                  id: subscription.id,
                  resource_state: 2,
                  application_id: Number(clientId),
                  callback_url: subscription.callback_url,
                  created_at: subscription.created_at,
                  updated_at: subscription.created_at,
                },
              ]
            : [],
        };
      },
    },
    {
      method: 'DELETE',
      path: '/api/v3/push_subscriptions/:id',
      handler: (request) => {
        if (!appOk(request)) return fault(401, 'Authorization Error', 'Application', 'client_id', 'invalid');
        if (fake.subscription?.id !== Number(request.params.id))
          return fault(404, 'Record Not Found', 'PushSubscription', 'id', 'invalid');
        fake.subscription = null;
        return { status: 204 };
      },
    },
  ];

  const server = await startFakeServer({
    routes,
    gate(request) {
      if (
        !request.path.startsWith('/api/v3/') ||
        request.path.includes('push_subscriptions') ||
        request.path.endsWith('/oauth/token')
      )
        return null;
      windowUsage();
      // Requests count even when refused (Strava docs).
      usage.overall[0] = (usage.overall[0] ?? 0) + 1;
      usage.overall[1] = (usage.overall[1] ?? 0) + 1;
      if (request.method === 'GET') {
        usage.read[0] = (usage.read[0] ?? 0) + 1;
        usage.read[1] = (usage.read[1] ?? 0) + 1;
      }
      const over = (used: number[], limit: [number, number]) =>
        (used[0] ?? 0) > limit[0] || (used[1] ?? 0) > limit[1];
      if (
        over(usage.overall, fake.limits.overall) ||
        (request.method === 'GET' && over(usage.read, fake.limits.read))
      ) {
        return fault(429, 'Rate Limit Exceeded', 'Application', 'rate limit', 'exceeded');
      }
      return null;
    },
    everyReply: (request) =>
      request.path.startsWith('/api/v3/') && !request.path.includes('push_subscriptions')
        ? rateHeaders()
        : {},
    faultReply(injected) {
      if (injected.kind === 'unauthorized')
        return fault(401, 'Authorization Error', 'Athlete', 'access_token', 'invalid');
      if (injected.kind === 'server_error')
        return { status: injected.status ?? 500, body: { message: 'Internal Server Error', errors: [] } };
      windowUsage();
      return {
        ...fault(429, 'Rate Limit Exceeded', 'Application', 'rate limit', 'exceeded'),
        headers: {
          ...rateHeaders(),
          'x-ratelimit-usage': `${fake.limits.overall[0] + 1},${usage.overall[1]}`,
          'x-readratelimit-usage': `${fake.limits.read[0] + 1},${usage.read[1]}`,
        },
      };
    },
  });
  store = createTokenStore(server.clock, 'strava');

  fake = Object.assign(server, {
    clientId,
    clientSecret,
    consent,
    historyDays: options.historyDays ?? 60,
    offsetMinutes: options.offsetMinutes ?? -480,
    streamPoints: options.streamPoints ?? 600,
    limits: { overall: [200, 2000] as [number, number], read: [100, 1000] as [number, number] },
    grants: store.grants,
    subscription: null as StravaPushSubscription | null,
    deliveries,
    issueCode: ({ redirectUri, scopes }: { redirectUri: string; scopes?: string[] }) =>
      store.issueCode({
        account: consent.account,
        scopes: scopes ?? [...STRAVA_SCOPES],
        redirectUri,
        clientId,
      }),
    expireAccessTokens: () => store.expireAccessTokens(),
    revokeAccount: (account?: string) => store.revokeAccount(account),
    athleteIdOf,
    activityIds(account: string, fromMs: number, toMs: number) {
      const user = userOf(account);
      const today = Math.floor(fake.clock.now() / DAY_MS);
      const ids: number[] = [];
      for (let day = today; day > today - fake.historyDays; day--) {
        const plan = planOf(user, day);
        if (plan && plan.startMs > fromMs && plan.startMs < toMs && plan.startMs <= fake.clock.now())
          ids.push(activityIdOf(day));
      }
      return ids;
    },
    async validateCallback(callbackUrl: string, verifyToken: string) {
      const challenge = randomId(10);
      const url = new URL(callbackUrl);
      url.searchParams.set('hub.mode', 'subscribe');
      url.searchParams.set('hub.challenge', challenge);
      url.searchParams.set('hub.verify_token', verifyToken);
      try {
        // Strava gives the callback two seconds to answer.
        const answer = await deliver(url.toString(), { method: 'GET', timeoutMs: 2000 });
        deliveries.push(answer);
        return (
          answer.status === 200 &&
          (JSON.parse(answer.responseBody) as Record<string, unknown>)['hub.challenge'] === challenge
        );
      } catch {
        return false;
      }
    },
    async sendEvent(event: StravaEvent, url?: string) {
      const target = url ?? fake.subscription?.callback_url;
      if (!target) throw new Error('no push subscription and no url given');
      const owner = athleteIdOf(consent.account);
      const body = JSON.stringify({
        aspect_type: event.aspect_type,
        event_time: event.event_time ?? Math.floor(fake.clock.now() / 1000),
        object_id: event.object_id,
        object_type: event.object_type,
        owner_id: event.owner_id ?? owner,
        subscription_id: event.subscription_id ?? fake.subscription?.id ?? 0,
        updates: event.updates ?? {},
      });
      const answer = await deliver(target, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        timeoutMs: 2000,
      });
      deliveries.push(answer);
      return answer;
    },
    async settled() {
      await Promise.all(background);
    },
  });
  if (options.now !== undefined) fake.clock.set(options.now);
  return fake;
}
