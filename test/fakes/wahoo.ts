import { createHash } from 'node:crypto';
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
  seeded,
  startFakeServer,
} from './fake-server.ts';
import { buildActivityFit, type FitFacts } from './fit-files.ts';
import { type WahooRoute, wahooRouteRoutes } from './wahoo-routes.ts';

/**
 * A faithful local Wahoo Cloud API (docs/providers.md#wahoo; ../shared/reference/providers-3.md
 * §4): OAuth 2.0 with optional PKCE (S256 checked when a challenge was sent), credentials in the
 * body or query, 2-hour access tokens and single-use refresh tokens rotated on every refresh;
 * DELETE /v1/permissions; GET /v1/user; GET /v1/workouts (page/per_page, newest first, `total`)
 * whose items carry their workout_summary with numbers as strings and a FIT file on the CDN
 * path; GET /v1/workouts/{id}; 200 per 5 minutes with X-RateLimit-* headers; the portal's
 * webhook (`workout_summary` events carrying the app's `webhook_token`). Point
 * `WAHOO_BASE_URL` at `baseUrl` (the CDN host is redirected there too).
 */
export type WahooFake = FakeServer & {
  clientId: string;
  clientSecret: string;
  /** The token Wahoo shows for the app and puts in every webhook body. */
  webhookToken: string;
  consent: Consent;
  offsetMinutes: number;
  historyDays: number;
  /** Workouts whose FIT file on the CDN is damaged (not a FIT file). */
  damagedFiles: Set<number>;
  /** Requests per 5 minutes before a 429. */
  limitPer5Minutes: number;
  grants: Grant[];
  /** The webhook URL set in Wahoo's portal. */
  webhookUrl: string | null;
  deliveries: Delivery[];
  expireAccessTokens(): void;
  userIdOf(account: string): number;
  /** The account's workouts, newest first. */
  workoutsOf(account: string): WahooFakeWorkout[];
  /** Routes this app put on the account's ELEMNT (wahoo-routes.ts). */
  routesOf(account: string): WahooRoute[];
  /** FIT facts (maxima, counts) of a workout, for assertions. */
  fitFactsOf(workoutId: number): FitFacts | null;
  /** POSTs a `workout_summary` event for a workout to `webhookUrl`. */
  notifyWorkout(workoutId: number, options?: { token?: string }): Promise<Delivery>;
};

export type WahooFakeWorkout = {
  id: number;
  starts: string;
  startMs: number;
  seconds: number;
  typeId: number;
  account: string;
};

const DAY_MS = 86_400_000;
const ACCESS_TTL = 7200;
const FILE_PATH = '/wahoo-cloud/production/uploads/workout_file/file';
const error = (status: number, message: string): FakeReply => ({ status, body: { error: message } });

