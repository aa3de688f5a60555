import {
  addDays,
  dayNumberToIsoDate,
  isIsoDate,
  isoDateToDayNumber,
  MS_PER_DAY,
} from '../../src/model/time.ts';
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
  seeded,
  startFakeServer,
} from './fake-server.ts';

/**
 * A local TrainingPeaks Partners API, written from its wiki (github.com/TrainingPeaks/
 * PartnersAPI/wiki) and TrainingPeaks' OAuth example (tp-public-api-auth):
 *
 * - OAuth: `GET /OAuth/Authorize` (space-separated scopes), `POST /oauth/token` with
 *   grant_type, code or refresh_token, client_id and client_secret in the form; answers
 *   `{access_token, token_type, expires_in, refresh_token, scope}`; access tokens last an hour;
 *   a refresh answers a new refresh token and the old one stops working here (the example stores
 *   the new one; whether the old one dies is not documented). `POST /oauth/deauthorize` with the
 *   bearer token removes the authorization.
 * - `GET /v1/athlete/profile`; `GET /v2/workouts/{start}/{end}` (local dates, inclusive) with
 *   planned and completed workouts; `GET /v2/metrics/{start}/{end}` (403 for a basic athlete);
 *   `GET /v2/workouts/changed?date=&pageSize=&page=` (`pageSize` at most 100, `page` from 0,
 *   `date` not before 2000-01-01) answering `{Deleted, Modified}` (deleted workouts' ids and the
 *   modified workouts, "Workouts Get Changed"); `POST /v2/workouts/plan`
 *   (WorkoutDay from 7 days ago to a year ahead, a valid WorkoutType, a basic athlete only today
 *   or earlier: 403); `DELETE /v2/workouts/id/{id}`.
 * - Basic athletes get null for calories, heart rate, power, TSS, IF, elevation, cadence, speed.
 *
 * Edge cases served: an evening workout in America/Denver that is the next day in UTC, a
 * strength session with placeholder zeros, days without metrics, metric entries without some
 * fields, workouts that are only planned.
 */
export type TrainingPeaksFake = FakeServer & {
  clientId: string;
  clientSecret: string;
  consent: Consent;
  grants: Grant[];
  /** Accounts whose athlete is basic (not premium). */
  basic: Set<string>;
  /** Workouts created through the API, by id. */
  planned: Map<number, Record<string, unknown>>;
  athleteIdOf(account: string): number;
  /** Marks the workouts of a local day as modified now (the next `changed` poll names them). */
  modify(date: string, account?: string): void;
  /** The athlete deletes a workout now: gone from the lists, its id in `Deleted` of the changes. */
  deleteWorkout(id: number, account?: string): void;
  expireAccessTokens(): void;
};

export const TP_FAKE_TIMEZONE = 'America/Denver';
const ACCESS_TTL = 3600;
const WORKOUT_TYPES = [
  'swim',
  'bike',
  'run',
  'x-train',
  'mtb',
  'strength',
  'xc-ski',
  'rowing',
  'walk',
  'other',
];
const PREMIUM_ONLY = [
  'Calories',
  'HeartRateAverage',
  'HeartRateMaximum',
  'HeartRateMinimum',
  'PowerAverage',
  'PowerMaximum',
  'NormalizedPower',
  'TssActual',
  'IF',
  'ElevationGain',
  'ElevationLoss',
  'CadenceAverage',
  'VelocityAverage',
  'VelocityMaximum',
];

/** Mountain time: -06:00 from the second Sunday of March to the first Sunday of November, else -07:00. */
function denverOffset(date: string): number {
  const month = Number(date.slice(5, 7));
  return month > 3 && month < 11 ? -360 : -420;
}

