// FITBIT (Google Health API v4) normalizers against data points written from the v4 reference
// (providers.md §10: int64 as strings, Duration offsets, civil times, resource names), plus the
// legacy Fitbit subscription sample under ../shared/reference (read in place): a body Google never
// sends must be ignored cleanly. Checked: every record valid with no undeclared keys; 0/255 heart
// rates are not readings; a missing offset comes from the civil time; sport names by their parts;
// maxima from the heart-rate stream; time in bed from the interval; garbage skipped, no TypeError.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { ActivityType } from '../../src/model/activity-type.ts';
import { MealType, SleepLevel, UploadType } from '../../src/model/enums.ts';
import { Activity, Body, Daily, Nutrition, Sleep } from '../../src/model/index.ts';
import { undeclaredKeys } from '../../src/model/schema-walk.ts';
import { fitbitNotifications } from '../../src/providers/fitbit/connector.ts';
import { googleActivityType } from '../../src/providers/fitbit/normalize/exercise.ts';
import { fitbitNormalizers, fitbitNutrition } from '../../src/providers/fitbit/normalize/index.ts';
import type { DataPoint } from '../../src/providers/fitbit/normalize/types.ts';
import type { NormalizeContext } from '../../src/provider-kit/normalize/normalize.ts';
import { missingProviderSamples, readProviderSample } from '../helpers/provider-samples.ts';

const context: NormalizeContext = { userOffsetMinutes: null, now: Date.parse('2026-06-10T00:00:00Z') };

function assertRecord(schema: TSchema, value: unknown, label: string): void {
  if (!Value.Check(schema, value)) {
    const errors = [...Value.Errors(schema, value)].slice(0, 5);
    assert.fail(`${label} is invalid: ${JSON.stringify(errors, null, 2)}`);
  }
  assert.deepEqual(undeclaredKeys(schema, value), [], `${label}: undeclared keys`);
}

const hr = (time: string, bpm: string, utcOffset: string | undefined = '-14400s'): DataPoint => ({
  name: `users/me/dataTypes/heart-rate/dataPoints/${time}`,
  heartRate: { sampleTime: { physicalTime: time, ...(utcOffset ? { utcOffset } : {}) }, beatsPerMinute: bpm },
});

