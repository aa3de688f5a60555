import { createHmac } from 'node:crypto';
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
  activityOf,
  heartOf,
  intradayOf,
  measureGroupsOf,
  nightOf,
  signalOf,
  type WithingsUser,
  workoutsOf,
} from './withings-data.ts';

/**
 * A faithful local Withings public API (docs/providers.md#withings, its OpenAPI):
 * every call is `action=<verb>` on a shared path, by GET query or POST form, and every answer is
 * HTTP 200 `{status, body}` with the outcome in `status` (0 ok; 401 bad token; 503 invalid
 * params such as a spent code; 601 too many requests; 522 timeout). OAuth: authorize2 with
 * comma-separated scopes; POST /v2/oauth2 action=requesttoken with the credentials in the body;
 * 3 h access tokens; every refresh issues a new refresh token and the previous one keeps working
 * for 8 h or until the new access token is first used; action=revoke signed with a nonce from
 * /v2/signature action=getnonce (HMAC-SHA256 of the sorted parameter values, key = client
 * secret). Data: measure getmeas (`more`/`offset` paging, meastype(s), category, startdate/
 * enddate or lastupdate), v2/measure getactivity/getintradayactivity (first 24 h only)/
 * getworkouts, v2/sleep get (first 24 h)/getsummary, v2/heart list/get. Notify subscribe/get/
 * list/update/revoke per user and appli, and unsigned form-encoded callbacks. 120 requests per
 * minute. Point `WITHINGS_BASE_URL` (and the account host) at `baseUrl`.
 */
export type WithingsSubscription = { account: string; callbackurl: string; appli: number; comment: string };

export type WithingsFake = FakeServer & {
  clientId: string;
  clientSecret: string;
  consent: Consent;
  timezone: string;
  offsetMinutes: number;
  /** Items per page of getmeas / getactivity / getworkouts / getsummary / heart list. */
  pageSize: number;
  /** Requests per minute before status 601. */
  perMinute: number;
  grants: Grant[];
  subscriptions: WithingsSubscription[];
  deliveries: Delivery[];
  issueCode(input: { redirectUri: string; scopes?: string[] }): string;
  expireAccessTokens(): void;
  revokeAccount(account?: string): void;
  userIdOf(account: string): number;
  /** The form-encoded, unsigned POST Withings sends to a callback URL. */
  sendNotification(url: string, fields: Record<string, string | number>): Promise<Delivery>;
  /** A notification for `appli` to every matching subscription of the account. */
  notify(appli: number, fields: Record<string, string | number>, account?: string): Promise<Delivery[]>;
};

export const WITHINGS_SCOPES = ['user.info', 'user.metrics', 'user.activity', 'user.sleepevents'] as const;
const ACCESS_TTL = 10_800;
const GRACE_MS = 8 * 3_600_000;
const DAY_S = 86_400;
const envelope = (body: unknown): FakeReply => ({ status: 200, body: { status: 0, body } });
/** Withings errors: HTTP 200, the code in `status`, a message in `error`. */
const failure = (status: number, message: string): FakeReply => ({
  status: 200,
  body: { status, body: {}, error: message },
});
const ymdDay = (text: string | null) =>
  text && /^\d{4}-\d{2}-\d{2}$/.test(text) ? Date.parse(`${text}T00:00:00Z`) / 86_400_000 : null;

/** Fields of workouts and night summaries Withings sends without being asked for them. */
const ALWAYS_SENT = new Set([
  'intensity',
  'manual_intensity',
  'spo2_average',
  'pause_duration',
  'algo_pause_duration',
]);
/** Fields of a getactivity day that Withings sends only when `data_fields` names them. */
const ACTIVITY_ASK_ONLY = new Set([
  'hr_average',
  'hr_min',
  'hr_max',
  'hr_zone_0',
  'hr_zone_1',
  'hr_zone_2',
  'hr_zone_3',
]);

function activityFields<T extends Record<string, unknown>>(day: T, p: URLSearchParams): T {
  const wanted = p.get('data_fields')?.split(',') ?? [];
  return Object.fromEntries(
    Object.entries(day).filter(([name]) => !ACTIVITY_ASK_ONLY.has(name) || wanted.includes(name)),
  ) as T;
}

