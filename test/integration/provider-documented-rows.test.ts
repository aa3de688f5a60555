// Rows of issue 41, each against the provider's fake and read through the data API (the read
// syncs what it finds uncovered; no workers, so no backfill runs first):
// - Huawei: a +08:00 user's days are their own local days (dailyPolymerize asked in the zone of
//   their activity records), body measurements fall on the local day they were taken, and sleep
//   health records are read by `healthRecordId`;
// - WHOOP: a record in the v1 shape (long ids) is stored as a valid record;
// - Fitbit (Google Health): a CLASSIC sleep whose stages were rejected has no light/deep/REM;
// - Oura: daily distance is not filled from `equivalent_walking_distance`.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addDays, dayNumberToIsoDate, isoDateToDayNumber, MS_PER_DAY } from '../../src/model/time.ts';
import { providerEnv } from '../fakes/fake-server.ts';
import { isClassicNight } from '../fakes/google-health-data.ts';
import { type GoogleHealthFake, startGoogleHealthFake } from '../fakes/google-health.ts';
import { type HuaweiFake, startHuaweiFake } from '../fakes/huawei.ts';
import { type OuraFake, startOuraFake } from '../fakes/oura.ts';
import { recordsOf } from '../fakes/whoop-data.ts';
import { startWhoopFake, type WhoopFake } from '../fakes/whoop.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { connectThroughFake } from '../helpers/connections.ts';
import { missingProviderSamples } from '../helpers/provider-samples.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const todayNumber = () => Math.floor(Date.now() / MS_PER_DAY);
/** The WHOOP and Oura fakes build their records from the shared provider samples. */
const samplesMissing = missingProviderSamples();