describe('Google Health exercise', () => {
  const exercise: DataPoint = {
    name: 'users/me/dataTypes/exercise/dataPoints/4410',
    dataSource: {
      recordingMethod: 'ACTIVELY_RECORDED',
      device: { manufacturer: 'Google', displayName: 'Pixel Watch 3' },
    },
    exercise: {
      interval: {
        startTime: '2026-06-01T11:00:00Z',
        startUtcOffset: '-14400s',
        endTime: '2026-06-01T11:40:00Z',
        endUtcOffset: '-14400s',
      },
      exerciseType: 'OUTDOOR_RUNNING',
      displayName: 'Morning run',
      activeDuration: '2340s',
      metricsSummary: {
        caloriesKcal: 410,
        distanceMillimeters: 7_200_000,
        steps: '6800',
        averageHeartRateBeatsPerMinute: '255',
        averageSpeedMillimetersPerSecond: 3000,
        elevationGainMillimeters: 42_000,
      },
    },
  };
  const [record] = fitbitNormalizers.exercise.normalize(
    {
      exercise: [exercise],
      'heart-rate': [
        hr('2026-06-01T11:05:00Z', '140'),
        hr('2026-06-01T11:06:00Z', '0'),
        hr('2026-06-01T11:07:00Z', '171'),
        hr('2026-06-01T11:08:00Z', '255'),
        hr('2026-06-01T12:30:00Z', '190'),
        { name: 'users/me/dataTypes/heart-rate/dataPoints/x', heartRate: { beatsPerMinute: '150' } },
      ],
    },
    context,
  );

  test('valid; int64 strings, millimetres and Durations converted', () => {
    assertRecord(Activity, record, 'activity');
    assert.equal(record?.metadata.summary_id, '4410');
    assert.equal(record?.metadata.start_time, '2026-06-01T07:00:00.000000-04:00');
    assert.equal(record?.metadata.type, ActivityType.RUNNING, 'OUTDOOR_RUNNING by its parts');
    assert.equal(record?.metadata.upload_type, UploadType.AUTOMATIC);
    assert.equal(record?.distance_data?.summary?.distance_meters, 7200);
    assert.equal(record?.distance_data?.summary?.steps, 6800);
    assert.equal(record?.distance_data?.summary?.elevation?.gain_actual_meters, 42);
    assert.equal(record?.active_durations_data?.activity_seconds, 2340);
    assert.equal(record?.movement_data?.avg_speed_meters_per_second, 3);
  });

  test('`caloriesKcal` is the total burned during the exercise, not the active part', () => {
    assert.equal(record?.calories_data?.total_burned_calories, 410);
    assert.equal(record?.calories_data?.net_activity_calories ?? null, null);
  });

  test('heart rate from the samples inside the session: sentinels and untimed ones skipped, maxima from the stream', () => {
    assert.deepEqual(
      record?.heart_rate_data?.detailed?.hr_samples?.map((sample) => sample.bpm),
      [140, 171],
    );
    assert.equal(record?.heart_rate_data?.summary?.max_hr_bpm, 171);
    assert.equal(record?.heart_rate_data?.summary?.avg_hr_bpm, 155.5, 'a 255 average is no reading');
  });

  test('sport names: the shared ones, by parts, else OTHER', () => {
    assert.equal(googleActivityType('BIKING'), ActivityType.BIKING);
    assert.equal(googleActivityType('STRENGTH_TRAINING'), ActivityType.STRENGTH_TRAINING);
    assert.equal(googleActivityType('POOL_SWIMMING'), ActivityType.SWIMMING_SWIMMING_POOL);
    assert.equal(googleActivityType('weightlifting_msk'), ActivityType.WEIGHTLIFTING);
    assert.equal(googleActivityType('EXERCISE_TYPE_UNSPECIFIED'), ActivityType.OTHER);
  });
});

