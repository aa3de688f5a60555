import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { followAuthorize, providerEnv } from '../fakes/fake-server.ts';
import { sql } from 'kysely';
import { addDays } from '../../src/model/time.ts';
import { FITBIT_CHUNK_DAYS } from '../../src/providers/fitbit/data-source.ts';
import { startGoogleHealthFake, type GoogleHealthFake } from '../fakes/google-health.ts';
import { isoDay, pointsOf, totalCaloriesOf } from '../fakes/google-health-data.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { authenticateUser, pathOf } from '../helpers/connections.ts';
import { runConnectorPath } from '../helpers/connector-path.ts';
import { until } from '../helpers/until.ts';

// FITBIT through the Google Health API end to end against its fake: Google OAuth with PKCE and
// offline access, the healthUserId from users/me/identity, dataPoints lists with AIP-160 range
// filters and paging, the per-user quota, a subscriber notification (authenticated by the
// endpoint's Authorization secret) fetched again, and revocation at Google's /revoke.
const WEBHOOK_SECRET = 'subscriber-secret-7f3a';
const DAY_MS = 86_400_000;

runConnectorPath<GoogleHealthFake>({
  provider: 'FITBIT',
  async startFake() {
    const fake = await startGoogleHealthFake({ offsetMinutes: -300 });
    // The test reads more in a minute than one user would; the quota is exercised by its own test.
    fake.perUserPerMinute = 100_000;
    return fake;
  },
  env: { FITBIT_REQUEST_BUDGET: '100000/60', FITBIT_USER_SHARE: '1', FITBIT_WEBHOOK_SECRET: WEBHOOK_SECRET },
  types: ['activity', 'athlete', 'body', 'daily', 'nutrition', 'sleep'],
  apiPrefix: '/v4/users/me/dataTypes/',
  tokenPath: '/token',
  async subscribe(fake, _service, publicUrl) {
    // The operator creates the subscriber for the Cloud project; Google then verifies the endpoint.
    fake.subscriber = { endpointUri: `${publicUrl}/providers/FITBIT/webhook`, secret: WEBHOOK_SECRET };
    const verification = await fake.verifyEndpoint();
    assert.ok(
      verification.withSecret >= 200 && verification.withSecret < 300,
      `with the secret: ${verification.withSecret}`,
    );
    assert.ok([401, 403].includes(verification.withoutSecret), `without it: ${verification.withoutSecret}`);
  },
  async notify(fake, stored) {
    assert.ok((await stored('sleep')).length > 0, 'stored nights');
    const end = Date.now() - 2 * 86_400_000;
    const delivery = await fake.notify('sleep', end - 8 * 3_600_000, end);
    assert.equal(delivery.status, 200, delivery.responseBody);
    return 'sleep';
  },
  expireTokens: (fake) => fake.expireAccessTokens(),
});

// Google's consent is granular: a user may untick a scope. That data type is then refused with
// 403 PERMISSION_DENIED and read as absent; the connection stays active and the rest is read.

/** A service whose subscriber endpoint is registered at the fake, with one FITBIT user connected. */
async function startConnected(fake: GoogleHealthFake, referenceId: string) {
  const service = await startTestService({
    env: {
      ...providerEnv('FITBIT', fake),
      FITBIT_WEBHOOK_SECRET: WEBHOOK_SECRET,
      FITBIT_REQUEST_BUDGET: '100000/60',
      FITBIT_USER_SHARE: '1',
    },
  });
  await service.app.listen({ port: 0, host: '127.0.0.1' });
  const address = service.app.server.address() as AddressInfo;
  fake.subscriber = {
    endpointUri: `http://127.0.0.1:${address.port}/providers/FITBIT/webhook`,
    secret: WEBHOOK_SECRET,
  };
  const developer = await createDeveloper(service.ctx);
  const link = await authenticateUser(service.app, developer, 'FITBIT', { reference_id: referenceId });
  const back = await followAuthorize(link.authUrl.toString());
  const landing = await service.app.inject({ method: 'GET', url: pathOf(back) });
  assert.equal(landing.statusCode, 302, landing.body);
  return { service, developer, userId: link.userId };
}