export async function startWahooFake(
  options: { historyDays?: number; offsetMinutes?: number; webhookToken?: string } = {},
): Promise<WahooFake> {
  const clientId = `wahoo-${randomId(8)}`;
  const clientSecret = `wahoo-secret-${randomId(12)}`;
  const consent: Consent = { account: 'account-1', deny: false, grantScopes: null };
  const challenges = new Map<string, string>();
  const usage = { window: -1, count: 0 };
  const facts = new Map<number, FitFacts>();
  let fake: WahooFake;
  let store: ReturnType<typeof createTokenStore>;

  const userIdOf = (account: string) =>
    10_000 + (createHash('sha256').update(account).digest().readUInt16BE(0) % 50_000);
  const param = (request: FakeRequest, name: string) => request.form.get(name) ?? request.query.get(name);

  function workoutsOf(account: string): WahooFakeWorkout[] {
    const today = Math.floor(fake.clock.now() / DAY_MS);
    const list: WahooFakeWorkout[] = [];
    for (let day = today; day > today - fake.historyDays; day--) {
      const random = seeded(`wahoo|${account}|${day}`);
      if (random.next() < 0.2) continue;
      const startMs = day * DAY_MS + (6 * 60 - fake.offsetMinutes + random.int(0, 600)) * 60_000;
      if (startMs > fake.clock.now()) continue;
      list.push({
        id: day * 10 + 1,
        startMs,
        starts: new Date(startMs).toISOString(),
        seconds: random.int(20, 90) * 60,
        typeId: random.pick([0, 1, 15, 12, 6]),
        account,
      });
    }
    return list;
  }

  const files = new Map<number, ReturnType<typeof buildActivityFit>>();
  /** The workout's FIT file, encoded once (the same bytes every time, like a stored file). */
  function fitOf(workout: WahooFakeWorkout) {
    const cached = files.get(workout.id);
    if (cached) return cached;
    const built = encodeFit(workout);
    files.set(workout.id, built);
    return built;
  }

  function encodeFit(workout: WahooFakeWorkout) {
    const sport = [0, 15, 12].includes(workout.typeId)
      ? 'cycling'
      : workout.typeId === 6
        ? 'walking'
        : 'running';
    const built = buildActivityFit({
      seed: `wahoo-fit|${workout.id}`,
      startMs: workout.startMs,
      durationSeconds: workout.seconds,
      offsetMinutes: fake.offsetMinutes,
      sport,
      stepSeconds: 10,
      dropHeartRateAt: [2, 3],
      omitMaxima: true,
    });
    facts.set(workout.id, built.facts);
    return built;
  }

  const decimal = (value: number) => value.toFixed(2);

  function workoutBody(workout: WahooFakeWorkout) {
    const { facts: f } = fitOf(workout);
    const updated = new Date(workout.startMs + workout.seconds * 1000 + 60_000).toISOString();
    const fileUrl = `https://cdn.wahooligan.com${FILE_PATH}/${workout.account.replace(/\W/g, '')}/${workout.id}.fit`;
    return {
      id: workout.id,
      starts: workout.starts,
      minutes: Math.round(workout.seconds / 60),
      name: 'Cycling',
      plan_id: null,
      workout_token: 'ELEMNT AE48:274',
      workout_type_id: workout.typeId,
      created_at: updated,
      updated_at: updated,
      workout_summary: {
        id: workout.id + 5,
        ascent_accum: decimal(f.ascent),
        cadence_avg: '85.00',
        calories_accum: decimal(workout.seconds / 6),
        distance_accum: decimal(f.distanceMeters),
        duration_active_accum: decimal(workout.seconds - 30),
        duration_paused_accum: '30.00',
        duration_total_accum: decimal(workout.seconds),
        heart_rate_avg: decimal(f.avgHr),
        power_avg: f.maxPower > 0 ? '201.00' : null,
        power_bike_np_last: f.maxPower > 0 ? '215.00' : null,
        power_bike_tss_last: f.maxPower > 0 ? '48.20' : null,
        speed_avg: decimal(f.distanceMeters / workout.seconds),
        work_accum: f.maxPower > 0 ? decimal(201 * workout.seconds) : null,
        created_at: updated,
        updated_at: updated,
        manual: false,
        edited: false,
        file: { url: fileUrl },
      },
    };
  }

  function authorized(request: FakeRequest, scope: string): Grant | FakeReply {
    const result = store.authenticate(request.bearer);
    if ('error' in result) return error(401, 'Unauthorized');
    if (!result.grant.scopes.includes(scope)) return error(403, `Missing scope ${scope}`);
    return result.grant;
  }

  function token(request: FakeRequest): FakeReply {
    if (param(request, 'client_id') !== clientId || param(request, 'client_secret') !== clientSecret) {
      return { status: 401, body: { error: 'invalid_client' } };
    }
    const grantType = param(request, 'grant_type');
    if (grantType === 'authorization_code') {
      const code = param(request, 'code') ?? '';
      const challenge = challenges.get(code);
      challenges.delete(code);
      const pending = store.takeCode(code);
      if (!pending || param(request, 'redirect_uri') !== pending.redirectUri) {
        return { status: 400, body: { error: 'invalid_grant' } };
      }
      if (challenge !== undefined) {
        const verifier = param(request, 'code_verifier') ?? '';
        const computed = createHash('sha256').update(verifier).digest('base64url');
        if (computed !== challenge)
          return { status: 400, body: { error: 'invalid_grant', error_description: 'PKCE' } };
      }
      const grant = store.createGrant(pending.account, pending.scopes, ACCESS_TTL, true);
      return { status: 200, body: tokenBody(grant) };
    }
    if (grantType === 'refresh_token') {
      const found = store.byRefresh(param(request, 'refresh_token') ?? '');
      if (!found || found.retired || found.grant.revoked)
        return { status: 400, body: { error: 'invalid_grant' } };
      store.renewAccess(found.grant, ACCESS_TTL);
      store.rotateRefresh(found.grant, true);
      return { status: 200, body: tokenBody(found.grant) };
    }
    return { status: 400, body: { error: 'unsupported_grant_type' } };
  }

  function tokenBody(grant: Grant) {
    return {
      access_token: grant.accessToken,
      token_type: 'Bearer',
      expires_in: ACCESS_TTL,
      refresh_token: grant.refreshToken,
      scope: grant.scopes.join(' '),
      created_at: Math.floor(fake.clock.now() / 1000),
    };
  }

  const storedRoutes = new Map<number, WahooRoute>();
  let routeIds = 70_000;
  const routes: Route[] = [
    ...wahooRouteRoutes(authorized, storedRoutes, () => ++routeIds),
    {
      method: 'GET',
      path: '/oauth/authorize',
      handler: (request) => {
        const reply = authorizeReply(request, store, consent, { clientId, scopeSeparator: ' ' });
        const challenge = request.query.get('code_challenge');
        const location = reply.headers?.location;
        if (challenge && location) {
          if (request.query.get('code_challenge_method') !== 'S256') return error(400, 'S256 only');
          const code = new URL(location).searchParams.get('code');
          if (code) challenges.set(code, challenge);
        }
        return reply;
      },
    },
    { method: 'POST', path: '/oauth/token', handler: token },
    {
      method: 'DELETE',
      path: '/v1/permissions',
      handler: (request) => {
        const result = store.authenticate(request.bearer);
        if ('error' in result) return error(401, 'Unauthorized');
        store.revokeAccount(result.grant.account);
        return { status: 200, body: { success: true } };
      },
    },
    {
      method: 'GET',
      path: '/v1/user',
      handler: (request) => {
        const grant = authorized(request, 'user_read');
        if (!('account' in grant)) return grant;
        return {
          status: 200,
          body: {
            id: userIdOf(grant.account),
            height: '1.83',
            weight: '74.50',
            first: 'Ada',
            last: 'Rider',
            email: `${grant.account}@example.com`,
            birth: '1990-05-17',
            gender: 1,
            created_at: '2019-03-02T10:00:00.000Z',
            updated_at: '2024-01-01T10:00:00.000Z',
          },
        };
      },
    },
    {
      method: 'GET',
      path: '/v1/workouts',
      handler: (request) => {
        const grant = authorized(request, 'workouts_read');
        if (!('account' in grant)) return grant;
        const page = Number(request.query.get('page') ?? '1');
        const perPage = Math.min(100, Number(request.query.get('per_page') ?? '30'));
        if (!Number.isInteger(page) || page < 1 || !Number.isInteger(perPage) || perPage < 1)
          return error(400, 'Bad page');
        const all = workoutsOf(grant.account);
        return {
          status: 200,
          body: {
            workouts: all.slice((page - 1) * perPage, page * perPage).map(workoutBody),
            total: all.length,
            page,
            per_page: perPage,
            order: 'descending',
            sort: 'starts',
          },
        };
      },
    },
    {
      method: 'GET',
      path: '/v1/workouts/:id',
      handler: (request) => {
        const grant = authorized(request, 'workouts_read');
        if (!('account' in grant)) return grant;
        const workout = workoutsOf(grant.account).find((item) => item.id === Number(request.params.id));
        return workout ? { status: 200, body: workoutBody(workout) } : error(404, 'Not Found');
      },
    },
    {
      method: 'GET',
      path: `${FILE_PATH}/:owner/:file`,
      // The CDN serves the file to whoever has the URL (no bearer token).
      handler: (request) => {
        const id = Number(request.params.file?.replace(/\.fit$/, ''));
        const owner = store.grants.find((grant) => grant.account.replace(/\W/g, '') === request.params.owner);
        const workout = owner ? workoutsOf(owner.account).find((item) => item.id === id) : undefined;
        if (!workout) return { status: 404, body: 'NoSuchKey' };
        // A damaged upload: bytes that are not a FIT file.
        if (fake.damagedFiles.has(workout.id))
          return { status: 200, body: new Uint8Array([0x0e, 0x10, 1, 2, 3]) };
        return { status: 200, body: fitOf(workout).bytes };
      },
    },
  ];

  const rateHeaders = () => ({
    'x-ratelimit-limit': String(fake.limitPer5Minutes),
    'x-ratelimit-remaining': String(Math.max(0, fake.limitPer5Minutes - usage.count)),
    'x-ratelimit-reset': String(300 - (Math.floor(fake.clock.now() / 1000) % 300)),
  });

  const server = await startFakeServer({
    routes,
    gate(request) {
      if (!request.path.startsWith('/v1/')) return null;
      const window = Math.floor(fake.clock.now() / 300_000);
      if (window !== usage.window) {
        usage.window = window;
        usage.count = 0;
      }
      usage.count += 1;
      return usage.count > fake.limitPer5Minutes
        ? { ...error(429, 'Too Many Requests'), headers: rateHeaders() }
        : null;
    },
    everyReply: (request) => (request.path.startsWith('/v1/') ? rateHeaders() : {}),
    faultReply(injected) {
      if (injected.kind === 'unauthorized') return error(401, 'Unauthorized');
      if (injected.kind === 'server_error')
        return { status: injected.status ?? 500, body: { error: 'Internal Server Error' } };
      return {
        ...error(429, 'Too Many Requests'),
        headers: {
          ...rateHeaders(),
          'x-ratelimit-remaining': '0',
          ...(injected.retryAfterSeconds === undefined
            ? {}
            : { 'retry-after': String(injected.retryAfterSeconds) }),
        },
      };
    },
  });
  store = createTokenStore(server.clock, 'wahoo');

  fake = Object.assign(server, {
    clientId,
    clientSecret,
    webhookToken: options.webhookToken ?? `wahoo-webhook-${randomId(12)}`,
    consent,
    offsetMinutes: options.offsetMinutes ?? 120,
    historyDays: options.historyDays ?? 400,
    limitPer5Minutes: 200,
    damagedFiles: new Set<number>(),
    grants: store.grants,
    webhookUrl: null as string | null,
    deliveries: [] as Delivery[],
    expireAccessTokens: () => store.expireAccessTokens(),
    userIdOf,
    workoutsOf,
    routesOf: (account: string) => [...storedRoutes.values()].filter((route) => route.account === account),
    fitFactsOf: (workoutId: number) => facts.get(workoutId) ?? null,
    async notifyWorkout(workoutId: number, notifyOptions: { token?: string } = {}) {
      if (!fake.webhookUrl) throw new Error('no webhook URL set in the portal');
      const workout = workoutsOf(consent.account).find((item) => item.id === workoutId);
      if (!workout) throw new Error(`no workout ${workoutId}`);
      const { workout_summary: summary, ...rest } = workoutBody(workout);
      const body = JSON.stringify({
        event_type: 'workout_summary',
        webhook_token: notifyOptions.token ?? fake.webhookToken,
        user: { id: userIdOf(consent.account) },
        workout_summary: { ...summary, workout: rest },
      });
      const answer = await deliver(fake.webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      fake.deliveries.push(answer);
      return answer;
    },
  });
  return fake;
}