describe('Google Health sleep', () => {
  const stage = (start: string, end: string, type: string) => ({ startTime: start, endTime: end, type });
  const night: DataPoint = {
    name: 'users/me/dataTypes/sleep/dataPoints/99',
    sleep: {
      // No offsets: the civil start time tells it (23:10 local = 03:10 UTC -> -04:00).
      interval: {
        startTime: '2026-06-02T03:10:00Z',
        endTime: '2026-06-02T10:40:00Z',
        civilStartTime: { date: { year: 2026, month: 6, day: 1 }, time: { hours: 23, minutes: 10 } },
        civilEndTime: { date: { year: 2026, month: 6, day: 2 }, time: { hours: 6, minutes: 40 } },
      },
      type: 'STAGES',
      metadata: { nap: false },
      stages: [
        stage('2026-06-02T03:10:00Z', '2026-06-02T03:20:00Z', 'AWAKE'),
        stage('2026-06-02T03:20:00Z', '2026-06-02T05:00:00Z', 'LIGHT'),
        stage('2026-06-02T05:00:00Z', '2026-06-02T06:30:00Z', 'DEEP'),
        stage('2026-06-02T06:30:00Z', '2026-06-02T07:00:00Z', 'AWAKE'),
        stage('2026-06-02T07:00:00Z', '2026-06-02T10:40:00Z', 'REM'),
      ],
      summary: { minutesToFallAsleep: '10', minutesAfterWakeUp: '0' },
    },
  };
  const [record] = fitbitNormalizers.sleep.normalize(
    {
      sleep: [night],
      'daily-heart-rate-variability': [
        {
          dailyHeartRateVariability: {
            date: { year: 2026, month: 6, day: 2 },
            averageHeartRateVariabilityMilliseconds: 41.5,
          },
        },
      ],
      'daily-respiratory-rate': [
        { dailyRespiratoryRate: { date: { year: 2026, month: 6, day: 2 }, breathsPerMinute: 14.2 } },
      ],
      'daily-sleep-temperature-derivations': [
        {
          dailySleepTemperatureDerivations: {
            date: { year: 2026, month: 6, day: 2 },
            nightlyTemperatureCelsius: 34.6,
            baselineTemperatureCelsius: 34.2,
          },
        },
      ],
    },
    context,
  );

  test('valid; offset from the civil time; stages; in bed from the interval', () => {
    assertRecord(Sleep, record, 'sleep');
    assert.equal(record?.metadata.start_time, '2026-06-01T23:10:00.000000-04:00');
    assert.equal(
      record?.sleep_durations_data?.other?.duration_in_bed_seconds,
      27_000,
      'derived from start and end',
    );
    assert.equal(
      record?.sleep_durations_data?.asleep?.duration_asleep_state_seconds,
      24_600,
      'from the stages',
    );
    assert.equal(record?.sleep_durations_data?.asleep?.duration_deep_sleep_state_seconds, 5400);
    assert.equal(record?.sleep_durations_data?.awake?.sleep_latency_seconds, 600);
    assert.equal(record?.sleep_durations_data?.awake?.num_wakeup_events, 1);
    assert.deepEqual(
      record?.sleep_durations_data?.hypnogram_samples?.map((sample) => sample.level),
      [SleepLevel.AWAKE, SleepLevel.LIGHT, SleepLevel.DEEP, SleepLevel.AWAKE, SleepLevel.REM],
    );
  });

  test('the wake-up day’s HRV, breathing rate and temperature deviation', () => {
    assert.equal(record?.heart_rate_data?.summary?.avg_hrv_rmssd, 41.5);
    assert.equal(record?.respiration_data?.breaths_data?.avg_breaths_per_min, 14.2);
    assert.ok(Math.abs((record?.temperature_data?.delta ?? 0) - 0.4) < 1e-9);
  });

  // v4 Sleep.SleepType: CLASSIC has AWAKE / RESTLESS / ASLEEP only; SleepMetadata.stagesStatus
  // says whether the stages algorithm ran. No stage measured: null, not a zero reading.
  const classic = (status: string | undefined, type: string | undefined): DataPoint => ({
    name: 'users/me/dataTypes/sleep/dataPoints/100',
    sleep: {
      interval: night.sleep!.interval!,
      ...(type ? { type } : {}),
      metadata: { nap: false, ...(status ? { stagesStatus: status } : {}) },
      stages: [
        stage('2026-06-02T03:10:00Z', '2026-06-02T03:20:00Z', 'AWAKE'),
        stage('2026-06-02T03:20:00Z', '2026-06-02T07:00:00Z', 'ASLEEP'),
        stage('2026-06-02T07:00:00Z', '2026-06-02T07:10:00Z', 'RESTLESS'),
        stage('2026-06-02T07:10:00Z', '2026-06-02T10:40:00Z', 'ASLEEP'),
      ],
      summary: { minutesAsleep: '430' },
    },
  });
  for (const [status, type] of [
    ['REJECTED_SERVER', 'CLASSIC'],
    ['REJECTED_COVERAGE', undefined],
    [undefined, 'CLASSIC'],
    [undefined, undefined],
  ] as const)
    test(`a classic night (stagesStatus ${status ?? 'absent'}, type ${type ?? 'absent'}): no light, deep or REM`, () => {
      const [sleep] = fitbitNormalizers.sleep.normalize({ sleep: [classic(status, type)] }, context);
      assertRecord(Sleep, sleep, 'classic sleep');
      const asleep = sleep?.sleep_durations_data?.asleep;
      assert.equal(asleep?.duration_asleep_state_seconds, 25_800, 'asleep time is measured');
      assert.equal(asleep?.duration_light_sleep_state_seconds, null);
      assert.equal(asleep?.duration_deep_sleep_state_seconds, null);
      assert.equal(asleep?.duration_REM_sleep_state_seconds, null);
      assert.equal(asleep?.num_REM_events, null);
    });

  test('stages whose algorithm did not succeed are not read as measured stages', () => {
    const rejected: DataPoint = {
      ...night,
      sleep: { ...night.sleep, metadata: { nap: false, stagesStatus: 'TIMEOUT' } },
    };
    const [sleep] = fitbitNormalizers.sleep.normalize({ sleep: [rejected] }, context);
    assert.equal(sleep?.sleep_durations_data?.asleep?.duration_deep_sleep_state_seconds, null);
    const [succeeded] = fitbitNormalizers.sleep.normalize(
      { sleep: [{ ...night, sleep: { ...night.sleep, metadata: { stagesStatus: 'SUCCEEDED' } } }] },
      context,
    );
    assert.equal(succeeded?.sleep_durations_data?.asleep?.duration_deep_sleep_state_seconds, 5400);
  });
});