describe('FITBIT with a scope left unticked, and notifications with the wrong secret', () => {
  let fake: GoogleHealthFake;
  let service: TestService;
  let developer: TestDeveloper;
  let userId: string;

  before(async () => {
    fake = await startGoogleHealthFake({ offsetMinutes: 60 });
    fake.perUserPerMinute = 100_000;
    const scope = 'https://www.googleapis.com/auth/googlehealth';
    fake.consent.grantScopes = [
      `${scope}.activity_and_fitness.readonly`,
      `${scope}.health_metrics_and_measurements.readonly`,
      `${scope}.sleep.readonly`,
      `${scope}.profile.readonly`,
    ];
    ({ service, developer, userId } = await startConnected(fake, 'fitbit-scopes'));
  });
  after(async () => {
    await service?.close();
    await fake?.close();
  });

  const read = (type: string) =>
    service.app.inject({
      method: 'GET',
      url: `/v2/${type}?user_id=${userId}&start_date=2026-01-01&end_date=2026-01-08&to_webhook=false`,
      headers: developer.headers,
    });

  test('the unticked type reads as empty, the others as usual, the connection stays active', async () => {
    const refusedBefore = fake.requests.filter((request) => request.status === 403).length;
    const nutrition = await read('nutrition');
    assert.equal(nutrition.statusCode, 200, nutrition.body);
    assert.equal((nutrition.json() as { data: unknown[] }).data.length, 0);
    assert.ok(
      fake.requests.filter((request) => request.status === 403).length > refusedBefore,
      'Google refused the scope',
    );
    const sleep = await read('sleep');
    assert.equal(sleep.statusCode, 200, sleep.body);
    assert.ok((sleep.json() as { data: unknown[] }).data.length > 0);
    const row = await service.ctx.db
      .selectFrom('connections')
      .select('status')
      .where('id', '=', userId)
      .executeTakeFirst();
    assert.equal(row?.status, 'active');
  });

  test('a notification with another secret, or none, is refused', async () => {
    const now = Date.now();
    assert.equal((await fake.notify('sleep', now - 3_600_000, now, { secret: 'not-it' })).status, 401);
    const { withoutSecret } = await fake.verifyEndpoint();
    assert.equal(withoutSecret, 401);
  });
});

// Google says when data points were deleted (operation DELETE). The days it names are fetched
// again and replace what is stored: a record Google no longer returns is removed here, the other
// records of those days and of other types stay.
describe('FITBIT: a DELETE notification removes what Google deleted', () => {
  let fake: GoogleHealthFake;
  let service: TestService;
  let developer: TestDeveloper;
  let userId: string;

  before(async () => {
    fake = await startGoogleHealthFake({ offsetMinutes: 60 });
    fake.perUserPerMinute = 100_000;
    ({ service, developer, userId } = await startConnected(fake, 'fitbit-delete'));
  });
  after(async () => {
    await service?.close();
    await fake?.close();
  });

  const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
  const stored = (type: string) =>
    service.ctx.db
      .selectFrom('data_records')
      .select(['identity_key', 'anchor_day', 'summary'])
      .where('user_id', '=', userId)
      .where('type', '=', type)
      .where('anchor_day', '>=', day(-9))
      .where('anchor_day', '<', day(-2))
      .execute();
  test('the deleted workout is gone, the rest of its days stay', async () => {
    for (const type of ['activity', 'daily']) {
      const read = await service.app.inject({
        method: 'GET',
        url: `/v2/${type}?user_id=${userId}&start_date=${day(-9)}&end_date=${day(-3)}&to_webhook=false`,
        headers: developer.headers,
      });
      assert.equal(read.statusCode, 200, read.body);
    }
    const workouts = await stored('activity');
    const dailies = await stored('daily');
    assert.ok(workouts.length >= 2, 'stored workouts');
    const victim = workouts[0]!;
    // The json column comes back parsed on some drivers, as text on others.
    const summary = (typeof victim.summary === 'string' ? JSON.parse(victim.summary) : victim.summary) as {
      metadata: { start_time: string };
    };
    const startMs = Date.parse(summary.metadata.start_time);

    fake.deletePoint('exercise', startMs);
    const deletion = await fake.notify('exercise', startMs, startMs + 3_600_000, { operation: 'DELETE' });
    assert.equal(deletion.status, 200, deletion.responseBody);
    await until(
      'the deleted workout removed',
      async () => !(await stored('activity')).some((row) => row.identity_key === victim.identity_key),
    );
    const after = await stored('activity');
    assert.deepEqual(
      after.map((row) => row.identity_key).sort(),
      workouts
        .filter((row) => row.identity_key !== victim.identity_key)
        .map((row) => row.identity_key)
        .sort(),
      'only the deleted workout went',
    );
    assert.equal((await stored('daily')).length, dailies.length, 'other types of the day stay');
  });
});

