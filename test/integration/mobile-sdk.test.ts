import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  createDeveloper,
  problemOf,
  startTestService,
  type TestDeveloper,
  type TestService,
} from '../helpers/app.ts';
import { sdkConnect, sdkToken, uploadAndSettle } from '../helpers/mobile.ts';
import { waitForJobsSettled } from '../helpers/jobs.ts';
import { NORMALIZE_UPLOAD_QUEUE } from '../../src/features/mobile/ports.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- wire JSON, asserted field by field
type Wire = Record<string, any>;

// One day (2026-11-20, +01:00) as an iPhone and an Apple Watch both record it, plus a scale app,
// a sleep app and manual entries: the upload a HealthKit companion app would send.
const WATCH = {
  sourceName: 'Ann’s Apple Watch',
  sourceVersion: '10.2',
  device:
    '<<HKDevice: 0x283a4c640>, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,7, software:10.2>',
};
const PHONE = {
  sourceName: 'Ann’s iPhone',
  sourceVersion: '17.1',
  device:
    '<<HKDevice: 0x283a4c880>, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone15,2, software:17.1>',
};
const SCALE = { sourceName: 'Health Mate', sourceVersion: '6.2' };
const Q = 'HKQuantityTypeIdentifier';
let counter = 0;
const uuid = () => `00000000-0000-4000-8000-${String(++counter).padStart(12, '0')}`;
const at = (time: string, day = '20') => `2026-11-${day} ${time} +0100`;
const quantity = (
  source: object,
  type: string,
  unit: string,
  value: number,
  start: string,
  end = start,
  day = '20',
) => ({
  uuid: uuid(),
  type: `${Q}${type}`,
  unit,
  value,
  ...source,
  startDate: at(start, day),
  endDate: at(end, day),
});
const sleepStage = (
  value: string,
  start: [string, string],
  end: [string, string],
  source: object = WATCH,
) => ({
  uuid: uuid(),
  type: 'HKCategoryTypeIdentifierSleepAnalysis',
  value: `HKCategoryValueSleepAnalysis${value}`,
  ...source,
  startDate: at(start[1], start[0]),
  endDate: at(end[1], end[0]),
});

const appleUpload = {
  platform: 'APPLE',
  records: [
    // Steps: the watch for the morning walk; the phone counted the same minutes (ignored) and
    // alone at noon, when the watch was off (counted).
    quantity(WATCH, 'StepCount', 'count', 1000, '08:00:00', '08:10:00'),
    quantity(WATCH, 'StepCount', 'count', 500, '08:10:00', '08:20:00'),
    quantity(PHONE, 'StepCount', 'count', 1400, '08:00:00', '08:20:00'),
    quantity(PHONE, 'StepCount', 'count', 300, '12:00:00', '12:10:00'),
    quantity(WATCH, 'DistanceWalkingRunning', 'km', 1.2, '08:00:00', '08:20:00'),
    quantity(PHONE, 'DistanceWalkingRunning', 'km', 1.1, '08:00:00', '08:20:00'),
    quantity(WATCH, 'ActiveEnergyBurned', 'kcal', 100, '08:00:00', '08:20:00'),
    quantity(WATCH, 'BasalEnergyBurned', 'kJ', 4184, '00:00:00', '23:59:00'),
    quantity(WATCH, 'HeartRate', 'count/min', 120, '08:05:00'),
    quantity(WATCH, 'HeartRate', 'count/min', 140, '08:15:00'),
    quantity(WATCH, 'HeartRate', 'count/min', 70, '10:00:00'),
    quantity(WATCH, 'HeartRateVariabilitySDNN', 'ms', 50, '09:00:00'),
    quantity(WATCH, 'OxygenSaturation', '%', 0.97, '09:30:00'),
    quantity(SCALE, 'BodyMass', 'kg', 70.5, '07:00:00'),
    quantity(SCALE, 'BodyFatPercentage', '%', 0.18, '07:00:00'),
    quantity(PHONE, 'BloodPressureSystolic', 'mmHg', 120, '07:05:00'),
    quantity(PHONE, 'BloodPressureDiastolic', 'mmHg', 80, '07:05:00'),
    quantity(PHONE, 'BloodGlucose', 'mmol<180.1558800000541>/L', 5.5, '07:10:00'),
    quantity(PHONE, 'BodyTemperature', 'degF', 98.6, '07:15:00'),
    quantity(PHONE, 'DietaryProtein', 'g', 30, '13:00:00'),
    quantity(PHONE, 'DietaryEnergyConsumed', 'kcal', 500, '13:00:00'),
    quantity(PHONE, 'DietaryWater', 'mL', 250, '13:00:00'),
    {
      uuid: uuid(),
      type: 'HKCategoryTypeIdentifierMenstrualFlow',
      value: 'HKCategoryValueMenstrualFlowMedium',
      ...PHONE,
      startDate: at('06:00:00'),
      endDate: at('06:00:00'),
      metadata: { HKMenstrualCycleStart: '1' },
    },
    // The night of the 19th: watch stages, and a sleep app's overlapping "in bed" sample.
    sleepStage('AsleepCore', ['19', '23:00:00'], ['20', '01:00:00']),
    sleepStage('AsleepDeep', ['20', '01:00:00'], ['20', '02:00:00']),
    sleepStage('AsleepREM', ['20', '02:00:00'], ['20', '03:00:00']),
    sleepStage('Awake', ['20', '03:00:00'], ['20', '03:10:00']),
    sleepStage('AsleepCore', ['20', '03:10:00'], ['20', '06:00:00']),
    sleepStage('InBed', ['19', '22:50:00'], ['20', '06:10:00'], {
      sourceName: 'AutoSleep',
      sourceVersion: '7',
    }),
  ],
  workouts: [
    {
      uuid: 'A1B2C3D4-0000-4000-8000-000000000001',
      workoutActivityType: 'HKWorkoutActivityTypeRunning',
      duration: 20,
      durationUnit: 'min',
      totalDistance: 1.2,
      totalDistanceUnit: 'km',
      totalEnergyBurned: 100,
      totalEnergyBurnedUnit: 'kcal',
      ...WATCH,
      startDate: '2026-11-20T08:00:00+01:00',
      endDate: '2026-11-20T08:20:00+01:00',
      route: [
        { date: '2026-11-20T08:00:00+01:00', latitude: 51.5, longitude: -0.12, altitude: 20 },
        { date: '2026-11-20T08:20:00+01:00', latitude: 51.51, longitude: -0.11, altitude: 22 },
      ],
    },
  ],
  activity_summaries: [
    {
      dateComponents: '2026-11-20',
      activeEnergyBurned: 100,
      activeEnergyBurnedUnit: 'kcal',
      appleExerciseTime: 20,
      appleStandHours: 9,
    },
  ],
};