describe('Google Health daily, body, nutrition', () => {
  const span = (hour: number) => ({
    startTime: `2026-06-03T${String(hour).padStart(2, '0')}:00:00Z`,
    startUtcOffset: '7200s',
    endTime: `2026-06-03T${String(hour + 1).padStart(2, '0')}:00:00Z`,
  });

  const civil = (day: number) => ({ date: { year: 2026, month: 6, day }, time: { hours: 0 } });
  const window = (day: number, value: object) => ({
    civilStartTime: civil(day),
    civilEndTime: civil(day + 1),
    ...value,
  });

  test('day totals are the rollups of the reconciled stream, not a sum of raw points', () => {
    const records = fitbitNormalizers.steps.normalize(
      {
        rollups: {
          // Google's total over the reconciled stream (the phone's double count left out).
          steps: [window(3, { steps: { countSum: '1500' } })],
          distance: [window(3, { distance: { millimetersSum: '936000' } })],
          floors: [window(3, { floors: { countSum: '2' } })],
          'active-energy-burned': [window(3, { activeEnergyBurned: { kcalSum: 55.5 } })],
          'total-calories': [window(3, { totalCalories: { kcalSum: 1893.2 } })],
        },
        // The intraday series: the watch's points, one stream.
        steps: [
          { steps: { interval: span(8), count: '1200' } },
          { steps: { interval: span(9), count: '300' } },
        ],
        'heart-rate': [
          hr('2026-06-03T08:00:00Z', '70', '7200s'),
          hr('2026-06-03T08:05:00Z', '255', '7200s'),
          hr('2026-06-03T08:10:00Z', '90', '7200s'),
        ],
        'daily-resting-heart-rate': [
          { dailyRestingHeartRate: { date: { year: 2026, month: 6, day: 3 }, beatsPerMinute: '54' } },
        ],
      },
      context,
    );
    assert.equal(records.length, 1);
    assertRecord(Daily, records[0], 'daily');
    assert.equal(records[0]?.metadata.start_time, '2026-06-03T00:00:00.000000+02:00');
    assert.equal(records[0]?.distance_data?.steps, 1500);
    assert.equal(records[0]?.distance_data?.distance_meters, 936, 'int64 millimetres read');
    assert.equal(records[0]?.distance_data?.floors_climbed, 2);
    assert.equal(records[0]?.calories_data?.net_activity_calories, 55.5);
    assert.equal(records[0]?.calories_data?.total_burned_calories, 1893.2);
    assert.equal(records[0]?.distance_data?.detailed?.step_samples?.length, 2);
    assert.equal(records[0]?.heart_rate_data?.summary?.max_hr_bpm, 90);
    assert.equal(records[0]?.heart_rate_data?.summary?.resting_hr_bpm, 54);
  });

  test('raw points never make a total: a day without a rollup has no steps, not their sum', () => {
    const [day] = fitbitNormalizers.steps.normalize(
      {
        steps: [
          { steps: { interval: span(8), count: '1200' } },
          { steps: { interval: span(8), count: '700' } },
        ],
        rollups: { steps: [], 'total-calories': [window(3, { totalCalories: { kcalSum: 1700 } })] },
      },
      context,
    );
    assert.equal(day?.distance_data?.steps, null);
    assert.equal(day?.calories_data?.total_burned_calories, 1700);
  });

  test('a rollup window wider than a day is no day’s total', () => {
    const records = fitbitNormalizers.steps.normalize(
      {
        rollups: { steps: [{ civilStartTime: civil(3), civilEndTime: civil(5), steps: { countSum: '9' } }] },
      },
      context,
    );
    assert.equal(records.length, 0);
  });

  test('weight, body fat, VO2 max, SpO2 and skin temperature', () => {
    const records = fitbitNormalizers.weight.normalize(
      {
        weight: [
          {
            weight: {
              sampleTime: { physicalTime: '2026-06-03T05:00:00Z', utcOffset: '7200s' },
              weightGrams: 71_250,
            },
          },
        ],
        'body-fat': [
          {
            bodyFat: {
              sampleTime: { physicalTime: '2026-06-03T05:00:00Z', utcOffset: '7200s' },
              percentage: 0,
            },
          },
        ],
        'daily-vo2-max': [{ dailyVo2Max: { date: { year: 2026, month: 6, day: 3 }, vo2Max: 47.1 } }],
        'daily-oxygen-saturation': [
          { dailyOxygenSaturation: { date: { year: 2026, month: 6, day: 3 }, averagePercentage: 96.4 } },
        ],
        'daily-sleep-temperature-derivations': [
          {
            dailySleepTemperatureDerivations: {
              date: { year: 2026, month: 6, day: 3 },
              nightlyTemperatureCelsius: 34.4,
            },
          },
        ],
      },
      context,
    );
    assert.equal(records.length, 1);
    assertRecord(Body, records[0], 'body');
    assert.equal(records[0]?.measurements_data?.day_avg_weight_kg, 71.25);
    assert.equal(
      records[0]?.measurements_data?.day_avg_bodyfat_percentage,
      null,
      'a 0 % body fat is no measurement',
    );
    assert.equal(records[0]?.oxygen_data?.vo2max_ml_per_min_per_kg, 47.1);
    assert.equal(records[0]?.oxygen_data?.avg_saturation_percentage, 96.4);
    assert.equal(records[0]?.temperature_data?.skin_temperature_samples?.[0]?.temperature_celsius, 34.4);
  });

  test('meals and drinks', () => {
    const [day] = fitbitNutrition.normalize(
      {
        'nutrition-log': [
          {
            name: 'users/me/dataTypes/nutrition-log/dataPoints/7',
            nutritionLog: {
              interval: span(10),
              mealType: 'BREAKFAST',
              foodDisplayName: 'Oatmeal',
              energy: { kcal: 350 },
              totalCarbohydrate: { grams: 54 },
              nutrients: [
                { nutrient: 'PROTEIN', quantity: { grams: 12 } },
                { nutrient: 'SODIUM', quantity: { grams: 0.4 } },
                { nutrient: 'SUGAR', quantity: { grams: 9 } },
                { nutrient: 'CARBOHYDRATES', quantity: { grams: 50 } },
                { nutrient: 'POTASSIUM', quantity: { grams: 0.35 } },
                { nutrient: 'VITAMIN_B12', quantity: { grams: 0.0000024 } },
                { nutrient: 'MONOUNSATURATED_FAT', quantity: { grams: 3 } },
                { nutrient: 'UNSATURATED_FAT', quantity: { grams: 5 } },
              ],
            },
          },
        ],
        'hydration-log': [{ hydrationLog: { interval: span(11), amountConsumed: { milliliters: 330 } } }],
      },
      context,
    );
    assertRecord(Nutrition, day, 'nutrition');
    assert.equal(day?.meals?.[0]?.type, MealType.BREAKFAST);
    const meal = day?.meals?.[0];
    assert.equal(meal?.macros.protein_g, 12, 'protein is a nutrient');
    assert.equal(meal?.macros.sodium_mg, 400, 'grams -> mg');
    assert.equal(meal?.macros.sugar_g, 9);
    assert.equal(meal?.macros.carbohydrates_g, 54, 'the log’s own total wins');
    assert.equal(meal?.micros.potassium_mg, 350);
    assert.ok(Math.abs((meal?.micros.vitamin_B12_mg ?? 0) - 0.0024) < 1e-9);
    assert.equal(meal?.micros.monounsaturated_fat_g, 3);
    assert.equal(day?.summary?.macros?.calories, 350);
    assert.equal(day?.summary?.micros?.potassium_mg, 350);
    assert.equal(day?.summary?.water_ml, 330);
  });

  test('shapes Google never documented are skipped, never a TypeError', () => {
    const junk = [
      null,
      3,
      'x',
      {},
      { name: 7, exercise: { interval: 'soon' } },
      { sleep: { stages: 'all' } },
    ] as never[];
    assert.doesNotThrow(() => {
      fitbitNormalizers.exercise.normalize({ exercise: junk, 'heart-rate': junk }, context);
      fitbitNormalizers.sleep.normalize({ sleep: junk, 'daily-heart-rate-variability': junk }, context);
      fitbitNormalizers.steps.normalize(
        { steps: junk, 'heart-rate': junk, 'daily-resting-heart-rate': junk },
        context,
      );
      fitbitNormalizers.weight.normalize({ weight: junk, 'daily-vo2-max': junk }, context);
      fitbitNutrition.normalize({ 'nutrition-log': junk, 'hydration-log': junk }, context);
    });
  });
});