export async function startWithingsFake(
  options: { timezone?: string; offsetMinutes?: number; now?: number } = {},
): Promise<WithingsFake> {
  const clientId = `withings-client-${randomId(4)}`;
  const clientSecret = `withings-secret-${randomId(12)}`;
  const consent: Consent = { account: 'account-1', deny: false, grantScopes: null };
  const subscriptions: WithingsSubscription[] = [];
  const deliveries: Delivery[] = [];
  const nonces = new Set<string>();
  /** Replaced refresh tokens: valid until `until` unless the access token issued with their successor was used. */
  const previous = new Map<string, { grant: Grant; until: number; successor: string }>();
  const usedAccess = new Set<string>();
  const usage = { minute: -1, count: 0 };
  let fake: WithingsFake;
  let store: ReturnType<typeof createTokenStore>;

  const userIdOf = (account: string) => {
    let hash = 5;
    for (let index = 0; index < account.length; index++)
      hash = (Math.imul(hash, 33) + account.charCodeAt(index)) >>> 0;
    return 100_000 + (hash % 900_000);
  };
  const userFor = (account: string): WithingsUser => ({
    seed: `withings|${account}`,
    userid: userIdOf(account),
    timezone: fake.timezone,
    offsetMinutes: fake.offsetMinutes,
  });
  const nowS = () => Math.floor(fake.clock.now() / 1000);
  const today = () => Math.floor((nowS() + fake.offsetMinutes * 60) / DAY_S);
  const params = (request: FakeRequest) => new URLSearchParams([...request.query, ...request.form]);
  const sign = (values: string[]) =>
    createHmac('sha256', clientSecret).update(values.join(',')).digest('hex');

  function authorized(request: FakeRequest, scope: string | null): Grant | FakeReply {
    const result = store.authenticate(request.bearer ?? params(request).get('access_token'));
    if ('error' in result)
      return failure(
        401,
        `XRequestID: Not provided invalid_token: The access token provided is ${result.error}`,
      );
    if (scope && !result.grant.scopes.includes(scope))
      return failure(214, 'Unauthorized: the token lacks the scope');
    // Using the new access token ends the grace period of the refresh token it replaced.
    usedAccess.add(result.grant.accessToken);
    return result.grant;
  }

  function tokenReply(grant: Grant): FakeReply {
    return envelope({
      userid: userIdOf(grant.account),
      access_token: grant.accessToken,
      refresh_token: grant.refreshToken,
      expires_in: ACCESS_TTL,
      scope: grant.scopes.join(','),
      csrf_token: randomId(16),
      token_type: 'Bearer',
    });
  }

  function oauth2(request: FakeRequest): FakeReply {
    const p = params(request);
    const action = p.get('action');
    if (action === 'revoke') {
      const nonce = p.get('nonce') ?? '';
      if (
        p.get('client_id') !== clientId ||
        !nonces.delete(nonce) ||
        p.get('signature') !== sign(['revoke', clientId, nonce])
      ) {
        return failure(503, 'Invalid Params: invalid signature or nonce');
      }
      const account = store.grants.find(
        (grant) => String(userIdOf(grant.account)) === p.get('userid'),
      )?.account;
      if (account) fake.revokeAccount(account);
      return envelope({});
    }
    if (action !== 'requesttoken') return failure(2554, 'Not implemented');
    if (p.get('client_id') !== clientId || p.get('client_secret') !== clientSecret)
      return failure(503, 'Invalid Params: invalid client id or secret');
    if (p.get('grant_type') === 'authorization_code') {
      const pending = store.takeCode(p.get('code') ?? '');
      if (!pending || pending.redirectUri !== p.get('redirect_uri'))
        return failure(503, 'Invalid Params: invalid code');
      return tokenReply(store.createGrant(pending.account, pending.scopes, ACCESS_TTL, true));
    }
    if (p.get('grant_type') === 'refresh_token') {
      const value = p.get('refresh_token') ?? '';
      const current = store.byRefresh(value);
      const old = previous.get(value);
      const valid =
        current &&
        !current.grant.revoked &&
        (!current.retired || (old && old.until > fake.clock.now() && !usedAccess.has(old.successor)));
      if (!current || !valid) return failure(503, 'Invalid Params: invalid refresh_token');
      const grant = current.grant;
      const replaced = grant.refreshToken as string;
      store.renewAccess(grant, ACCESS_TTL);
      store.rotateRefresh(grant, true);
      previous.set(replaced, { grant, until: fake.clock.now() + GRACE_MS, successor: grant.accessToken });
      return tokenReply(grant);
    }
    return failure(503, 'Invalid Params: grant_type');
  }

  function nonce(request: FakeRequest): FakeReply {
    const p = params(request);
    const timestamp = p.get('timestamp') ?? '';
    if (
      p.get('action') !== 'getnonce' ||
      p.get('client_id') !== clientId ||
      p.get('signature') !== sign(['getnonce', clientId, timestamp])
    ) {
      return failure(503, 'Invalid Params: invalid signature');
    }
    const value = randomId(16);
    nonces.add(value);
    return envelope({ nonce: value });
  }

  /** Days of a `startdateymd`/`enddateymd` or `lastupdate` query, or an error. */
  function days(p: URLSearchParams): { from: number; to: number } | FakeReply {
    if (p.has('lastupdate')) {
      const since = Number(p.get('lastupdate'));
      if (!Number.isFinite(since)) return failure(503, 'Invalid Params: lastupdate');
      return { from: Math.floor(since / DAY_S), to: today() };
    }
    const from = ymdDay(p.get('startdateymd'));
    const to = ymdDay(p.get('enddateymd'));
    if (from === null || to === null || from > to)
      return failure(503, 'Invalid Params: startdateymd/enddateymd or lastupdate required');
    return { from, to: Math.min(to, today()) };
  }

  /** Unix-second window clipped to the first 24 h, as Withings serves sleep get and intraday. */
  function window(p: URLSearchParams): { start: number; end: number } | FakeReply {
    const start = Number(p.get('startdate'));
    const end = Number(p.get('enddate'));
    if (!Number.isFinite(start) || !Number.isFinite(end) || end <= start)
      return failure(503, 'Invalid Params: startdate/enddate');
    return { start, end: Math.min(end, start + DAY_S) };
  }

  function page<T>(items: T[], p: URLSearchParams, key: string, integerMore = false): FakeReply {
    const offset = Number(p.get('offset') ?? 0) || 0;
    const slice = items.slice(offset, offset + fake.pageSize);
    const more = offset + fake.pageSize < items.length;
    return envelope({
      [key]: slice,
      more: integerMore ? Number(more) : more,
      offset: more ? offset + fake.pageSize : 0,
    });
  }

  /**
   * Withings answers only the fields `data_fields` names, beyond the few it always sends (the
   * reference marks the others "Use 'data_fields' to request this data").
   */
  function fields<T extends Record<string, unknown>>(document: T, p: URLSearchParams): T {
    if (!document.data) return document;
    const wanted = p.get('data_fields')?.split(',') ?? [];
    const data = document.data as Record<string, unknown>;
    return {
      ...document,
      data: Object.fromEntries(
        Object.entries(data).filter(([name]) => wanted.includes(name) || ALWAYS_SENT.has(name)),
      ),
    };
  }

  function measure(request: FakeRequest): FakeReply {
    const p = params(request);
    if (p.get('action') !== 'getmeas') return failure(2554, 'Not implemented');
    const grant = authorized(request, 'user.metrics');
    if (!('account' in grant)) return grant;
    const types = (p.get('meastypes') ?? p.get('meastype'))?.split(',').map(Number) ?? null;
    const category = Number(p.get('category') ?? 1);
    const since = p.has('lastupdate') ? Number(p.get('lastupdate')) : null;
    const start = since ?? Number(p.get('startdate') ?? 0);
    const end = since === null && p.has('enddate') ? Number(p.get('enddate')) : nowS();
    const groups = [];
    if (category === 1) {
      for (
        let day = Math.max(Math.floor(start / DAY_S) - 1, today() - 3650);
        day <= Math.min(today(), Math.floor(end / DAY_S) + 1);
        day++
      ) {
        for (const group of measureGroupsOf(userFor(grant.account), day)) {
          const stamp = since === null ? (group.date as number) : (group.modified as number);
          if (stamp < start || stamp > end) continue;
          const measures = (group.measures as { type: number }[]).filter(
            (m) => !types || types.includes(m.type),
          );
          if (measures.length) groups.push({ ...group, measures });
        }
      }
    }
    const reply = page(groups.reverse(), p, 'measuregrps', true);
    (reply.body as { body: Record<string, unknown> }).body.updatetime = nowS();
    (reply.body as { body: Record<string, unknown> }).body.timezone = fake.timezone;
    return reply;
  }

  function measureV2(request: FakeRequest): FakeReply {
    const p = params(request);
    const action = p.get('action');
    const grant = authorized(request, 'user.activity');
    if (!('account' in grant)) return grant;
    const user = userFor(grant.account);
    if (action === 'getintradayactivity') {
      const span = window(p);
      if (!('start' in span)) return span;
      const series: Record<string, unknown> = {};
      for (let day = Math.floor(span.start / DAY_S) - 1; day <= Math.floor(span.end / DAY_S) + 1; day++) {
        for (const [start, point] of intradayOf(user, day))
          if (start >= span.start && start < span.end) series[start] = point;
      }
      return envelope({ series });
    }
    if (action !== 'getactivity' && action !== 'getworkouts') return failure(2554, 'Not implemented');
    const span = days(p);
    if (!('from' in span)) return span;
    const items = [];
    for (let day = span.from; day <= span.to; day++) {
      if (action === 'getactivity') items.push(activityFields(activityOf(user, day), p));
      else items.push(...workoutsOf(user, day).map((workout) => fields(workout, p)));
    }
    return page(items, p, action === 'getactivity' ? 'activities' : 'series');
  }

  function sleep(request: FakeRequest): FakeReply {
    const p = params(request);
    const grant = authorized(request, 'user.sleepevents');
    if (!('account' in grant)) return grant;
    const user = userFor(grant.account);
    if (p.get('action') === 'getsummary') {
      const span = days(p);
      if (!('from' in span)) return span;
      const items = [];
      for (let day = span.from; day <= span.to; day++) items.push(fields(nightOf(user, day).summary, p));
      return page(items, p, 'series');
    }
    if (p.get('action') !== 'get') return failure(2554, 'Not implemented');
    const span = window(p);
    if (!('start' in span)) return span;
    const wanted = p.get('data_fields')?.split(',') ?? [];
    const series = [];
    for (let day = Math.floor(span.start / DAY_S); day <= Math.floor(span.end / DAY_S) + 1; day++) {
      for (const segment of nightOf(user, day).segments) {
        if ((segment.startdate as number) < span.start || (segment.startdate as number) >= span.end) continue;
        const { hr, rr, rmssd, snoring, sdnn_1, ...rest } = segment;
        const chosen: Record<string, unknown> = { hr, rr, rmssd, snoring, sdnn_1 };
        series.push({
          ...rest,
          ...Object.fromEntries(Object.entries(chosen).filter(([name]) => wanted.includes(name))),
        });
      }
    }
    return envelope({ series, model: 16 });
  }

  function heart(request: FakeRequest): FakeReply {
    const p = params(request);
    const grant = authorized(request, 'user.metrics');
    if (!('account' in grant)) return grant;
    const user = userFor(grant.account);
    if (p.get('action') === 'get') {
      const signal = signalOf(user, Number(p.get('signalid')));
      return signal ? envelope(signal) : failure(503, 'Invalid Params: signalid');
    }
    if (p.get('action') !== 'list') return failure(2554, 'Not implemented');
    const start = Number(p.get('startdate') ?? nowS() - 30 * DAY_S);
    const end = Number(p.get('enddate') ?? nowS());
    const items = [];
    for (let day = Math.floor(start / DAY_S); day <= Math.min(today(), Math.floor(end / DAY_S)); day++) {
      items.push(
        ...heartOf(user, day).filter(
          (entry) => (entry.timestamp as number) >= start && (entry.timestamp as number) <= end,
        ),
      );
    }
    return page(items, p, 'series');
  }

  function notify(request: FakeRequest): FakeReply {
    const p = params(request);
    const grant = authorized(request, null);
    if (!('account' in grant)) return grant;
    const appli = Number(p.get('appli'));
    const callbackurl = p.get('callbackurl') ?? '';
    const mine = subscriptions.filter((entry) => entry.account === grant.account);
    const match = (entry: WithingsSubscription) =>
      entry.callbackurl === callbackurl && (!p.has('appli') || entry.appli === appli);
    switch (p.get('action')) {
      case 'subscribe': {
        if (!/^https?:\/\//.test(callbackurl) || !Number.isInteger(appli))
          return failure(293, 'Invalid Params: callbackurl/appli');
        if (!mine.some(match))
          subscriptions.push({ account: grant.account, callbackurl, appli, comment: p.get('comment') ?? '' });
        return envelope({});
      }
      case 'get': {
        const found = mine.find(match);
        return found
          ? envelope({ appli: found.appli, callbackurl: found.callbackurl, comment: found.comment })
          : failure(343, 'No such subscription');
      }
      case 'list':
        return envelope({
          profiles: mine
            .filter((entry) => !p.has('appli') || entry.appli === appli)
            .map(({ appli, callbackurl, comment }) => ({
              appli,
              callbackurl,
              comment,
              expires: 2_147_483_647,
            })),
        });
      case 'update':
      case 'revoke': {
        const found = mine.filter(match);
        if (!found.length) return failure(343, 'No such subscription');
        for (const entry of found) {
          if (p.get('action') === 'revoke') subscriptions.splice(subscriptions.indexOf(entry), 1);
          else
            Object.assign(entry, {
              callbackurl: p.get('new_callbackurl') ?? entry.callbackurl,
              appli: Number(p.get('new_appli') ?? entry.appli),
              comment: p.get('comment') ?? entry.comment,
            });
        }
        return envelope({});
      }
      default:
        return failure(2554, 'Not implemented');
    }
  }

  const routes: Route[] = [
    {
      method: 'GET',
      path: '/oauth2_user/authorize2',
      handler: (request) => authorizeReply(request, store, consent, { clientId, scopeSeparator: ',' }),
    },
    { method: 'POST', path: '/v2/oauth2', handler: oauth2 },
    { method: 'POST', path: '/v2/signature', handler: nonce },
  ];
  for (const method of ['GET', 'POST']) {
    routes.push(
      { method, path: '/measure', handler: measure },
      { method, path: '/v2/measure', handler: measureV2 },
      { method, path: '/v2/sleep', handler: sleep },
      { method, path: '/v2/heart', handler: heart },
      { method, path: '/notify', handler: notify },
    );
  }

  const server = await startFakeServer({
    routes,
    gate(request) {
      if (
        request.path.startsWith('/oauth2_user') ||
        request.path === '/v2/oauth2' ||
        request.path === '/v2/signature'
      )
        return null;
      const minute = Math.floor(fake.clock.now() / 60_000);
      if (minute !== usage.minute) Object.assign(usage, { minute, count: 0 });
      usage.count++;
      return usage.count > fake.perMinute ? failure(601, 'Too many request') : null;
    },
    faultReply(injected) {
      if (injected.kind === 'unauthorized')
        return failure(401, 'XRequestID: Not provided invalid_token: The access token provided is invalid');
      if (injected.kind === 'rate_limit') return failure(601, 'Too many request');
      // A status asks for a real HTTP error from Withings' edge; without one, the body-level timeout.
      return injected.status
        ? {
            status: injected.status,
            body: '<html><body>Bad Gateway</body></html>',
            headers: { 'content-type': 'text/html' },
          }
        : failure(522, 'Timeout');
    },
  });
  if (options.now !== undefined) server.clock.set(options.now);
  store = createTokenStore(server.clock, 'withings');

  fake = Object.assign(server, {
    clientId,
    clientSecret,
    consent,
    timezone: options.timezone ?? 'Europe/Paris',
    offsetMinutes: options.offsetMinutes ?? 60,
    pageSize: 100,
    perMinute: 120,
    grants: store.grants,
    subscriptions,
    deliveries,
    issueCode: ({ redirectUri, scopes }: { redirectUri: string; scopes?: string[] }) =>
      store.issueCode({
        account: consent.account,
        scopes: scopes ?? [...WITHINGS_SCOPES],
        redirectUri,
        clientId,
      }),
    expireAccessTokens: () => store.expireAccessTokens(),
    revokeAccount(account?: string) {
      store.revokeAccount(account);
      for (let index = subscriptions.length - 1; index >= 0; index--) {
        if (account === undefined || subscriptions[index]?.account === account)
          subscriptions.splice(index, 1);
      }
    },
    userIdOf,
    async sendNotification(url: string, values: Record<string, string | number>) {
      const body = new URLSearchParams(
        Object.entries(values).map(([name, value]): [string, string] => [name, String(value)]),
      ).toString();
      const delivery = await deliver(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
        timeoutMs: 2000,
      });
      deliveries.push(delivery);
      return delivery;
    },
    async notify(appli: number, values: Record<string, string | number>, account = consent.account) {
      const targets = subscriptions.filter((entry) => entry.account === account && entry.appli === appli);
      const sent = [];
      for (const target of targets)
        sent.push(
          await fake.sendNotification(target.callbackurl, { userid: userIdOf(account), appli, ...values }),
        );
      return sent;
    },
  }) as WithingsFake;
  return fake;
}
