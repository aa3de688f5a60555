// Wahoo normalizers against payloads written from the documented schema (providers-3.md §4:
// summary numbers as strings, `file.url` on the CDN; the real webhook body captured in
// Rove-LTD/Rove's tests, rewritten here) and FIT files built with Garmin's SDK Encoder.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Value } from 'typebox/value';
import { Activity, ActivityType, Athlete, UploadType } from '../../src/model/index.ts';
import { NormalizationError } from '../../src/provider-kit/normalize/errors.ts';
import type { NormalizeContext } from '../../src/provider-kit/normalize/normalize.ts';
import { wahooNotifications } from '../../src/providers/wahoo/connector.ts';
import { type WahooWorkout, wahooNormalizers } from '../../src/providers/wahoo/normalize/index.ts';
import { buildActivityFit } from '../fakes/fit-files.ts';

const context: NormalizeContext = { userOffsetMinutes: null, now: Date.parse('2026-11-01T00:00:00Z') };
const startMs = Date.parse('2026-10-04T06:30:00Z');

const workout: WahooWorkout = {
  id: 123456,
  starts: '2026-10-04T06:30:00.000Z',
  minutes: 60,
  name: 'Morning Ride',
  plan_id: null,
  workout_token: 'ELEMNT AE48:274',
  workout_type_id: 15,
  created_at: '2026-10-04T07:35:00.000Z',
  updated_at: '2026-10-04T07:35:00.000Z',
  workout_summary: {
    id: 99,
    ascent_accum: '212.00',
    cadence_avg: '86.00',
    calories_accum: '712.00',
    distance_accum: '30123.40',
    duration_active_accum: '3540.00',
    duration_paused_accum: '60.00',
    duration_total_accum: '3600.00',
    heart_rate_avg: '141.00',
    power_avg: '205.00',
    power_bike_np_last: '221.00',
    power_bike_tss_last: '63.40',
    speed_avg: '8.51',
    work_accum: '725000.00',
    manual: false,
    edited: false,
    file: { url: 'https://cdn.wahooligan.com/wahoo-cloud/production/uploads/workout_file/file/x/1.fit' },
  },
};

const fit = buildActivityFit({
  seed: 'unit',
  startMs,
  durationSeconds: 3600,
  offsetMinutes: 120,
  sport: 'cycling',
  stepSeconds: 10,
  dropHeartRateAt: [0, 5],
  omitMaxima: true,
});

const normalize = (payload: Parameters<typeof wahooNormalizers.workout.normalize>[0], ctx = context) => {
  const [record] = wahooNormalizers.workout.normalize(payload, ctx);
  assert.ok(record);
  assert.ok(Value.Check(Activity, record), JSON.stringify([...Value.Errors(Activity, record)].slice(0, 3)));
  return record;
};