// Issue 25, classes 2–4, for a user at −08:00 whose backfill runs in 14-day chunks ending at UTC
// midnight: every local day that starts in one chunk's window and ends in the next is a day the
// old connector stored twice, the second time from its first sixteen hours only. Expected values
// come from what the fake holds: the reconciled stream (the watch's steps, not the phone's double
// count), Google's rollups, the day's own resting heart rate and drinks.
describe('FITBIT at −08:00: documented filters, reconciled totals, whole local days', () => {
  const OFFSET = -480;
  let fake: GoogleHealthFake;
  let service: TestService;
  let userId: string;

  before(async () => {
    fake = await startGoogleHealthFake({ offsetMinutes: OFFSET });
    fake.perUserPerMinute = 100_000;
    ({ service, userId } = await startConnected(fake, 'fitbit-pacific'));
  });
  after(async () => {
    await service?.close();
    await fake?.close();
  });

  type Stored = { anchor_day: string; summary: unknown };
  const stored = async (type: string) => {
    const rows: Stored[] = await service.ctx.db
      .selectFrom('data_records')
      .select([sql<string>`anchor_day::text`.as('anchor_day'), 'summary'])
      .where('user_id', '=', userId)
      .where('type', '=', type)
      .execute();
    // The json column comes back parsed on some drivers, as text on others.
    return new Map(
      rows.map((row) => [
        row.anchor_day,
        typeof row.summary === 'string' ? JSON.parse(row.summary) : row.summary,
      ]),
    ) as Map<string, unknown>;
  };
  /** The value at a dotted path of a stored record (undefined where the path breaks). */
  const at = (value: unknown, path: string): unknown =>
    path
      .split('.')
      .reduce<unknown>((node, key) => (node as Record<string, unknown> | null | undefined)?.[key], value);
  const dayNumber = (isoDate: string) => Date.parse(`${isoDate}T00:00:00Z`) / DAY_MS;
  /** The day's total of a field of the reconciled points (the phone's double count left out). */
  const count = (day: string, type: string, path: string) =>
    pointsOf(type, fake.userOf(), dayNumber(day))
      .filter((entry) => entry.source !== 'phone')
      .reduce((sum, entry) => sum + Number(at(entry.point, path)), 0);
  /** Waits for the backfill of `types` to finish (each type is its own chain of chunks). */
  const backfilled = async (...types: string[]) => {
    await until(
      `the backfill of ${types.join(', ')}`,
      async () => {
        const progress = await service.ctx.connectors.backfill.progress(userId);
        return types.every((type) => progress.find((row) => row.type === type)?.status === 'done');
      },
      { timeoutMs: 120_000 },
    );
  };
  /** The local days where one 14-day chunk of the backfill ends and the next begins. */
  const chunkBoundaries = async () => {
    const [daily] = (await service.ctx.connectors.backfill.progress(userId)).filter(
      (row) => row.type === 'daily',
    );
    assert.ok(daily);
    const days: string[] = [];
    for (
      let day = addDays(daily.endDay, -FITBIT_CHUNK_DAYS);
      day > daily.startDay;
      day = addDays(day, -FITBIT_CHUNK_DAYS)
    )
      if (day < isoDay(Math.floor(Date.now() / DAY_MS) - 1)) days.push(day);
    assert.ok(days.length >= 4, 'several chunk boundaries');
    return days;
  };

  test('class 2: every list and reconcile filter is one Google accepts, and sessions are read', async () => {
    const refused = () =>
      fake
        .requestsTo('/v4/users/me/dataTypes/')
        .filter((request) => request.status >= 400 && request.status !== 429);
    const types = ['activity', 'sleep', 'daily', 'body', 'nutrition'];
    // Done, or refused: a refused filter fails the chunk again and again, it never finishes.
    await until(
      'the backfill, or a refused request',
      async () => {
        const progress = await service.ctx.connectors.backfill.progress(userId);
        const done = types.every((type) => progress.find((row) => row.type === type)?.status === 'done');
        return done || refused().length > 0;
      },
      { timeoutMs: 120_000 },
    );
    assert.deepEqual(
      refused().map((request) => `${request.status} ${request.path} ${request.query.filter ?? ''}`),
      [],
    );
    for (const type of ['activity', 'sleep', 'nutrition'])
      assert.ok((await stored(type)).size > 10, `${type} stored`);
  });

  test('class 3: daily steps are the reconciled total, distance and total calories are read', async () => {
    await backfilled('daily');
    const dailies = await stored('daily');
    const days = [...dailies.keys()]
      .filter((day) => day < isoDay(Math.floor(Date.now() / DAY_MS) - 1))
      .slice(-20);
    assert.ok(days.length >= 10);
    for (const day of days) {
      const record = dailies.get(day);
      const reconciled = count(day, 'steps', 'steps.count');
      const raw = pointsOf('steps', fake.userOf(), dayNumber(day)).reduce(
        (sum, entry) => sum + Number(at(entry.point, 'steps.count')),
        0,
      );
      assert.ok(raw > reconciled, 'the raw points double-count the phone');
      assert.equal(at(record, 'distance_data.steps'), reconciled, `${day}: steps`);
      assert.equal(
        at(record, 'distance_data.distance_meters'),
        count(day, 'distance', 'distance.millimeters') / 1000,
        `${day}: distance`,
      );
      assert.equal(
        at(record, 'calories_data.total_burned_calories'),
        totalCaloriesOf(fake.userOf(), dayNumber(day)),
        `${day}: total calories`,
      );
    }
    await backfilled('activity', 'nutrition');
    const workouts = [...(await stored('activity')).values()];
    assert.ok(workouts.length > 10);
    for (const workout of workouts) {
      assert.equal(typeof at(workout, 'calories_data.total_burned_calories'), 'number');
      assert.equal(at(workout, 'calories_data.net_activity_calories') ?? null, null);
    }
    const [meals] = [...(await stored('nutrition')).values()];
    assert.equal(typeof at(meals, 'meals.0.macros.protein_g'), 'number', 'protein from nutrients[]');
    assert.equal(typeof at(meals, 'meals.0.macros.sodium_mg'), 'number', 'sodium from nutrients[]');
    assert.equal(typeof at(meals, 'meals.0.micros.potassium_mg'), 'number', 'potassium from nutrients[]');
  });

  test('class 4: a local day cut by a chunk’s UTC midnight is stored whole', async () => {
    await backfilled('daily');
    const dailies = await stored('daily');
    const boundaries = await chunkBoundaries();
    for (const day of boundaries) {
      const record = dailies.get(day);
      assert.ok(record, `${day} stored`);
      assert.equal(at(record, 'distance_data.steps'), count(day, 'steps', 'steps.count'), `${day}: steps`);
      assert.equal(
        at(record, 'calories_data.net_activity_calories'),
        Number(count(day, 'active-energy-burned', 'activeEnergyBurned.kcal').toFixed(1)),
        `${day}: active calories`,
      );
      const [resting] = pointsOf('daily-resting-heart-rate', fake.userOf(), dayNumber(day));
      assert.equal(
        at(record, 'heart_rate_data.summary.resting_hr_bpm'),
        Number(at(resting?.point, 'dailyRestingHeartRate.beatsPerMinute')),
        `${day}: resting HR`,
      );
      const readings = pointsOf('heart-rate', fake.userOf(), dayNumber(day))
        .map((entry) => Number(at(entry.point, 'heartRate.beatsPerMinute')))
        .filter((bpm) => bpm > 0 && bpm < 255);
      const average = readings.reduce((sum, bpm) => sum + bpm, 0) / readings.length;
      assert.ok(
        Math.abs(Number(at(record, 'heart_rate_data.summary.avg_hr_bpm')) - average) < 1e-9,
        `${day}: the whole day's heart rate`,
      );
    }
    await backfilled('nutrition');
    const nutrition = await stored('nutrition');
    for (const day of boundaries) {
      assert.equal(
        at(nutrition.get(day), 'summary.water_ml'),
        count(day, 'hydration-log', 'hydrationLog.amountConsumed.milliliters'),
        `${day}: water`,
      );
    }
  });
});