describe('mobile SDK: connect, upload, normalize', () => {
  let service: TestService;
  let developer: TestDeveloper;
  let userId: string;
  let uploadToken: string;

  before(async () => {
    service = await startTestService();
    developer = await createDeveloper(service.ctx);
    ({ userId, uploadToken } = await sdkConnect(service.app, developer, 'APPLE', 'ann-42'));
  });
  after(async () => {
    await service?.close();
  });

  const read = async (type: string, from: string, to: string) => {
    const response = await service.app.inject({
      method: 'GET',
      url: `/v2/${type}?user_id=${userId}&start_date=${from}&end_date=${to}&to_webhook=false&with_samples=true`,
      headers: developer.headers,
    });
    assert.equal(response.statusCode, 200, response.body);
    return (response.json() as { data: Wire[] }).data;
  };
  const dataEvents = () =>
    service.ctx.db
      .selectFrom('events')
      .select(['type', 'body'])
      .where('user_id', '=', userId)
      .orderBy('seq')
      .execute();

  test('connect creates an active user with its reference_id and sends the auth event', async () => {
    const user = await service.app.inject({
      method: 'GET',
      url: `/v2/userInfo?user_id=${userId}`,
      headers: developer.headers,
    });
    const info = user.json() as { user: { provider: string; reference_id: string } };
    assert.equal(info.user.provider, 'APPLE');
    assert.equal(info.user.reference_id, 'ann-42');
    const events = await dataEvents();
    assert.equal(events[0]?.type, 'auth');
    assert.equal((JSON.parse(events[0]!.body) as { status: string }).status, 'success');
  });

  test('a token works once', async () => {
    const token = await sdkToken(service.app, developer);
    const first = await service.app.inject({
      method: 'POST',
      url: '/v2/sdk/connect',
      payload: { token, resource: 'HEALTH_CONNECT' },
    });
    assert.equal(first.statusCode, 200);
    const again = await service.app.inject({
      method: 'POST',
      url: '/v2/sdk/connect',
      payload: { token, resource: 'HEALTH_CONNECT' },
    });
    const problem = problemOf(again);
    assert.equal(problem.status, 401);
    assert.match(problem.body.detail, /already used/);
    const web = await service.app.inject({
      method: 'POST',
      url: '/v2/sdk/connect',
      payload: { token: await sdkToken(service.app, developer), resource: 'SANDBOX' },
    });
    assert.equal(problemOf(web).status, 400);
  });

  test('two identical uploads give normalized, deduplicated records, and the second changes nothing', async () => {
    const first = await uploadAndSettle(service.ctx, service.app, uploadToken, appleUpload);
    assert.equal(first.items, appleUpload.records.length + 2);
    const eventsAfterFirst = (await dataEvents()).filter((event) => event.type !== 'auth');
    assert.deepEqual(
      new Set(eventsAfterFirst.map((event) => event.type)),
      new Set(['daily', 'body', 'nutrition', 'menstruation', 'sleep', 'activity']),
    );
    await uploadAndSettle(service.ctx, service.app, uploadToken, appleUpload);
    const eventsAfterSecond = (await dataEvents()).filter((event) => event.type !== 'auth');
    assert.equal(eventsAfterSecond.length, eventsAfterFirst.length, 'an identical upload changes no day');

    const [daily, ...moreDays] = await read('daily', '2026-11-20', '2026-11-21');
    assert.equal(moreDays.length, 0);
    assert.equal(daily!.metadata.start_time, '2026-11-20T00:00:00.000000+01:00');
    assert.equal(
      daily!.distance_data.steps,
      1800,
      'watch 1500 + phone-only 300; overlapping phone steps not added',
    );
    assert.equal(daily!.distance_data.distance_meters, 1200);
    assert.equal(daily!.calories_data.net_activity_calories, 100);
    assert.equal(daily!.calories_data.BMR_calories, 1000);
    assert.equal(daily!.heart_rate_data.summary.max_hr_bpm, 140);
    assert.equal(daily!.heart_rate_data.summary.min_hr_bpm, 70);
    assert.equal(daily!.heart_rate_data.summary.avg_hrv_sdnn, 50);
    assert.equal(daily!.oxygen_data.avg_saturation_percentage, 97);
    assert.equal(daily!.active_durations_data.standing_hours_count, 9);
    assert.equal(daily!.device_data.name, WATCH.sourceName, 'the watch is the chosen source');
    assert.ok(daily!.device_data.data_provided.includes('STEPS'));
    assert.deepEqual(
      daily!.device_data.other_devices.map((device: { name: string }) => device.name),
      [PHONE.sourceName],
      'the phone filled a gap',
    );

    const activities = await read('activity', '2026-11-20', '2026-11-21');
    assert.equal(activities.length, 1);
    const run = activities[0]!;
    assert.equal(run.metadata.summary_id, 'A1B2C3D4-0000-4000-8000-000000000001');
    assert.equal(run.metadata.type, 8, 'RUNNING');
    assert.equal(run.distance_data.summary.distance_meters, 1200);
    assert.deepEqual(
      run.heart_rate_data.detailed.hr_samples.map((sample: { bpm: number }) => sample.bpm),
      [120, 140],
      'heart rate during the run only',
    );
    assert.equal(run.position_data.position_samples.length, 2);
    assert.deepEqual(run.position_data.start_pos_lat_lng_deg, [51.5, -0.12]);

    const sleeps = await read('sleep', '2026-11-19', '2026-11-21');
    assert.equal(sleeps.length, 1);
    const night = sleeps[0]!;
    assert.equal(night.metadata.start_time, '2026-11-19T23:00:00.000000+01:00');
    assert.equal(night.metadata.end_time, '2026-11-20T06:00:00.000000+01:00');
    const asleep = night.sleep_durations_data.asleep;
    assert.equal(asleep.duration_deep_sleep_state_seconds, 3600);
    assert.equal(asleep.duration_REM_sleep_state_seconds, 3600);
    assert.equal(asleep.duration_light_sleep_state_seconds, 7200 + 10200);
    assert.equal(night.sleep_durations_data.awake.duration_awake_state_seconds, 600);
    assert.equal(night.device_data.name, WATCH.sourceName, 'stages from the watch, not the sleep app');

    const [body] = await read('body', '2026-11-20', '2026-11-21');
    assert.equal(body!.measurements_data.measurements[0].weight_kg, 70.5);
    assert.equal(body!.measurements_data.measurements[0].bodyfat_percentage, 18);
    assert.deepEqual(
      body!.blood_pressure_data.blood_pressure_samples.map(
        (s: { systolic_bp: number; diastolic_bp: number }) => [s.systolic_bp, s.diastolic_bp],
      ),
      [[120, 80]],
    );
    assert.equal(body!.glucose_data.blood_glucose_samples[0].blood_glucose_mg_per_dL, 99.09);
    assert.equal(body!.temperature_data.body_temperature_samples[0].temperature_celsius, 37);

    const [nutrition] = await read('nutrition', '2026-11-20', '2026-11-21');
    assert.equal(nutrition!.summary.macros.protein_g, 30);
    assert.equal(nutrition!.summary.macros.calories, 500);
    assert.equal(nutrition!.summary.water_ml, 250);
    const [cycle] = await read('menstruation', '2026-11-20', '2026-11-21');
    assert.equal(cycle!.menstruation_data.menstruation_flow[0].flow, 3, 'MEDIUM');
  });

  test('a deletion removes the record and rebuilds the day', async () => {
    const noonSteps = appleUpload.records[3]!.uuid;
    await uploadAndSettle(service.ctx, service.app, uploadToken, {
      platform: 'APPLE',
      deletions: [noonSteps, 'A1B2C3D4-0000-4000-8000-000000000001'],
    });
    const [daily] = await read('daily', '2026-11-20', '2026-11-21');
    assert.equal(daily!.distance_data.steps, 1500);
    assert.equal((await read('activity', '2026-11-20', '2026-11-21')).length, 0);
  });

  test('bad uploads: wrong platform, no token, too large', async () => {
    const wrong = await service.app.inject({
      method: 'POST',
      url: '/v2/sdk/upload',
      headers: { authorization: `Bearer ${uploadToken}` },
      payload: { platform: 'HEALTH_CONNECT', records: [] },
    });
    assert.equal(problemOf(wrong).status, 400);
    assert.match(problemOf(wrong).body.detail, /platform/);
    const anonymous = await service.app.inject({
      method: 'POST',
      url: '/v2/sdk/upload',
      payload: { platform: 'APPLE' },
    });
    assert.equal(problemOf(anonymous).status, 401);
    const huge = await service.app.inject({
      method: 'POST',
      url: '/v2/sdk/upload',
      headers: { authorization: `Bearer ${uploadToken}`, 'content-type': 'application/json' },
      payload: JSON.stringify({
        platform: 'APPLE',
        records: [{ pad: 'x'.repeat(service.ctx.mobile.settings.uploadMaxBytes) }],
      }),
    });
    const tooLarge = problemOf(huge);
    assert.equal(tooLarge.status, 413);
    assert.match(tooLarge.contentType, /application\/problem\+json/);
    assert.match(tooLarge.body.detail, /at most \d+ bytes/);
  });

  test('records the server cannot read are skipped, the rest stored', async () => {
    await uploadAndSettle(service.ctx, service.app, uploadToken, {
      platform: 'APPLE',
      records: [
        {
          uuid: uuid(),
          type: `${Q}StepCount`,
          unit: 'count',
          value: 'many',
          ...WATCH,
          startDate: at('18:00:00'),
          endDate: at('18:01:00'),
        },
        {
          uuid: uuid(),
          type: `${Q}StepCount`,
          unit: 'count',
          value: 10,
          ...WATCH,
          startDate: 'yesterday',
          endDate: at('18:01:00'),
        },
        quantity(WATCH, 'StepCount', 'count', 25, '18:00:00', '18:05:00'),
      ],
    });
    const [daily] = await read('daily', '2026-11-20', '2026-11-21');
    assert.equal(daily!.distance_data.steps, 1525);
  });

  test('deauthentication revokes the upload token', async () => {
    const deauth = await service.app.inject({
      method: 'DELETE',
      url: `/v2/auth/deauthenticateUser?user_id=${userId}`,
      headers: developer.headers,
    });
    assert.equal(deauth.statusCode, 200, deauth.body);
    const refused = await service.app.inject({
      method: 'POST',
      url: '/v2/sdk/upload',
      headers: { authorization: `Bearer ${uploadToken}` },
      payload: { platform: 'APPLE', records: [] },
    });
    assert.equal(problemOf(refused).status, 401);
    assert.match(problemOf(refused).body.detail, /revoked/);
  });
});

