import { createHash, createHmac } from 'node:crypto';
import {
  authorizeReply,
  basicCredentials,
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
import { buildActivityFit } from './fit-files.ts';

/**
 * A faithful local Suunto Cloud API behind its API Management gateway (providers-3.md §5):
 * OAuth with HTTP Basic client auth at the token endpoint, JWT access tokens carrying the
 * `user` claim (also in the token answer, with `expires_in: 86399`), rotating refresh tokens;
 * every API call refused with 401 unless it carries the subscription key
 * (`Ocp-Apim-Subscription-Key`); GET /v2/workouts (`since`/`until` epoch ms, `limit`,
 * `offset`, `{ error, metadata, payload }`), GET /v2/workout/exportFit/{key} (a FIT file);
 * 429 with Retry-After; WORKOUT_CREATED webhooks signed with hex HMAC-SHA256 of the body in
 * `X-HMAC-SHA256-Signature`. Point `SUUNTO_BASE_URL` at `baseUrl`.
 */
export type SuuntoFake = FakeServer & {
  clientId: string;
  clientSecret: string;
  subscriptionKey: string;
  notificationSecret: string;
  consent: Consent;
  offsetMinutes: number;
  historyDays: number;
  grants: Grant[];
  webhookUrl: string | null;
  deliveries: Delivery[];
  expireAccessTokens(): void;
  usernameOf(account: string): string;
  workoutsOf(account: string): SuuntoFakeWorkout[];
  /** POSTs WORKOUT_CREATED for a workout, signed with the notification secret (or `secret`). */
  notifyWorkout(workoutKey: string, options?: { secret?: string }): Promise<Delivery>;
};

export type SuuntoFakeWorkout = { workoutKey: string; startMs: number; seconds: number; activityId: number };

const DAY_MS = 86_400_000;
const ACCESS_TTL = 86_399;
const gatewayError = (status: number, message: string): FakeReply => ({
  status,
  body: { statusCode: status, message },
});

export async function startSuuntoFake(
  options: {
    historyDays?: number;
    offsetMinutes?: number;
    notificationSecret?: string;
    subscriptionKey?: string;
  } = {},
): Promise<SuuntoFake> {
  const clientId = `suunto-${randomId(8)}`;
  const clientSecret = `suunto-secret-${randomId(12)}`;
  const consent: Consent = { account: 'account-1', deny: false, grantScopes: null };
  const files = new Map<string, Uint8Array>();
  let fake: SuuntoFake;
  let store: ReturnType<typeof createTokenStore>;

  const usernameOf = (account: string) =>
    `user${createHash('sha256').update(account).digest('hex').slice(0, 8)}`;

  function workoutsOf(account: string): SuuntoFakeWorkout[] {
    const today = Math.floor(fake.clock.now() / DAY_MS);
    const list: SuuntoFakeWorkout[] = [];
    for (let day = today - fake.historyDays; day <= today; day++) {
      const random = seeded(`suunto|${account}|${day}`);
      if (random.next() < 0.25) continue;
      const startMs = day * DAY_MS + (7 * 60 - fake.offsetMinutes + random.int(0, 540)) * 60_000;
      if (startMs > fake.clock.now()) continue;
      list.push({
        workoutKey: createHash('sha256').update(`${account}|${day}`).digest('hex').slice(0, 24),
        startMs,
        seconds: random.int(25, 80) * 60,
        activityId: random.pick([1, 2, 11, 22]),
      });
    }
    return list;
  }

  /** One night a day (a nap now and then, recorded without heart rate). */
  function sleepsOf(account: string) {
    const today = Math.floor(fake.clock.now() / DAY_MS);
    const nights = [];
    for (let day = today - fake.historyDays; day < today; day++) {
      const random = seeded(`suunto-sleep|${account}|${day}`);
      const startMs = day * DAY_MS + (23 * 60 - fake.offsetMinutes + random.int(-60, 60)) * 60_000;
      const deep = random.int(60, 100) * 60;
      const light = random.int(200, 280) * 60;
      const rem = random.int(60, 110) * 60;
      const inBed = deep + light + rem + random.int(10, 40) * 60;
      const nap = random.next() < 0.1;
      const local = (ms: number) => {
        const shifted = new Date(ms + fake.offsetMinutes * 60_000).toISOString().slice(0, 23);
        const sign = fake.offsetMinutes < 0 ? '-' : '+';
        const abs = Math.abs(fake.offsetMinutes);
        return `${shifted}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
      };
      nights.push({
        startMs,
        body: {
          timestamp: local(startMs),
          entryData: {
            BedtimeStart: local(startMs),
            BedtimeEnd: local(startMs + inBed * 1000),
            Duration: inBed,
            DeepSleepDuration: deep,
            LightSleepDuration: light,
            REMSleepDuration: rem,
            HRAvg: nap ? 0 : random.int(52, 64),
            HRMin: nap ? 0 : random.int(42, 51),
            SleepQualityScore: random.int(55, 92),
            IsNap: nap,
            SleepId: Math.floor(startMs / 1000),
          },
        },
      });
    }
    return nights;
  }

  function fitOf(workout: SuuntoFakeWorkout) {
    let bytes = files.get(workout.workoutKey);
    if (!bytes) {
      bytes = buildActivityFit({
        seed: `suunto-fit|${workout.workoutKey}`,
        startMs: workout.startMs,
        durationSeconds: workout.seconds,
        offsetMinutes: fake.offsetMinutes,
        sport: workout.activityId === 2 ? 'cycling' : workout.activityId === 11 ? 'walking' : 'running',
        stepSeconds: 10,
        manufacturer: 'suunto',
        startLatLng: [60.27185791, 24.97242731],
      }).bytes;
      files.set(workout.workoutKey, bytes);
    }
    return bytes;
  }

  function workoutBody(workout: SuuntoFakeWorkout) {
    const random = seeded(`suunto-doc|${workout.workoutKey}`);
    const distance = Math.round(workout.seconds * random.between(2.2, 3.4));
    return {
      workoutId: Number.parseInt(workout.workoutKey.slice(0, 8), 16),
      workoutKey: workout.workoutKey,
      activityId: workout.activityId,
      startTime: workout.startMs,
      stopTime: workout.startMs + workout.seconds * 1000,
      totalTime: workout.seconds,
      timeOffsetInMinutes: fake.offsetMinutes,
      totalDistance: distance,
      totalAscent: Math.round(random.between(20, 300) * 10) / 10,
      totalDescent: Math.round(random.between(20, 300) * 10) / 10,
      maxAltitude: 110.5,
      minAltitude: 12.1,
      startPosition: { x: 24.97242731, y: 60.27185791 },
      maxSpeed: Math.round(random.between(4, 7) * 100) / 100,
      avgSpeed: Math.round((distance / workout.seconds) * 100) / 100,
      stepCount: workout.activityId === 2 ? null : Math.round(workout.seconds * 2.7),
      recoveryTime: 36_000,
      energyConsumption: Math.round(workout.seconds / 6),
      hrdata: { workoutAvgHR: random.int(120, 150), workoutMaxHR: random.int(160, 185), userMaxHR: 192 },
      cadence: { avg: 82, max: 96 },
      tss: { calculationMethod: 'HR', trainingStressScore: Math.round(random.between(30, 90) * 10) / 10 },
      extensionTypes: ['FitnessExtension', 'SummaryExtension'],
      isEdited: false,
      isManuallyAdded: false,
    };
  }

  /** The gateway's key check, then the bearer token. */
  function authorized(request: FakeRequest): Grant | FakeReply {
    if (request.headers['ocp-apim-subscription-key'] !== fake.subscriptionKey) {
      return gatewayError(401, 'Access denied due to missing subscription key.');
    }
    const result = store.authenticate(request.bearer);
    if ('error' in result) return gatewayError(401, 'Unauthorized');
    return result.grant;
  }

  function tokenBody(grant: Grant) {
    return {
      access_token: grant.accessToken,
      token_type: 'bearer',
      refresh_token: grant.refreshToken,
      expires_in: ACCESS_TTL,
      scope: 'workout',
      ukv: '1',
      uk: randomId(6),
      user: usernameOf(grant.account),
      jti: randomId(8),
    };
  }

  function token(request: FakeRequest): FakeReply {
    const client = basicCredentials(request.headers);
    if (client?.id !== clientId || client.secret !== clientSecret) {
      return { status: 401, body: { error: 'unauthorized', error_description: 'Bad client credentials' } };
    }
    const grantType = request.form.get('grant_type');
    if (grantType === 'authorization_code') {
      const pending = store.takeCode(request.form.get('code') ?? '');
      if (!pending || request.form.get('redirect_uri') !== pending.redirectUri)
        return { status: 400, body: { error: 'invalid_grant' } };
      const grant = store.createGrant(pending.account, pending.scopes, ACCESS_TTL, true);
      return { status: 200, body: tokenBody(grant) };
    }
    if (grantType === 'refresh_token') {
      const found = store.byRefresh(request.form.get('refresh_token') ?? '');
      if (!found || found.retired || found.grant.revoked)
        return { status: 400, body: { error: 'invalid_grant' } };
      store.renewAccess(found.grant, ACCESS_TTL);
      store.rotateRefresh(found.grant, true);
      return { status: 200, body: tokenBody(found.grant) };
    }
    return { status: 400, body: { error: 'unsupported_grant_type' } };
  }

  const routes: Route[] = [
    {
      method: 'GET',
      path: '/oauth/authorize',
      handler: (request) => authorizeReply(request, store, consent, { clientId, scopeSeparator: ' ' }),
    },
    { method: 'POST', path: '/oauth/token', handler: token },
    {
      method: 'GET',
      path: '/v2/workouts',
      handler: (request) => {
        const grant = authorized(request);
        if (!('account' in grant)) return grant;
        const since = Number(request.query.get('since') ?? '0');
        const until = Number(request.query.get('until') ?? String(fake.clock.now()));
        const limit = Math.min(100, Number(request.query.get('limit') ?? '100'));
        const offset = Number(request.query.get('offset') ?? '0');
        if (![since, until, limit, offset].every(Number.isFinite) || limit < 1 || offset < 0)
          return {
            status: 400,
            body: { error: { code: 400, description: 'Bad parameters' }, payload: null },
          };
        const matching = workoutsOf(grant.account).filter(
          (item) => item.startMs >= since && item.startMs < until,
        );
        return {
          status: 200,
          body: {
            error: null,
            metadata: { workoutcount: String(matching.length), until: String(until) },
            payload: matching.slice(offset, offset + limit).map(workoutBody),
          },
        };
      },
    },
    {
      method: 'GET',
      path: '/247samples/sleep',
      handler: (request) => {
        const grant = authorized(request);
        if (!('account' in grant)) return grant;
        const from = Number(request.query.get('from'));
        const to = Number(request.query.get('to'));
        if (!Number.isFinite(from) || !Number.isFinite(to) || to < from || to - from > 28 * DAY_MS)
          return gatewayError(400, 'from/to must be epoch ms at most 28 days apart');
        return {
          status: 200,
          body: sleepsOf(grant.account)
            .filter((sample) => sample.startMs >= from && sample.startMs < to)
            .map((sample) => sample.body),
        };
      },
    },
    {
      method: 'GET',
      path: '/v2/workout/exportFit/:key',
      handler: (request) => {
        const grant = authorized(request);
        if (!('account' in grant)) return grant;
        const workout = workoutsOf(grant.account).find((item) => item.workoutKey === request.params.key);
        return workout ? { status: 200, body: fitOf(workout) } : gatewayError(404, 'Workout not found');
      },
    },
  ];

  const server = await startFakeServer({
    routes,
    faultReply(injected) {
      if (injected.kind === 'unauthorized') return gatewayError(401, 'Unauthorized');
      if (injected.kind === 'server_error')
        return gatewayError(injected.status ?? 500, 'Internal server error');
      return {
        ...gatewayError(429, 'Rate limit is exceeded. Try again in 1 seconds.'),
        headers: { 'retry-after': String(injected.retryAfterSeconds ?? 1) },
      };
    },
  });
  store = createTokenStore(server.clock, 'suunto');

  fake = Object.assign(server, {
    clientId,
    clientSecret,
    subscriptionKey: options.subscriptionKey ?? `apim-${randomId(16)}`,
    notificationSecret: options.notificationSecret ?? `suunto-notify-${randomId(12)}`,
    consent,
    offsetMinutes: options.offsetMinutes ?? 120,
    historyDays: options.historyDays ?? 400,
    grants: store.grants,
    webhookUrl: null as string | null,
    deliveries: [] as Delivery[],
    expireAccessTokens: () => store.expireAccessTokens(),
    usernameOf,
    workoutsOf,
    async notifyWorkout(workoutKey: string, notifyOptions: { secret?: string } = {}) {
      if (!fake.webhookUrl) throw new Error('no notification URL set in API Zone');
      const workout = workoutsOf(consent.account).find((item) => item.workoutKey === workoutKey);
      if (!workout) throw new Error(`no workout ${workoutKey}`);
      const body = JSON.stringify({
        type: 'WORKOUT_CREATED',
        username: usernameOf(consent.account),
        workout: workoutBody(workout),
        gear: { manufacturer: 'Suunto', name: 'Suunto Vertical', productType: 'SPORT_WATCH' },
      });
      const signature = createHmac('sha256', notifyOptions.secret ?? fake.notificationSecret)
        .update(body)
        .digest('hex');
      const answer = await deliver(fake.webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-hmac-sha256-signature': signature },
        body,
      });
      fake.deliveries.push(answer);
      return answer;
    },
  });
  return fake;
}