describe('issue 41 rows against the providers’ documented behaviour', () => {
  let huawei: HuaweiFake;
  let whoop: WhoopFake;
  let google: GoogleHealthFake;
  let oura: OuraFake;
  let service: TestService;
  let developer: TestDeveloper;
  const users: Record<string, string> = {};

  const read = async (type: string, provider: string, from: string, to: string): Promise<Json[]> => {
    const response = await service.app.inject({
      method: 'GET',
      url: `/v2/${type}?user_id=${users[provider]}&start_date=${from}&end_date=${to}&to_webhook=false`,
      headers: developer.headers,
    });
    assert.equal(response.statusCode, 200, response.body);
    return (response.json() as { data: Json[] }).data;
  };

  before(async () => {
    huawei = await startHuaweiFake();
    whoop = await startWhoopFake({ offsetMinutes: -300 });
    google = await startGoogleHealthFake({ offsetMinutes: -300 });
    google.perUserPerMinute = 100_000;
    oura = await startOuraFake();
    service = await startTestService({
      env: {
        ...providerEnv('HUAWEI', huawei),
        HUAWEI_ENABLED: 'true',
        HUAWEI_REQUEST_BUDGET: '100000/1,1000000/3600',
        ...providerEnv('WHOOP', whoop),
        ...providerEnv('FITBIT', google),
        FITBIT_REQUEST_BUDGET: '100000/60',
        FITBIT_USER_SHARE: '1',
        ...providerEnv('OURA', oura),
        PROVIDER_HTTP_RETRY_BASE_MS: '20',
      },
      work: false,
    });
    developer = await createDeveloper(service.ctx);
    for (const [provider, fake] of [
      ['HUAWEI', huawei],
      ['WHOOP', whoop],
      ['FITBIT', google],
      ['OURA', oura],
    ] as const)
      users[provider] = (
        await connectThroughFake(service.app, developer, provider, fake, `rows-${provider}`)
      ).userId;
  });
  after(async () => {
    await service?.close();
    for (const fake of [huawei, whoop, google, oura]) await fake?.close();
  });

  describe('HUAWEI (a user in +08:00)', () => {
    const from = () => dayNumberToIsoDate(todayNumber() - 9);
    const to = () => dayNumberToIsoDate(todayNumber() - 1);

    test('daily records are the user’s local days, cut in the zone of their activity records', async () => {
      const days = await read('daily', 'HUAWEI', from(), to());
      assert.ok(days.length >= 4, `days with statistics: ${days.length}`);
      for (const day of days) {
        const date = (day.metadata.start_time as string).slice(0, 10);
        assert.match(day.metadata.start_time, /T00:00:00(\.0+)?\+08:00$/, 'local midnight in +08:00');
        const steps = day.distance_data?.steps as number | null;
        if (steps !== null)
          assert.equal(steps, huawei.stepsOn('account-1', date, 480), `${date}: the local day’s steps`);
      }
      const asked = huawei.requestsTo('/healthkit/v2/sampleSet:dailyPolymerize');
      assert.ok(asked.length > 0);
    });

    test('body measurements fall on the local day they were taken', async () => {
      const days = await read('body', 'HUAWEI', from(), to());
      const weighed = days.filter((day) => day.measurements_data?.day_avg_weight_kg != null);
      assert.ok(weighed.length >= 2, `weigh-ins: ${weighed.length}`);
      for (const day of weighed) {
        const date = (day.metadata.start_time as string).slice(0, 10);
        assert.match(day.metadata.start_time, /\+08:00$/);
        // The fake weighs the user every third local day, at 07:xx in +08:00 (23:xx UTC the day before).
        assert.equal(isoDateToDayNumber(date) % 3, 0, `${date} is a weigh-in day`);
      }
    });

    test('sleep health records are read by healthRecordId', async () => {
      const nights = await read('sleep', 'HUAWEI', from(), to());
      assert.ok(nights.length >= 3, `nights: ${nights.length}`);
      for (const night of nights)
        assert.match(night.metadata.summary_id, /^sleep-\d{4}-\d{2}-\d{2}-account-1$/);
    });
  });

  test(
    'WHOOP: a sleep, its recovery and workouts in the v1 shape are stored as valid records',
    { skip: samplesMissing },
    async () => {
      const user = { seed: 'whoop|account-1', userId: whoop.userIdOf('account-1'), offsetMinutes: -300 };
      let day = todayNumber() - 4;
      while (day > todayNumber() - 30 && (recordsOf(user, day, Date.now())?.workouts.length ?? 0) === 0)
        day--;
      const records = recordsOf(user, day, Date.now());
      assert.ok(records && records.workouts.length > 0, 'a day with workouts');
      whoop.v1ShapedDays.add(day);

      const from = dayNumberToIsoDate(day - 2);
      const to = dayNumberToIsoDate(day + 2);
      const nights = await read('sleep', 'WHOOP', from, to);
      const night = nights.find((entry) => entry.metadata.summary_id === String(records.sleep.v1_id));
      assert.ok(
        night,
        `the v1 sleep ${String(records.sleep.v1_id)}: ${nights.map((n) => n.metadata.summary_id).join(', ')}`,
      );
      assert.ok(
        night.heart_rate_data?.summary?.resting_hr_bpm > 0,
        'its v1 recovery (sleep_id a long) is matched',
      );
      assert.ok(night.sleep_durations_data?.asleep?.duration_deep_sleep_state_seconds > 0);

      const activities = await read('activity', 'WHOOP', from, to);
      for (const workout of records.workouts) {
        const stored = activities.find((entry) => entry.metadata.summary_id === String(workout.v1_id));
        assert.ok(stored, `the v1 workout ${String(workout.v1_id)}`);
        if (workout.score)
          assert.equal(stored.heart_rate_data.summary.hr_zone_data?.length, 6, 'zones from v1 zone_duration');
      }
    },
  );

  test('FITBIT: a CLASSIC sleep whose stages were rejected has no light, deep or REM figures', async () => {
    let classic = todayNumber() - 3;
    while (!isClassicNight(classic)) classic--;
    const nights = await read(
      'sleep',
      'FITBIT',
      dayNumberToIsoDate(classic - 2),
      dayNumberToIsoDate(classic + 2),
    );
    const night = nights.find((entry) => entry.metadata.summary_id === `${classic}0000`);
    assert.ok(night, `the classic night: ${nights.map((n) => n.metadata.summary_id).join(', ')}`);
    const asleep = night.sleep_durations_data.asleep;
    assert.ok(asleep.duration_asleep_state_seconds > 0, 'asleep time is measured');
    assert.equal(asleep.duration_light_sleep_state_seconds, null);
    assert.equal(asleep.duration_deep_sleep_state_seconds, null);
    assert.equal(asleep.duration_REM_sleep_state_seconds, null);
    assert.equal(asleep.num_REM_events, null);
    const staged = nights.find((entry) => entry.metadata.summary_id === `${classic + 1}0000`);
    assert.ok(staged, 'the next night has stages');
    assert.ok(
      staged.sleep_durations_data.asleep.duration_deep_sleep_state_seconds > 0,
      'a stages night keeps them',
    );
  });

  test(
    'OURA: daily distance is not the equivalent walking distance of the day’s energy',
    { skip: samplesMissing },
    async () => {
      const to = dayNumberToIsoDate(todayNumber() - 1);
      const days = await read('daily', 'OURA', addDays(to, -4), to);
      assert.ok(days.length > 0);
      for (const day of days) {
        assert.ok(day.distance_data.steps > 0, 'steps are kept');
        assert.equal(day.distance_data.distance_meters, null);
      }
    },
  );
});
