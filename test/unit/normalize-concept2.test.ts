// Concept2 normalizers against payloads written from the documented result and stroke fields
// (providers-3.md §6; no real recorded payloads are public): tenths of a second, local `date`
// beside `timezone` and `date_utc`, strokes in tenths / decimetres, web-logged zeros.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Value } from 'typebox/value';
import { Activity, ActivityType, Athlete, UploadType } from '../../src/model/index.ts';
import { NormalizationError } from '../../src/provider-kit/normalize/errors.ts';
import type { NormalizeContext } from '../../src/provider-kit/normalize/normalize.ts';
import { concept2Notifications } from '../../src/providers/concept2/connector.ts';
import { type Concept2Result, concept2Normalizers } from '../../src/providers/concept2/normalize/index.ts';

const context: NormalizeContext = { userOffsetMinutes: null };
const result: Concept2Result = {
  id: 3_312_775,
  user_id: 1,
  date: '2026-07-14 18:05:00',
  timezone: 'Europe/London',
  date_utc: '2026-07-14 17:05:00',
  distance: 5000,
  type: 'rower',
  time: 12_000,
  time_formatted: '20:00.0',
  workout_type: 'FixedDistanceSplits',
  source: 'ErgData iOS',
  verified: true,
  stroke_data: true,
  stroke_rate: 26,
  stroke_count: 520,
  calories_total: 310,
  heart_rate: { average: 152, min: 0, max: 0, ending: 170 },
  rest_time: 600,
  workout: {
    splits: [
      { type: 'distance', time: 6000, distance: 2500, calories_total: 155, heart_rate: { average: 148 } },
      { type: 'distance', time: 6000, distance: 2500, calories_total: 155, heart_rate: { average: 0 } },
    ],
  },
};
const strokes = [
  { t: 0, d: 0, p: 1200, spm: 0, hr: 0 },
  { t: 25, d: 104, p: 1200, spm: 26, hr: 131 },
  { t: null, d: 150, p: 1150, spm: 27, hr: 140 },
  { t: 50, d: 208, p: 1000, spm: 28, hr: 255 },
  { t: 75, d: 312, p: 1100, spm: 30, hr: 160 },
];

const normalize = (payload: Parameters<typeof concept2Normalizers.result.normalize>[0], ctx = context) => {
  const [record] = concept2Normalizers.result.normalize(payload, ctx);
  assert.ok(record);
  assert.ok(Value.Check(Activity, record), JSON.stringify([...Value.Errors(Activity, record)].slice(0, 3)));
  return record;
};

describe('Concept2 result + strokes -> Activity', () => {
  const record = normalize({ result, strokes });

  test('local date with date_utc gives the offset; time in tenths; rest after the work', () => {
    assert.deepEqual(record.metadata, {
      summary_id: '3312775',
      start_time: '2026-07-14T18:05:00.000000+01:00',
      end_time: '2026-07-14T18:26:00.000000+01:00',
      type: ActivityType.ROWING_MACHINE,
      upload_type: UploadType.AUTOMATIC,
      name: 'FixedDistanceSplits',
      timestamp_localization: 1,
    });
    assert.deepEqual(record.active_durations_data, { activity_seconds: 1200, rest_seconds: 60 });
  });

  test('summary: distance, calories, pace, stroke rate, power from the pace', () => {
    assert.equal(record.distance_data?.summary?.distance_meters, 5000);
    assert.equal(record.calories_data?.total_burned_calories, 310);
    assert.equal(record.movement_data?.avg_speed_meters_per_second, 5000 / 1200);
    assert.equal(record.movement_data?.avg_cadence_rpm, 26);
    // 2:00.0 / 500 m is 0.24 s/m: 2.80 / 0.24^3 = 202.5 W.
    assert.ok(Math.abs((record.power_data?.avg_watts ?? 0) - 202.546) < 0.01);
  });

  test('strokes: the one without `t` is skipped, placeholders are no heart rate, maxima from them', () => {
    const hr = record.heart_rate_data?.detailed?.hr_samples ?? [];
    assert.deepEqual(
      hr.map((sample) => [sample.timer_duration_seconds, sample.bpm]),
      [
        [2.5, 131],
        [7.5, 160],
      ],
    );
    assert.equal(record.heart_rate_data?.summary?.avg_hr_bpm, 152);
    assert.equal(record.heart_rate_data?.summary?.max_hr_bpm, 160, 'max 0 in the summary: from the strokes');
    assert.equal(record.heart_rate_data?.summary?.min_hr_bpm, 131);
    assert.equal(record.movement_data?.speed_samples?.length, 4);
    assert.equal(record.movement_data?.max_speed_meters_per_second, 5, '1:40.0 / 500 m');
    assert.equal(record.movement_data?.max_cadence_rpm, 30);
    assert.equal(record.distance_data?.detailed?.distance_samples?.[1]?.distance_meters, 10.4);
    assert.ok(
      (record.heart_rate_data?.detailed?.hr_samples ?? []).every(
        (sample) => sample.timestamp !== record.metadata.start_time,
      ),
      'nothing stamped at the start for the stroke without a time',
    );
  });

  test('splits become laps, one after the other', () => {
    const laps = record.lap_data?.laps ?? [];
    assert.equal(laps.length, 2);
    assert.equal(laps[1]?.start_time, '2026-07-14T18:15:00.000000+01:00');
    assert.equal(laps[1]?.avg_hr_bpm, null);
    assert.equal(laps[0]?.avg_speed_meters_per_second, 2500 / 600);
  });

  test('without date_utc the offset comes from the timezone and the local date (DST included)', () => {
    const { date_utc: _utc, ...local } = result;
    assert.equal(normalize({ result: local }).metadata.start_time, '2026-07-14T18:05:00.000000+01:00');
    const winter = normalize({
      result: { ...local, date: '2026-01-14 18:05:00', timezone: 'America/New_York' },
    });
    assert.equal(winter.metadata.start_time, '2026-01-14T18:05:00.000000-05:00');
  });

  test('a result typed into the web log: MANUAL, and its zeros are no measurement', () => {
    const typed = normalize({
      result: {
        ...result,
        source: 'Web',
        calories_total: 0,
        distance: 0,
        stroke_rate: 0,
        heart_rate: { average: 0 },
      },
    });
    assert.equal(typed.metadata.upload_type, UploadType.MANUAL);
    assert.equal(typed.calories_data?.total_burned_calories, null);
    assert.equal(typed.distance_data?.summary?.distance_meters, null);
    assert.equal(typed.movement_data?.avg_cadence_rpm, null);
    assert.equal(typed.heart_rate_data?.summary?.avg_hr_bpm, null);
  });

  test('machines: BikeErg pace is per 1000 m and gives no power; an unknown machine by its parts', () => {
    const bike = normalize({ result: { ...result, type: 'bike' }, strokes: [{ t: 10, p: 1200 }] });
    assert.equal(bike.metadata.type, ActivityType.STATIONARY_BIKING);
    assert.equal(bike.movement_data?.speed_samples?.[0]?.speed_meters_per_second, 1000 / 120);
    assert.deepEqual(bike.power_data?.power_samples, []);
    assert.equal(
      normalize({ result: { ...result, type: 'rower_v2' } }).metadata.type,
      ActivityType.ROWING_MACHINE,
    );
  });

  test('shapes not documented: a clean NormalizationError', () => {
    assert.throws(
      () => concept2Normalizers.result.normalize({ result: { ...result, date: 'yesterday' } }, context),
      (error) => error instanceof NormalizationError && /CONCEPT2 result 3312775/.test(error.message),
    );
    assert.throws(
      () => concept2Normalizers.result.normalize({ result: null as never }, context),
      NormalizationError,
    );
  });
});