describe('mobile SDK: Health Connect records', () => {
  let service: TestService;
  let developer: TestDeveloper;

  before(async () => {
    service = await startTestService();
    developer = await createDeveloper(service.ctx);
  });
  after(async () => {
    await service?.close();
  });

  const meta = (id: string, packageName: string, deviceType: number) => ({
    id,
    dataOrigin: { packageName },
    lastModifiedTime: '2026-11-20T20:00:00Z',
    device: {
      type: deviceType,
      manufacturer: 'Google',
      model: deviceType === 1 ? 'Pixel Watch 2' : 'Pixel 8',
    },
  });

  test('steps from a watch app and a phone app are not added twice; sleep stages, weight, deletions', async () => {
    const { userId, uploadToken } = await sdkConnect(service.app, developer, 'HEALTH_CONNECT');
    const upload = {
      platform: 'HEALTH_CONNECT',
      records: [
        {
          recordType: 'StepsRecord',
          count: 4000,
          startTime: '2026-11-20T07:00:00Z',
          endTime: '2026-11-20T09:00:00Z',
          startZoneOffset: '+02:00',
          endZoneOffset: '+02:00',
          metadata: meta('hc-1', 'com.google.android.apps.fitness', 1),
        },
        {
          recordType: 'StepsRecord',
          count: 3900,
          startTime: '2026-11-20T07:00:00Z',
          endTime: '2026-11-20T09:00:00Z',
          startZoneOffset: '+02:00',
          endZoneOffset: '+02:00',
          metadata: meta('hc-2', 'com.sec.android.app.shealth', 2),
        },
        {
          recordType: 'StepsRecord',
          count: 600,
          startTime: '2026-11-20T15:00:00Z',
          endTime: '2026-11-20T16:00:00Z',
          startZoneOffset: '+02:00',
          endZoneOffset: '+02:00',
          metadata: meta('hc-3', 'com.sec.android.app.shealth', 2),
        },
        {
          recordType: 'Distance',
          distance: { inMeters: 3000, inKilometers: 3 },
          startTime: '2026-11-20T07:00:00Z',
          endTime: '2026-11-20T09:00:00Z',
          startZoneOffset: '+02:00',
          endZoneOffset: '+02:00',
          metadata: meta('hc-4', 'com.google.android.apps.fitness', 1),
        },
        {
          recordType: 'HeartRateRecord',
          startTime: '2026-11-20T07:00:00Z',
          endTime: '2026-11-20T07:02:00Z',
          startZoneOffset: '+02:00',
          samples: [
            { time: '2026-11-20T07:00:00Z', beatsPerMinute: 90 },
            { time: '2026-11-20T07:01:00Z', beatsPerMinute: 110 },
          ],
          metadata: meta('hc-5', 'com.google.android.apps.fitness', 1),
        },
        {
          recordType: 'WeightRecord',
          weight: { inKilograms: 80, inPounds: 176.37 },
          time: '2026-11-20T05:00:00Z',
          zoneOffset: '+02:00',
          metadata: meta('hc-6', 'com.withings.wiscale2', 3),
        },
        {
          recordType: 'OxygenSaturationRecord',
          percentage: 96,
          time: '2026-11-20T05:00:00Z',
          zoneOffset: '+02:00',
          metadata: meta('hc-7', 'com.google.android.apps.fitness', 1),
        },
        {
          recordType: 'SleepSessionRecord',
          startTime: '2026-11-19T21:00:00Z',
          endTime: '2026-11-20T04:00:00Z',
          startZoneOffset: '+02:00',
          endZoneOffset: '+02:00',
          stages: [
            { startTime: '2026-11-19T21:00:00Z', endTime: '2026-11-20T00:00:00Z', stage: 4 },
            { startTime: '2026-11-20T00:00:00Z', endTime: '2026-11-20T01:30:00Z', stage: 5 },
            { startTime: '2026-11-20T01:30:00Z', endTime: '2026-11-20T04:00:00Z', stage: 6 },
          ],
          metadata: meta('hc-8', 'com.google.android.apps.fitness', 1),
        },
        {
          recordType: 'ExerciseSessionRecord',
          exerciseType: 79,
          title: 'Morning walk',
          startTime: '2026-11-20T07:00:00Z',
          endTime: '2026-11-20T08:00:00Z',
          startZoneOffset: '+02:00',
          endZoneOffset: '+02:00',
          metadata: meta('hc-9', 'com.google.android.apps.fitness', 1),
        },
      ],
    };
    await uploadAndSettle(service.ctx, service.app, uploadToken, upload);
    await uploadAndSettle(service.ctx, service.app, uploadToken, upload);
    const read = async (type: string, from = '2026-11-20') =>
      (
        (
          await service.app.inject({
            method: 'GET',
            url: `/v2/${type}?user_id=${userId}&start_date=${from}&end_date=2026-11-21&to_webhook=false&with_samples=true`,
            headers: developer.headers,
          })
        ).json() as { data: Wire[] }
      ).data;
    const [daily] = await read('daily');
    assert.equal(daily!.metadata.start_time, '2026-11-20T00:00:00.000000+02:00');
    assert.equal(daily!.distance_data.steps, 4600, 'watch 4000 + phone-only 600');
    assert.equal(daily!.distance_data.distance_meters, 3000);
    assert.equal(daily!.heart_rate_data.summary.avg_hr_bpm, 100);
    assert.equal(daily!.oxygen_data.avg_saturation_percentage, 96);
    const [sleep] = await read('sleep', '2026-11-19');
    assert.equal(sleep!.sleep_durations_data.asleep.duration_deep_sleep_state_seconds, 5400);
    assert.equal(sleep!.sleep_durations_data.asleep.duration_REM_sleep_state_seconds, 9000);
    const [body] = await read('body');
    assert.equal(body!.measurements_data.measurements[0].weight_kg, 80);
    const [walk] = await read('activity');
    assert.equal(walk!.metadata.type, 7, 'WALKING');
    assert.equal(walk!.metadata.name, 'Morning walk');
    assert.deepEqual(
      walk!.heart_rate_data.detailed.hr_samples.map((s: { bpm: number }) => s.bpm),
      [90, 110],
    );

    await uploadAndSettle(service.ctx, service.app, uploadToken, {
      platform: 'HEALTH_CONNECT',
      deletions: ['hc-1', 'hc-5'],
    });
    const [after] = await read('daily');
    assert.equal(after!.distance_data.steps, 4500, 'the phone app now counts the morning');
    assert.equal(after!.heart_rate_data.summary.avg_hr_bpm ?? null, null);
  });

  test('concurrent uploads of one user touching the same day both count', async () => {
    const { userId, uploadToken } = await sdkConnect(service.app, developer, 'HEALTH_CONNECT');
    const steps = (id: string, hour: number, count: number) => ({
      platform: 'HEALTH_CONNECT',
      records: [
        {
          recordType: 'StepsRecord',
          count,
          startTime: `2026-11-21T${String(hour).padStart(2, '0')}:00:00Z`,
          endTime: `2026-11-21T${String(hour).padStart(2, '0')}:30:00Z`,
          metadata: meta(id, 'com.google.android.apps.fitness', 1),
        },
      ],
    });
    const uploads = await Promise.all(
      [steps('c-1', 8, 100), steps('c-2', 9, 200), steps('c-3', 10, 300), steps('c-4', 11, 400)].map(
        (payload) =>
          service.app.inject({
            method: 'POST',
            url: '/v2/sdk/upload',
            headers: { authorization: `Bearer ${uploadToken}` },
            payload,
          }),
      ),
    );
    for (const upload of uploads) {
      assert.equal(upload.statusCode, 202);
      const { upload_id } = upload.json() as { upload_id: string };
      await waitForJobsSettled(service.ctx, NORMALIZE_UPLOAD_QUEUE, { data: { uploadId: upload_id } });
    }
    const response = await service.app.inject({
      method: 'GET',
      url: `/v2/daily?user_id=${userId}&start_date=2026-11-21&end_date=2026-11-22&to_webhook=false`,
      headers: developer.headers,
    });
    const [daily] = (response.json() as { data: Wire[] }).data;
    assert.equal(daily!.distance_data.steps, 1000);
  });

  test('SAMSUNG connects and uploads in the Health Connect shape', async () => {
    const { userId, uploadToken } = await sdkConnect(service.app, developer, 'SAMSUNG');
    await uploadAndSettle(service.ctx, service.app, uploadToken, {
      platform: 'SAMSUNG',
      records: [
        {
          recordType: 'Steps',
          count: 1234,
          startTime: '2026-11-20T10:00:00+09:00',
          endTime: '2026-11-20T11:00:00+09:00',
          metadata: meta('s-1', 'com.sec.android.app.shealth', 1),
        },
      ],
    });
    const response = await service.app.inject({
      method: 'GET',
      url: `/v2/daily?user_id=${userId}&start_date=2026-11-20&end_date=2026-11-21&to_webhook=false&with_samples=true`,
      headers: developer.headers,
    });
    const [daily] = (response.json() as { data: Wire[] }).data;
    assert.equal(daily!.distance_data.steps, 1234);
    assert.equal(daily!.metadata.start_time, '2026-11-20T00:00:00.000000+09:00');
  });
});
