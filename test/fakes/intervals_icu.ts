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
  deliver,
  type Delivery,
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
 * A local Intervals.icu, written from its public documentation (docs/providers.md#intervalsicu):
 *
 * - OAuth (forum t/2759): `GET /oauth/authorize` with comma-separated scopes; `POST
 *   /api/oauth/token` with client_id, client_secret and the code in the form body, the code good
 *   for 2 minutes and once; the answer is `{token_type, access_token, scope, athlete: {id,
 *   name}}`, with no refresh token and no expiry (tokens live until the athlete disconnects).
 *   `DELETE /api/v1/disconnect-app` (OpenAPI) ends the grant of the bearer token.
 * - Data (OpenAPI document, intervals.icu/api/v1/docs): athlete id `0` is the token's athlete;
 *   `/activities` needs `oldest` (local date or date-time), takes `newest` (default now) and
 *   `limit`, and answers newest first; `/wellness` takes `oldest`/`newest` (inclusive) and answers
 *   one record per day that has any; `/events` filters by `category`, `oldest`, `newest`
 *   (inclusive); a POSTed event's date must be local midnight (`…T00:00:00`, forum t/609).
 * - Errors are `{status, error}`; the rate limit is 10 requests a second per IP (forum t/609),
 *   answered 429 with Retry-After here.
 * - Webhooks: `{secret, events: [{athlete_id, type, timestamp, …}]}` POSTed to the app's URL.
 *
 * Edge cases served: activities without `start_date` (placed by the athlete's zone) or without
 * heart rate; Strava stubs (an id, a local start and the source, nothing else); 0 placeholders on strength sessions (distance, heart rate, cadence); activities
 * just after local midnight in a +13:00 zone (the previous UTC day); wellness days with nothing
 * entered, days with zeros, days with only some fields.
 */
export type IntervalsIcuFake = FakeServer & {
  clientId: string;
  clientSecret: string;
  consent: Consent;
  grants: Grant[];
  /** Where webhooks go, and the secret configured in Manage App. */
  webhookUrl: string | null;
  webhookSecret: string;
  /** The athlete id (`i…`) of an account. */
  athleteIdOf(account: string): string;
  /** Planned workouts created through the API, by event id. */
  events: Map<number, Record<string, unknown>>;
  /** Posts one webhook delivery with `events`; `secret` defaults to the configured one. */
  notify(events: Record<string, unknown>[], secret?: string): Promise<Delivery>;
  /** The activities the fake holds for an account on a local day. */
  activitiesOn(account: string, date: string): Record<string, unknown>[];
  expireAccessTokens(): void;
};

/** The athlete's zone: NZDT (+13:00) in November, so a local morning is the previous UTC day. */
export const INTERVALS_FAKE_TIMEZONE = 'Pacific/Auckland';
const CODE_TTL_MS = 2 * 60_000;
const SPORTS = ['Ride', 'Run', 'VirtualRide', 'WeightTraining', 'Swim'] as const;

export async function startIntervalsIcuFake(
  options: { webhookSecret?: string } = {},
): Promise<IntervalsIcuFake> {
  const clientId = String(1000 + Math.floor(Math.random() * 9000));
  const clientSecret = `intervals-secret-${randomId(12)}`;
  const consent: Consent = { account: 'account-1', deny: false, grantScopes: null };
  const codeIssued = new Map<string, number>();
  const events = new Map<number, Record<string, unknown>>();
  let nextEventId = 90_000_000;
  let fake: IntervalsIcuFake;
  let store: ReturnType<typeof createTokenStore>;

  const problem = (status: number, error: string): FakeReply => ({ status, body: { status, error } });
  const athleteIdOf = (account: string) => `i${100_000 + (seeded(account).int(0, 899_999) | 0)}`;

  function authorized(request: FakeRequest): Grant | FakeReply {
    const result = store.authenticate(request.bearer);
    return 'error' in result ? problem(401, 'Unauthorized') : result.grant;
  }
  /** Athlete `0` or the grant's own id; another athlete's data is refused. */
  function athleteOf(request: FakeRequest): Grant | FakeReply {
    const grant = authorized(request);
    if (!('account' in grant)) return grant;
    const id = request.params.id;
    if (id !== '0' && id !== athleteIdOf(grant.account)) return problem(403, 'Access denied');
    return grant;
  }
  const hasScope = (grant: Grant, area: string, write = false) =>
    grant.scopes.includes(`${area}:WRITE`) || (!write && grant.scopes.includes(`${area}:READ`));

  function token(request: FakeRequest): FakeReply {
    const form = request.form;
    if (form.get('client_id') !== clientId || form.get('client_secret') !== clientSecret)
      return problem(401, 'invalid client_id or client_secret');
    const code = form.get('code') ?? '';
    const issued = codeIssued.get(code);
    const pending = store.takeCode(code);
    if (!pending || issued === undefined) return problem(400, 'invalid code');
    if (fake.clock.now() - issued > CODE_TTL_MS) return problem(400, 'code expired');
    const grant = store.createGrant(pending.account, pending.scopes, 10 * 365 * 86_400, false);
    return {
      status: 200,
      body: {
        token_type: 'Bearer',
        access_token: grant.accessToken,
        scope: grant.scopes.join(','),
        athlete: { id: athleteIdOf(grant.account), name: 'Test Athlete' },
      },
    };
  }

  function disconnect(request: FakeRequest): FakeReply {
    const grant = authorized(request);
    if (!('account' in grant)) return grant;
    store.revoke(grant);
    return { status: 200, body: {} };
  }

  function profile(request: FakeRequest): FakeReply {
    const grant = athleteOf(request);
    if (!('account' in grant)) return grant;
    return {
      status: 200,
      body: {
        id: athleteIdOf(grant.account),
        name: 'Test Athlete',
        firstname: 'Test',
        lastname: 'Athlete',
        sex: 'F',
        city: 'Wellington',
        country: 'New Zealand',
        timezone: INTERVALS_FAKE_TIMEZONE,
        icu_date_of_birth: '1990-04-02',
        icu_activated: '2021-03-01T10:00:00.000+00:00',
        icu_weight: 61.5,
        icu_resting_hr: 48,
      },
    };
  }

  /** The local wall time `minutes` after local midnight of `date`, and that instant in UTC. */
  function wallAndUtc(date: string, minutes: number) {
    const wallMs = isoDateToDayNumber(date) * MS_PER_DAY + minutes * 60_000;
    const wall = new Date(wallMs).toISOString().slice(0, 19);
    // Pacific/Auckland is +13:00 from late September to early April, +12:00 otherwise.
    const month = Number(date.slice(5, 7));
    const offset = month >= 10 || month <= 3 ? 13 * 60 : 12 * 60;
    return { wall, utc: `${new Date(wallMs - offset * 60_000).toISOString().slice(0, 19)}Z` };
  }

  function activitiesOn(account: string, date: string): Record<string, unknown>[] {
    const random = seeded(`intervals|${account}|${date}`);
    // Four or five a day, so a 30-day read fills more than one page of 100.
    const count = random.int(4, 5);
    const list: Record<string, unknown>[] = [];
    for (let index = 0; index < count; index++) {
      const sport = SPORTS[(isoDateToDayNumber(date) + index) % SPORTS.length]!;
      // The first of the day starts 20 minutes after local midnight (the previous UTC day).
      const { wall, utc } = wallAndUtc(date, index === 0 ? 20 : 6 * 60 + index * 150);
      const moving = random.int(1800, 5400);
      const strength = sport === 'WeightTraining';
      const base = {
        id: `i${isoDateToDayNumber(date) * 10 + index}`,
        start_date_local: wall,
        type: sport,
        name: `${sport} ${index + 1}`,
        moving_time: moving,
        elapsed_time: moving + random.int(0, 600),
        icu_athlete_id: athleteIdOf(account),
        source: 'GARMIN_CONNECT',
        device_name: 'Garmin Forerunner 965',
      };
      list.push(
        strength
          ? {
              ...base,
              // Placeholder zeros of a session without distance, pedals or a strap.
              distance: 0,
              average_heartrate: 0,
              average_cadence: 0,
              calories: random.int(150, 300),
              timezone: INTERVALS_FAKE_TIMEZONE,
              // No start_date: placed by `timezone`.
            }
          : {
              ...base,
              start_date: utc,
              distance: Math.round(moving * random.between(2.5, 8) * 10) / 10,
              total_elevation_gain: random.int(0, 400),
              average_speed: random.between(2.5, 8),
              max_speed: random.between(8, 14),
              ...(index % 3 === 2
                ? {}
                : { average_heartrate: random.int(120, 160), max_heartrate: random.int(165, 185) }),
              average_cadence: random.int(80, 95),
              calories: random.int(300, 900),
              icu_training_load: random.int(20, 120),
              icu_intensity: random.between(55, 95),
              icu_average_watts: sport.endsWith('Ride') ? random.int(150, 250) : undefined,
              icu_weighted_avg_watts: sport.endsWith('Ride') ? random.int(160, 270) : undefined,
              icu_joules: sport.endsWith('Ride') ? random.int(400_000, 1_200_000) : undefined,
              icu_hr_zone_times: [600, 900, 300, 120, 30, 0, 0],
              athlete_max_hr: 190,
              trimp: random.between(30, 120),
            },
      );
    }
    // Every fifth day, an activity synced from Strava: Intervals.icu lists it as a stub (OpenAPI
    // document: Strava activities are returned as stubs, with no figures), since Strava's API
    // terms keep its data from other apps.
    if (isoDateToDayNumber(date) % 5 === 0) {
      const { wall } = wallAndUtc(date, 7 * 60);
      list.push({
        id: String(isoDateToDayNumber(date) * 10 + 9),
        icu_athlete_id: athleteIdOf(account),
        start_date_local: wall,
        source: 'STRAVA',
      });
    }
    return list;
  }

  const localToday = () => localDate(fake.clock.now());
  function localDate(epochMs: number) {
    const utcDate = dayNumberToIsoDate(Math.floor(epochMs / MS_PER_DAY));
    const month = Number(utcDate.slice(5, 7));
    const offset = month >= 10 || month <= 3 ? 13 * 60 : 12 * 60;
    return dayNumberToIsoDate(Math.floor((epochMs + offset * 60_000) / MS_PER_DAY));
  }

  /** A local date or date-time parameter as a comparable wall-time text; null when malformed. */
  function wallParam(value: string | null, endOfDay: boolean): string | null {
    if (value === null) return null;
    if (isIsoDate(value)) return endOfDay ? `${value}T23:59:59` : `${value}T00:00:00`;
    return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(value) ? value.padEnd(19, ':00') : null;
  }

  function activities(request: FakeRequest): FakeReply {
    const grant = athleteOf(request);
    if (!('account' in grant)) return grant;
    if (!hasScope(grant, 'ACTIVITY')) return problem(403, 'Missing scope ACTIVITY:READ');
    const oldest = wallParam(request.query.get('oldest'), false);
    if (!oldest) return problem(422, 'oldest is required (local ISO-8601 date or date-time)');
    const newestRaw = request.query.get('newest');
    const newest = newestRaw === null ? `${localToday()}T23:59:59` : wallParam(newestRaw, true);
    if (!newest) return problem(422, 'newest is not a local ISO-8601 date or date-time');
    const limitRaw = request.query.get('limit');
    const limit = limitRaw === null ? Number.POSITIVE_INFINITY : Number(limitRaw);
    if (!Number.isInteger(limit) || limit < 1) return problem(422, 'limit must be a positive integer');
    const list: Record<string, unknown>[] = [];
    const today = localToday();
    for (
      let date = oldest.slice(0, 10);
      date <= newest.slice(0, 10) && date <= today;
      date = addDays(date, 1)
    ) {
      for (const activity of activitiesOn(grant.account, date)) {
        const start = activity.start_date_local as string;
        if (start >= oldest && start <= newest) list.push(activity);
      }
    }
    list.sort((a, b) => (String(b.start_date_local) < String(a.start_date_local) ? -1 : 1));
    return { status: 200, body: list.slice(0, limit) };
  }

  function wellnessOf(account: string, date: string): Record<string, unknown> | null {
    const random = seeded(`intervals-wellness|${account}|${date}`);
    const kind = isoDateToDayNumber(date) % 7;
    // Every day has the fitness model; entered fields vary.
    const base = {
      id: date,
      ctl: random.between(30, 60),
      atl: random.between(20, 70),
      updated: `${date}T20:00:00.000+00:00`,
    };
    if (kind === 6) return base; // nothing entered
    if (kind === 5) return { ...base, weight: 0, restingHR: 0, steps: 0, sleepSecs: 0 }; // placeholder zeros
    return {
      ...base,
      weight: Math.round(random.between(60, 63) * 10) / 10,
      restingHR: random.int(44, 55),
      hrv: Math.round(random.between(40, 90) * 10) / 10,
      ...(kind === 4 ? {} : { hrvSDNN: Math.round(random.between(50, 100) * 10) / 10 }),
      sleepSecs: random.int(21_000, 30_000),
      sleepScore: random.int(60, 95),
      sleepQuality: random.int(1, 4),
      avgSleepingHR: random.int(45, 58),
      steps: random.int(3000, 16_000),
      bodyFat: Math.round(random.between(18, 24) * 10) / 10,
      ...(kind === 2
        ? { systolic: random.int(105, 125), diastolic: random.int(65, 80), spO2: random.int(95, 99) }
        : {}),
      readiness: random.int(40, 95),
      kcalConsumed: random.int(1800, 2600),
      soreness: random.int(1, 4),
    };
  }

  function wellness(request: FakeRequest): FakeReply {
    const grant = athleteOf(request);
    if (!('account' in grant)) return grant;
    if (!hasScope(grant, 'WELLNESS')) return problem(403, 'Missing scope WELLNESS:READ');
    const oldest = request.query.get('oldest');
    const newest = request.query.get('newest') ?? localToday();
    if (!oldest || !isIsoDate(oldest) || !isIsoDate(newest))
      return problem(422, 'oldest and newest are local ISO-8601 dates');
    const list = [];
    for (let date = oldest; date <= newest && date <= localToday(); date = addDays(date, 1)) {
      const day = wellnessOf(grant.account, date);
      if (day) list.push(day);
    }
    return { status: 200, body: list };
  }

  function listEvents(request: FakeRequest): FakeReply {
    const grant = athleteOf(request);
    if (!('account' in grant)) return grant;
    if (!hasScope(grant, 'CALENDAR')) return problem(403, 'Missing scope CALENDAR:READ');
    const oldest = request.query.get('oldest') ?? localToday();
    const newest = request.query.get('newest') ?? addDays(oldest, 6);
    if (!isIsoDate(oldest) || !isIsoDate(newest)) return problem(422, 'oldest and newest are local dates');
    const categories = (request.query.get('category') ?? '').split(',').filter(Boolean);
    const list = [...events.values()].filter((event) => {
      const date = String(event.start_date_local).slice(0, 10);
      return (
        event.athlete === grant.account &&
        date >= oldest &&
        date <= newest &&
        (categories.length === 0 || categories.includes(String(event.category)))
      );
    });
    return { status: 200, body: list.map(({ athlete: _athlete, ...event }) => event) };
  }

  function createEvent(request: FakeRequest): FakeReply {
    const grant = athleteOf(request);
    if (!('account' in grant)) return grant;
    if (!hasScope(grant, 'CALENDAR', true)) return problem(403, 'Missing scope CALENDAR:WRITE');
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(request.body) as Record<string, unknown>;
    } catch {
      return problem(400, 'body is not JSON');
    }
    const start = body.start_date_local;
    if (typeof start !== 'string' || !/^\d{4}-\d{2}-\d{2}T00:00:00$/.test(start))
      return problem(422, 'start_date_local must be a local date at T00:00:00');
    const categories = [
      'WORKOUT',
      'RACE_A',
      'RACE_B',
      'RACE_C',
      'NOTE',
      'HOLIDAY',
      'SICK',
      'INJURED',
      'SET_EFTP',
      'FITNESS_DAYS',
      'SEASON_START',
      'TARGET',
      'SET_FITNESS',
    ];
    if (!categories.includes(String(body.category))) return problem(422, 'unknown category');
    if (body.category === 'WORKOUT' && typeof body.type !== 'string')
      return problem(422, 'a workout needs a type');
    const id = nextEventId++;
    const event = {
      ...body,
      id,
      athlete: grant.account,
      uid: randomId(16),
      calendar_id: 1,
      end_date_local: `${addDays(start.slice(0, 10), 1)}T00:00:00`,
      updated: new Date(fake.clock.now()).toISOString(),
    };
    events.set(id, event);
    const { athlete: _athlete, ...answer } = event;
    return { status: 200, body: answer };
  }

  function deleteEvent(request: FakeRequest): FakeReply {
    const grant = athleteOf(request);
    if (!('account' in grant)) return grant;
    if (!hasScope(grant, 'CALENDAR', true)) return problem(403, 'Missing scope CALENDAR:WRITE');
    const id = Number(request.params.eventId);
    const event = events.get(id);
    if (!event || event.athlete !== grant.account) return problem(404, 'Event not found');
    events.delete(id);
    return { status: 200, body: {} };
  }

  const routes: Route[] = [
    {
      method: 'GET',
      path: '/oauth/authorize',
      handler(request) {
        const reply = authorizeReply(request, store, consent, { clientId, scopeSeparator: ',' });
        const code = new URL(String(reply.headers?.location ?? 'http://x/')).searchParams.get('code');
        if (code) codeIssued.set(code, fake.clock.now());
        return reply;
      },
    },
    { method: 'POST', path: '/api/oauth/token', handler: token },
    { method: 'DELETE', path: '/api/v1/disconnect-app', handler: disconnect },
    { method: 'GET', path: '/api/v1/athlete/:id', handler: profile },
    { method: 'GET', path: '/api/v1/athlete/:id/activities', handler: activities },
    { method: 'GET', path: '/api/v1/athlete/:id/wellness', handler: wellness },
    { method: 'GET', path: '/api/v1/athlete/:id/events', handler: listEvents },
    { method: 'POST', path: '/api/v1/athlete/:id/events', handler: createEvent },
    { method: 'DELETE', path: '/api/v1/athlete/:id/events/:eventId', handler: deleteEvent },
  ];

  const server = await startFakeServer({
    routes,
    faultReply(injected) {
      if (injected.kind === 'unauthorized') return problem(401, 'Unauthorized');
      if (injected.kind === 'server_error') return problem(injected.status ?? 500, 'Server Error');
      return {
        ...problem(429, 'Too Many Requests'),
        headers: { 'retry-after': String(injected.retryAfterSeconds ?? 1) },
      };
    },
  });
  store = createTokenStore(server.clock, 'intervals');
  // A coach's plan on the athlete's calendar: a structured ride every Tuesday of the last 13
  // weeks (and one rest-day note, which is not a workout).
  for (let week = 0; week < 13; week++) {
    const date = addDays(localDate(server.clock.now()), -7 * week - 1);
    const id = nextEventId++;
    events.set(id, {
      id,
      athlete: consent.account,
      category: 'WORKOUT',
      start_date_local: `${date}T00:00:00`,
      type: 'Ride',
      name: `Sweet spot ${week + 1}`,
      description: '- Warmup 10m 55%\n\n3x\n- 12m 88-94%\n- 4m 55%\n\n- Cooldown 8m 50%',
      moving_time: 4200,
      icu_training_load: 78,
      icu_intensity: 82.5,
    });
  }
  events.set(nextEventId, {
    id: nextEventId++,
    athlete: consent.account,
    category: 'NOTE',
    start_date_local: `${addDays(localDate(server.clock.now()), -3)}T00:00:00`,
    name: 'Rest day',
  });

  fake = Object.assign(server, {
    clientId,
    clientSecret,
    consent,
    grants: store.grants,
    webhookUrl: null as string | null,
    webhookSecret: options.webhookSecret ?? `intervals-webhook-${randomId(8)}`,
    athleteIdOf,
    events,
    activitiesOn,
    async notify(list: Record<string, unknown>[], secret?: string) {
      if (!fake.webhookUrl) throw new Error('no webhook URL configured in Manage App');
      return deliver(fake.webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ secret: secret ?? fake.webhookSecret, events: list }),
      });
    },
    // Tokens do not expire at Intervals.icu: nothing to do.
    expireAccessTokens: () => {},
  });
  return fake;
}