describe('Concept2 user -> Athlete', () => {
  test('names, e-mail, gender, birth date, country', () => {
    const [athlete] = concept2Normalizers.user.normalize(
      {
        user: {
          id: 1,
          username: 'erg',
          first_name: 'Erg',
          last_name: 'Rower',
          gender: 'M',
          dob: '1980-01-02',
          email: 'erg@example.com',
          country: 'GBR',
          weight: 8000,
        },
      },
      context,
    );
    assert.ok(Value.Check(Athlete, athlete));
    assert.deepEqual(
      [athlete?.provider_user_id, athlete?.sex, athlete?.date_of_birth, athlete?.country],
      ['1', 'male', '1980-01-02', 'GBR'],
    );
  });
});

describe('Concept2 webhook', () => {
  const request = (query: string, secret: string | null) => ({
    headers: {},
    rawBody: Buffer.from('{}'),
    query: new URLSearchParams(query),
    secret,
    clientId: null,
    subscriptionIds: [],
    now: new Date(),
  });

  test('the secret token in the URL is the check', () => {
    assert.equal(concept2Notifications.verify(request('token=abc', 'abc')), 'valid');
    assert.equal(concept2Notifications.verify(request('token=abd', 'abc')), 'invalid');
    assert.equal(concept2Notifications.verify(request('', 'abc')), 'invalid');
    assert.equal(concept2Notifications.verify(request('token=abc', null)), 'unconfigured');
  });

  test('added / updated name the result and its day; deleted names the id only', async () => {
    const added = concept2Notifications.parse(
      Buffer.from(JSON.stringify({ data: { type: 'result-added', result } })),
      new Date('2026-11-01T00:00:00Z'),
    );
    assert.deepEqual(added, [
      {
        kind: 'data',
        providerUserId: '1',
        dataKind: 'result',
        objectId: '3312775',
        action: 'create',
        eventTime: '2026-07-14',
      },
    ]);
    assert.deepEqual(await concept2Notifications.locate(added[0] as never, null as never), {
      types: ['activity'],
      startDate: '2026-07-13',
      endDate: '2026-07-16',
    });
    const bare = concept2Notifications.parse(
      Buffer.from(JSON.stringify({ type: 'result-updated', result })),
      new Date('2026-11-01T00:00:00Z'),
    );
    assert.equal(bare[0]?.kind, 'data', 'the body without its data wrapper');
    const deleted = concept2Notifications.parse(
      Buffer.from(JSON.stringify({ data: { type: 'result-deleted', result_id: 9, user_id: 1 } })),
      new Date('2026-11-01T00:00:00Z'),
    );
    assert.equal((deleted[0] as { action: string }).action, 'delete');
    assert.equal(await concept2Notifications.locate(deleted[0] as never, null as never), null);
  });
});