describe('Wahoo workout + summary + FIT -> Activity', () => {
  const record = normalize({ workout, fit: fit.bytes });

  test('identity, type, and the offset of the device clock in the FIT file', () => {
    assert.deepEqual(record.metadata, {
      summary_id: '123456',
      start_time: '2026-10-04T08:30:00.000000+02:00',
      end_time: '2026-10-04T09:30:00.000000+02:00',
      type: ActivityType.ROAD_BIKING,
      upload_type: UploadType.AUTOMATIC,
      name: 'Morning Ride',
      timestamp_localization: 1,
    });
  });

  test('summary strings read as numbers, and they win over the file', () => {
    assert.deepEqual(record.active_durations_data, { activity_seconds: 3540, rest_seconds: 60 });
    assert.equal(record.calories_data?.total_burned_calories, 712);
    assert.equal(record.work_data?.work_kilojoules, 725);
    assert.equal(record.distance_data?.summary?.distance_meters, 30123.4);
    assert.equal(record.distance_data?.summary?.elevation?.gain_actual_meters, 212);
    assert.equal(record.heart_rate_data?.summary?.avg_hr_bpm, 141);
    assert.equal(record.power_data?.avg_watts, 205);
    assert.equal(record.movement_data?.avg_speed_meters_per_second, 8.51);
    assert.equal(record.movement_data?.avg_cadence_rpm, 86);
    assert.deepEqual(record.TSS_data?.TSS_samples?.[0], {
      planned: null,
      actual: 63.4,
      method: 'POWER',
      intensity_factor_planned: null,
      intensity_factor_actual: null,
      normalized_power_watts: 221,
    });
  });

  test('maxima the session omits come from the records, for every metric', () => {
    assert.equal(record.heart_rate_data?.summary?.max_hr_bpm, fit.facts.maxHr);
    assert.equal(record.power_data?.max_watts, fit.facts.maxPower);
    assert.equal(record.movement_data?.max_speed_meters_per_second, fit.facts.maxSpeed);
    assert.ok((record.movement_data?.max_cadence_rpm ?? 0) >= 75);
  });

  test('samples from every record; the 0 bpm placeholders are no samples', () => {
    const hr = record.heart_rate_data?.detailed?.hr_samples ?? [];
    assert.equal(hr.length, fit.facts.records - 2);
    assert.ok(hr.every((sample) => (sample.bpm ?? 0) > 0));
    assert.equal(record.power_data?.power_samples?.length, fit.facts.records);
    assert.equal(record.position_data?.position_samples?.length, fit.facts.records);
    assert.equal(record.movement_data?.speed_samples?.[1]?.timer_duration_seconds, 10);
    assert.equal(record.movement_data?.speed_samples?.[1]?.timestamp, '2026-10-04T08:30:10.000000+02:00');
    const [lat, lng] = record.position_data?.start_pos_lat_lng_deg ?? [];
    assert.ok(Math.abs((lat ?? 0) - 52.37005) < 1e-4 && Math.abs((lng ?? 0) - 4.89003) < 1e-4);
    assert.equal(record.lap_data?.laps?.length, 2);
    assert.equal(record.device_data?.manufacturer, 'wahooFitness');
  });

  test('a summary time_zone wins over the device clock', () => {
    const zoned = normalize({
      workout: {
        ...workout,
        workout_summary: { ...workout.workout_summary!, time_zone: 'America/New_York' },
      },
      fit: fit.bytes,
    });
    assert.equal(zoned.metadata.start_time, '2026-10-04T02:30:00.000000-04:00');
  });

  test('without a file: the summary alone, the user’s offset, no invented maxima', () => {
    const bare = normalize({ workout, fit: null }, { ...context, userOffsetMinutes: -300 });
    assert.equal(bare.metadata.start_time, '2026-10-04T01:30:00.000000-05:00');
    assert.equal(bare.heart_rate_data?.summary?.max_hr_bpm, null);
    assert.deepEqual(bare.heart_rate_data?.detailed?.hr_samples, []);
    assert.equal(bare.device_data?.name, 'ELEMNT AE48:274');
  });

  test('a manual entry, a 0 bpm average and an unknown type id', () => {
    const manual = normalize({
      workout: {
        ...workout,
        workout_type_id: 9999,
        workout_summary: { ...workout.workout_summary!, manual: true, heart_rate_avg: '0.00', file: null },
      },
    });
    assert.equal(manual.metadata.upload_type, UploadType.MANUAL);
    assert.equal(manual.metadata.type, ActivityType.OTHER);
    assert.equal(manual.heart_rate_data?.summary?.avg_hr_bpm, null);
  });

  test('a file that is not FIT, or a workout without a start, is a NormalizationError', () => {
    assert.throws(
      () => wahooNormalizers.workout.normalize({ workout, fit: new Uint8Array([1, 2, 3]) }, context),
      (error) =>
        error instanceof NormalizationError &&
        /WAHOO workout 123456: unreadable FIT file/.test(error.message),
    );
    assert.throws(
      () => wahooNormalizers.workout.normalize({ workout: { ...workout, starts: 'soon' } }, context),
      NormalizationError,
    );
    assert.throws(
      () => wahooNormalizers.workout.normalize({ workout: 'x' as never }, context),
      NormalizationError,
    );
  });
});

describe('Wahoo user -> Athlete', () => {
  test('names, e-mail, gender code, birth date and age', () => {
    const [athlete] = wahooNormalizers.user.normalize(
      {
        user: {
          id: 60_462,
          height: '2.0',
          weight: '80.0',
          first: 'Wahoo',
          last: 'User',
          email: 'sample@wahoofitness.com',
          birth: '1990-11-02',
          gender: 1,
          created_at: '2018-07-11T14:41:57.000Z',
          updated_at: '2018-07-11T14:41:57.000Z',
        },
      },
      context,
    );
    assert.ok(Value.Check(Athlete, athlete));
    assert.equal(athlete?.provider_user_id, '60462');
    assert.equal(athlete?.sex, 'female');
    assert.equal(athlete?.age, 35);
    assert.equal(athlete?.account_creation_date, '2018-07-11T14:41:57.000000+00:00');
  });
});

describe('Wahoo webhook', () => {
  const body = Buffer.from(
    JSON.stringify({
      event_type: 'workout_summary',
      webhook_token: 'token-1',
      user: { id: 60_462 },
      workout_summary: {
        ...workout.workout_summary,
        workout: { id: 123456, starts: '2026-10-04T06:30:00.000Z', workout_type_id: 15 },
      },
    }),
  );
  const request = (raw: Buffer, secret: string | null) => ({
    headers: {},
    rawBody: raw,
    secret,
    clientId: null,
    subscriptionIds: [],
    now: new Date(),
  });

  test('the body’s webhook_token is the check', () => {
    assert.equal(wahooNotifications.verify(request(body, 'token-1')), 'valid');
    assert.equal(wahooNotifications.verify(request(body, 'token-2')), 'invalid');
    assert.equal(wahooNotifications.verify(request(Buffer.from('{'), 'token-1')), 'invalid');
    assert.equal(wahooNotifications.verify(request(body, null)), 'unconfigured');
  });

  test('a workout_summary names the user, the workout and its day', async () => {
    const [notification] = wahooNotifications.parse(body, new Date('2026-11-01T00:00:00Z'));
    assert.deepEqual(notification, {
      kind: 'data',
      providerUserId: '60462',
      dataKind: 'workout',
      objectId: '123456',
      action: 'update',
      eventTime: '2026-10-04T06:30:00.000Z',
    });
    const located = await wahooNotifications.locate(notification as never, null as never);
    assert.deepEqual(located, { types: ['activity'], startDate: '2026-10-03', endDate: '2026-10-06' });
    assert.equal(
      wahooNotifications.parse(Buffer.from('{"event_type":"other"}'), new Date('2026-11-01T00:00:00Z'))[0]
        ?.kind,
      'ignored',
    );
  });
});