describe('Google Health notifications', () => {
  const parse = (body: unknown) => fitbitNotifications.parse(Buffer.from(JSON.stringify(body)), new Date());

  test('a change notification names the user, the type and the days to fetch again', async () => {
    const [notification] = parse({
      data: {
        healthUserId: 'hu-1',
        operation: 'UPSERT',
        dataType: 'sleep',
        intervals: [
          { physicalTimeInterval: { startTime: '2026-06-01T22:00:00Z', endTime: '2026-06-02T06:00:00Z' } },
        ],
      },
    });
    assert.equal(notification?.kind, 'data');
    if (notification?.kind !== 'data') return;
    assert.equal(notification.providerUserId, 'hu-1');
    const located = await fitbitNotifications.locate(notification, {
      json: async () => null,
      bytes: async () => null,
      items: async () => null,
      client: null,
    });
    assert.deepEqual(located, {
      types: ['sleep'],
      startDate: '2026-05-31',
      endDate: '2026-06-04',
      deleted: false,
    });
  });

  test(
    'verification bodies and the legacy Fitbit notification (public sample) are ignored',
    { skip: missingProviderSamples('fitbit-subscription_notification') },
    () => {
      assert.deepEqual(
        parse({ type: 'verification' }).map((item) => item.kind),
        ['ignored'],
      );
      const legacy = readProviderSample('fitbit-subscription_notification');
      assert.deepEqual(
        parse(legacy).map((item) => item.kind),
        ['ignored'],
      );
    },
  );

  test('the secret in Authorization, bare or as a bearer, is what authenticates', () => {
    const request = (authorization?: string) => ({
      headers: authorization ? { authorization } : {},
      rawBody: Buffer.from('{}'),
      secret: 's3cret',
      clientId: null,
      subscriptionIds: [],
      now: new Date(),
    });
    assert.equal(fitbitNotifications.verify(request('s3cret')), 'valid');
    assert.equal(fitbitNotifications.verify(request('Bearer s3cret')), 'valid');
    assert.equal(fitbitNotifications.verify(request('wrong')), 'invalid');
    assert.equal(fitbitNotifications.verify(request()), 'invalid');
    assert.equal(fitbitNotifications.verify({ ...request('s3cret'), secret: null }), 'unconfigured');
  });
});