export async function startTrainingPeaksFake(): Promise<TrainingPeaksFake> {
  const clientId = `tp-client-${randomId(4)}`;
  const clientSecret = `tp-secret-${randomId(12)}`;
  const consent: Consent = { account: 'account-1', deny: false, grantScopes: null };
  const basic = new Set<string>();
  const planned = new Map<number, Record<string, unknown>>();
  const modified: { account: string; date: string; at: number }[] = [];
  /** Deleted workouts: gone from every list, named in `Deleted` of the changes since before `at`. */
  const deleted: { account: string; id: number; at: number }[] = [];
  let nextId = 700_000_000;
  let fake: TrainingPeaksFake;
  let store: ReturnType<typeof createTokenStore>;

  const problem = (status: number, message: string): FakeReply => ({ status, body: { Message: message } });
  const athleteIdOf = (account: string) => 100_000 + seeded(`tp|${account}`).int(0, 899_999);
  const localToday = () => {
    const utc = dayNumberToIsoDate(Math.floor(fake.clock.now() / MS_PER_DAY));
    return dayNumberToIsoDate(Math.floor((fake.clock.now() + denverOffset(utc) * 60_000) / MS_PER_DAY));
  };

  function authorized(request: FakeRequest, scope?: string): Grant | FakeReply {
    const result = store.authenticate(request.bearer);
    if ('error' in result) return problem(401, 'Authorization has been denied for this request.');
    if (scope && !result.grant.scopes.includes(scope)) return problem(403, `scope ${scope} required`);
    return result.grant;
  }

  function tokenReply(grant: Grant): FakeReply {
    return {
      status: 200,
      body: {
        access_token: grant.accessToken,
        token_type: 'bearer',
        expires_in: ACCESS_TTL,
        refresh_token: grant.refreshToken,
        scope: grant.scopes.join(' '),
      },
    };
  }

  function token(request: FakeRequest): FakeReply {
    const form = request.form;
    if (form.get('client_id') !== clientId || form.get('client_secret') !== clientSecret)
      return { status: 400, body: { error: 'invalid_client' } };
    if (form.get('grant_type') === 'authorization_code') {
      const pending = store.takeCode(form.get('code') ?? '');
      if (!pending || pending.redirectUri !== form.get('redirect_uri'))
        return { status: 400, body: { error: 'invalid_grant' } };
      return tokenReply(store.createGrant(pending.account, pending.scopes, ACCESS_TTL, true));
    }
    if (form.get('grant_type') === 'refresh_token') {
      const found = store.byRefresh(form.get('refresh_token') ?? '');
      if (!found || found.retired || found.grant.revoked)
        return { status: 400, body: { error: 'invalid_grant' } };
      store.renewAccess(found.grant, ACCESS_TTL);
      store.rotateRefresh(found.grant, true);
      return tokenReply(found.grant);
    }
    return { status: 400, body: { error: 'unsupported_grant_type' } };
  }

  function deauthorize(request: FakeRequest): FakeReply {
    const grant = authorized(request);
    if (!('account' in grant)) return grant;
    store.revoke(grant);
    return { status: 200 };
  }

  function profile(request: FakeRequest): FakeReply {
    const grant = authorized(request, 'athlete:profile');
    if (!('account' in grant)) return grant;
    return {
      status: 200,
      body: {
        Id: athleteIdOf(grant.account),
        FirstName: 'Test',
        LastName: 'Athlete',
        Email: 'athlete@example.test',
        TimeZone: TP_FAKE_TIMEZONE,
        BirthMonth: '1985-06',
        Sex: 'm',
        Weight: 72.4,
        IsPremium: !basic.has(grant.account),
        PreferredUnits: 'Metric',
      },
    };
  }

  /** The calendar of one local day: completed workouts in the past, planned ones ahead. */
  function workoutsOn(account: string, date: string): Record<string, unknown>[] {
    const random = seeded(`tp|${account}|${date}`);
    const day = isoDateToDayNumber(date);
    const list: Record<string, unknown>[] = [];
    const athleteId = athleteIdOf(account);
    // Past days were done, except every ninth, a planned workout the athlete skipped.
    const completed = date < localToday() && isoDateToDayNumber(date) % 9 !== 0;
    const kind = day % 4;
    const type = ['bike', 'run', 'strength', 'swim'][kind]!;
    // Evening sessions at 21:30 Denver time fall on the next UTC day.
    const start = kind === 1 ? '21:30:00' : `0${random.int(6, 9)}:15:00`;
    const base = {
      Id: day * 10,
      AthleteId: athleteId,
      WorkoutDay: `${date}T00:00:00`,
      WorkoutType: type,
      Title: `${type} ${date}`,
      TotalTimePlanned: 1,
      TssPlanned: 60,
      IFPlanned: 0.75,
      LastModifiedDate: `${date}T23:00:00Z`,
    };
    if (completed) {
      const hours = random.between(0.5, 2);
      const workout: Record<string, unknown> = {
        ...base,
        StartTime: `${date}T${start}`,
        Completed: true,
        TotalTime: hours,
        Distance: type === 'strength' ? 0 : Math.round(hours * 3600 * random.between(2.5, 9)),
        Calories: random.int(300, 1100),
        Energy: type === 'bike' ? random.int(400, 1200) : null,
        HeartRateAverage: type === 'strength' ? 0 : random.int(120, 160),
        HeartRateMaximum: type === 'strength' ? 0 : random.int(165, 185),
        PowerAverage: type === 'bike' ? random.int(150, 250) : null,
        NormalizedPower: type === 'bike' ? random.int(160, 270) : null,
        TssActual: random.int(20, 140),
        TssCalculationMethod: type === 'bike' ? 'Power' : 'HeartRate',
        IF: random.between(0.6, 0.95),
        VelocityAverage: type === 'strength' ? 0 : random.between(2, 9),
        CadenceAverage: type === 'strength' ? 0 : random.int(75, 95),
        ElevationGain: type === 'bike' || type === 'run' ? random.int(0, 600) : null,
      };
      if (basic.has(account)) for (const field of PREMIUM_ONLY) workout[field] = null;
      list.push(workout);
    } else {
      list.push(base);
    }
    if (kind === 3)
      list.push({ ...base, Id: day * 10 + 1, WorkoutType: 'day off', Title: 'Rest', TotalTimePlanned: null });
    for (const workout of planned.values())
      if (workout.account === account && String(workout.WorkoutDay).startsWith(date)) {
        const { account: _a, ...rest } = workout;
        list.push(rest);
      }
    const gone = new Set(deleted.filter((entry) => entry.account === account).map((entry) => entry.id));
    return list.filter((workout) => !gone.has(Number(workout.Id)));
  }

  function dateRange(request: FakeRequest): { start: string; end: string } | FakeReply {
    const start = request.params.start ?? '';
    const end = request.params.end ?? '';
    if (!isIsoDate(start) || !isIsoDate(end) || end < start)
      return problem(400, 'start and end are dates, start first');
    return { start, end };
  }

  function workouts(request: FakeRequest): FakeReply {
    const grant = authorized(request, 'workouts:read');
    if (!('account' in grant)) return grant;
    const range = dateRange(request);
    if (!('start' in range)) return range;
    const withDescription = request.query.get('includeDescription') === 'true';
    const list = [];
    for (let date = range.start; date <= range.end; date = addDays(date, 1)) {
      for (const workout of workoutsOn(grant.account, date)) {
        const { Description: _description, ...rest } = workout;
        list.push(withDescription ? workout : rest);
      }
    }
    return { status: 200, body: list };
  }

  function metrics(request: FakeRequest): FakeReply {
    const grant = authorized(request, 'metrics:read');
    if (!('account' in grant)) return grant;
    if (basic.has(grant.account)) return problem(403, 'Premium athlete required');
    const range = dateRange(request);
    if (!('start' in range)) return range;
    const list = [];
    for (let date = range.start; date <= range.end && date <= localToday(); date = addDays(date, 1)) {
      const day = isoDateToDayNumber(date);
      if (day % 6 === 5) continue; // nothing logged
      const random = seeded(`tp-metrics|${grant.account}|${date}`);
      const athleteId = athleteIdOf(grant.account);
      list.push({
        MetricId: `${randomIdOf(date, 'a')}`,
        AthleteId: athleteId,
        DateTime: `${date}T06:10:00`,
        UploadClient: 'Garmin',
        WeightInKilograms: Math.round(random.between(71, 74) * 10) / 10,
        Pulse: random.int(44, 55),
        HRV: Math.round(random.between(50, 90) * 10) / 10,
        SleepHours: day % 6 === 4 ? undefined : Math.round(random.between(5.5, 9) * 100) / 100,
        SleepQuality: 'Good',
      });
      list.push({
        MetricId: randomIdOf(date, 'b'),
        AthleteId: athleteId,
        DateTime: `${date}T22:45:00`,
        UploadClient: 'Garmin',
        Steps: random.int(3000, 18000),
        Stress: 'Low',
      });
    }
    return { status: 200, body: list };
  }
  const randomIdOf = (date: string, suffix: string) =>
    `${seeded(`${date}${suffix}`).int(0, 0xffffffff).toString(16).padStart(8, '0')}-0000-4000-8000-${isoDateToDayNumber(date).toString(16).padStart(12, '0')}`;

  function changed(request: FakeRequest): FakeReply {
    const grant = authorized(request, 'workouts:read');
    if (!('account' in grant)) return grant;
    const since = Date.parse(request.query.get('date') ?? '');
    if (Number.isNaN(since) || since < Date.parse('2000-01-01T00:00:00Z'))
      return problem(400, 'date is required, not before 2000-01-01');
    const pageSize = Number(request.query.get('pageSize') ?? 50);
    const page = Number(request.query.get('page') ?? 0);
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 100)
      return problem(400, 'pageSize is 1 to 100');
    if (!Number.isInteger(page) || page < 0) return problem(400, 'page is zero-based');
    const days = [
      ...new Set(
        modified
          .filter((entry) => entry.account === grant.account && entry.at > since)
          .map((entry) => entry.date),
      ),
    ];
    const list = days.flatMap((date) =>
      workoutsOn(grant.account, date).map((workout) => ({
        LastModifiedDate: new Date(fake.clock.now()).toISOString(),
        Id: workout.Id,
        AthleteId: workout.AthleteId,
        WorkoutType: workout.WorkoutType,
        Title: workout.Title,
        WorkoutDay: workout.WorkoutDay,
      })),
    );
    // "Workouts Get Changed": two lists, the ids of deleted workouts and the modified workouts.
    const gone = deleted
      .filter((entry) => entry.account === grant.account && entry.at > since)
      .map((entry) => entry.id);
    return {
      status: 200,
      body: {
        Deleted: gone.slice(page * pageSize, (page + 1) * pageSize),
        Modified: list.slice(page * pageSize, (page + 1) * pageSize),
      },
    };
  }

  function plan(request: FakeRequest): FakeReply {
    const grant = authorized(request, 'workouts:plan');
    if (!('account' in grant)) return grant;
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(request.body) as Record<string, unknown>;
    } catch {
      return problem(400, 'body is not JSON');
    }
    if (Number(body.AthleteId) !== athleteIdOf(grant.account))
      return problem(403, 'not allowed to plan for this athlete');
    const day = String(body.WorkoutDay ?? '').slice(0, 10);
    if (!isIsoDate(day)) return problem(400, 'WorkoutDay is required');
    const today = localToday();
    if (day < addDays(today, -7) || day > addDays(today, 365)) return problem(400, 'WorkoutDay out of range');
    if (!WORKOUT_TYPES.includes(String(body.WorkoutType))) return problem(400, 'invalid WorkoutType');
    if (basic.has(grant.account) && day > today)
      return problem(403, 'basic athletes cannot have future workouts planned');
    if (body.Structure !== undefined) {
      let structure: unknown;
      try {
        structure = JSON.parse(String(body.Structure));
      } catch {
        return problem(400, 'Structure is not valid JSON');
      }
      if (!Array.isArray(structure)) return problem(400, 'Structure is a JSON array');
      const refused = structureProblem(structure);
      if (refused) return problem(400, refused);
    }
    const id = nextId++;
    const workout = { ...body, Id: id, WorkoutDay: `${day}T00:00:00`, account: grant.account };
    planned.set(id, workout);
    const { account: _a, ...answer } = workout;
    return { status: 201, body: answer };
  }

  /**
   * The Structure forms the wiki shows (Workouts Create, Workouts Update example): steps `{Type:
   * "Step", Length: {Unit: "Second", Value}}`, repeats `{Type: "Repetition", Length: {Unit:
   * "Repetition", Value}, Steps}`, `CadenceTarget {Unit: "rpm", MinValue, MaxValue}` and
   * `IntensityTarget {Unit: "PercentOfThresholdHr", Value[, MinValue, MaxValue]}`. Anything else is
   * refused here: the wiki documents no other unit, so a partner cannot rely on one.
   */
  function structureProblem(steps: unknown[], depth = 0): string | null {
    type Part = { Unit?: unknown; Value?: unknown } | undefined;
    type StepBody = {
      Type?: unknown;
      Length?: Part;
      Steps?: unknown;
      IntensityTarget?: Part;
      CadenceTarget?: Part;
    };
    for (const step of steps as (StepBody | null)[]) {
      if (step?.Type === 'Repetition' && depth === 0) {
        if (step.Length?.Unit !== 'Repetition') return 'a Repetition is counted in Repetition';
        if (!Array.isArray(step.Steps)) return 'a Repetition has Steps';
        const problemInside = structureProblem(step.Steps, depth + 1);
        if (problemInside) return problemInside;
        continue;
      }
      if (step?.Type !== 'Step') return `unknown step Type ${String(step?.Type)}`;
      if (step.Length?.Unit !== 'Second' || typeof step.Length.Value !== 'number')
        return 'a Step lasts a Length in Second';
      const intensity = step.IntensityTarget;
      if (intensity && (intensity.Unit !== 'PercentOfThresholdHr' || typeof intensity.Value !== 'number'))
        return `IntensityTarget Unit ${String(intensity.Unit)} is not documented`;
      const cadence = step.CadenceTarget;
      if (cadence && cadence.Unit !== 'rpm')
        return `CadenceTarget Unit ${String(cadence.Unit)} is not documented`;
    }
    return null;
  }

  function remove(request: FakeRequest): FakeReply {
    const grant = authorized(request, 'workouts:plan');
    if (!('account' in grant)) return grant;
    const id = Number(request.params.id);
    const workout = planned.get(id);
    if (!workout || workout.account !== grant.account) return problem(404, 'workout not found');
    planned.delete(id);
    deleted.push({ account: grant.account, id, at: fake.clock.now() });
    return { status: 200 };
  }

  const routes: Route[] = [
    {
      method: 'GET',
      path: '/OAuth/Authorize',
      handler: (request) => authorizeReply(request, store, consent, { clientId, scopeSeparator: ' ' }),
    },
    { method: 'POST', path: '/oauth/token', handler: token },
    { method: 'POST', path: '/oauth/deauthorize', handler: deauthorize },
    { method: 'GET', path: '/v1/athlete/profile', handler: profile },
    { method: 'GET', path: '/v2/workouts/changed', handler: changed },
    { method: 'GET', path: '/v2/workouts/:start/:end', handler: workouts },
    { method: 'GET', path: '/v2/metrics/:start/:end', handler: metrics },
    { method: 'POST', path: '/v2/workouts/plan', handler: plan },
    { method: 'DELETE', path: '/v2/workouts/id/:id', handler: remove },
  ];

  const server = await startFakeServer({
    routes,
    faultReply(injected) {
      if (injected.kind === 'unauthorized')
        return problem(401, 'Authorization has been denied for this request.');
      if (injected.kind === 'server_error') return problem(injected.status ?? 500, 'An error has occurred.');
      return {
        ...problem(429, 'Too many requests'),
        headers: { 'retry-after': String(injected.retryAfterSeconds ?? 1) },
      };
    },
  });
  store = createTokenStore(server.clock, 'tp');

  fake = Object.assign(server, {
    clientId,
    clientSecret,
    consent,
    grants: store.grants,
    basic,
    planned,
    athleteIdOf,
    modify(date: string, account = consent.account) {
      modified.push({ account, date, at: server.clock.now() });
    },
    deleteWorkout(id: number, account = consent.account) {
      deleted.push({ account, id, at: server.clock.now() });
    },
    expireAccessTokens: () => store.expireAccessTokens(),
  });
  return fake;
}
