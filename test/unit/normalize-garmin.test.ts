// Garmin normalizers against payloads written from the documented shapes (providers-3.md §2; the
// public integrations and real captures it lists; Garmin has no public sample under
// ../shared/reference): every record valid against its model schema with no undeclared keys, the
// conversions pinned, and the real-payload rules: 0/255 heart rates and negative stress are not
// readings, samples without a time are skipped, a missing offset comes from the calendar date,
// sport names by their parts, maxima from the streams, time in bed from start and end, garbage
// shapes skipped without a TypeError.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { ActivityType } from '../../src/model/activity-type.ts';
import {
  ActivityLevel,
  SleepLevel,
  SleepUploadType,
  StressLevel,
  UploadType,
} from '../../src/model/enums.ts';
import { Activity, Body, Daily, Sleep } from '../../src/model/index.ts';
import { undeclaredKeys } from '../../src/model/schema-walk.ts';
import { garminNormalizers } from '../../src/providers/garmin/normalize/index.ts';
import { garminActivityType } from '../../src/providers/garmin/normalize/sport.ts';
import { garminNotifications } from '../../src/providers/garmin/connector.ts';
import { PROVIDER_SAMPLES_DIR, readProviderSampleText } from '../helpers/provider-samples.ts';
import type { NormalizeContext } from '../../src/provider-kit/normalize/normalize.ts';

const context: NormalizeContext = { userOffsetMinutes: null, now: Date.parse('2022-10-05T00:00:00Z') };

function assertRecord(schema: TSchema, value: unknown, label: string): void {
  if (!Value.Check(schema, value)) {
    const errors = [...Value.Errors(schema, value)].slice(0, 5);
    assert.fail(`${label} is invalid: ${JSON.stringify(errors, null, 2)}`);
  }
  assert.deepEqual(undeclaredKeys(schema, value), [], `${label}: undeclared keys`);
}

// 2022-09-27, a device clock at UTC+1: local midnight is 1664233200.
const DAY_START = 1_664_233_200;
const daily = {
  userId: 'eb24e8e5-110d-4a87-b976-444f40ca27d4',
  summaryId: 'x35e229f-63322ef0-8520-6',
  calendarDate: '2022-09-27',
  activityType: 'WALKING',
  activeKilocalories: 24,
  bmrKilocalories: 893,
  steps: 392,
  distanceInMeters: 319,
  durationInSeconds: 34_080,
  activeTimeInSeconds: 1101,
  startTimeInSeconds: DAY_START,
  startTimeOffsetInSeconds: 3600,
  moderateIntensityDurationInSeconds: 0,
  vigorousIntensityDurationInSeconds: 0,
  floorsClimbed: 1,
  minHeartRateInBeatsPerMinute: 46,
  maxHeartRateInBeatsPerMinute: 138,
  averageHeartRateInBeatsPerMinute: 58,
  restingHeartRateInBeatsPerMinute: 53,
  timeOffsetHeartRateSamples: { '15': 56, '30': 255, '45': 0, '60': 60, '75': null },
  averageStressLevel: 31,
  maxStressLevel: 88,
  stressQualifier: 'balanced',
};

describe('Garmin daily', () => {
  const records = garminNormalizers.dailies.normalize(
    {
      dailies: [daily, { ...daily, durationInSeconds: 1000, steps: 5 }],
      epochs: [
        {
          startTimeInSeconds: DAY_START + 900,
          startTimeOffsetInSeconds: 3600,
          steps: 120,
          activeKilocalories: 3,
          met: 2.5,
          intensity: 'ACTIVE',
          durationInSeconds: 900,
        },
        {
          startTimeInSeconds: DAY_START,
          startTimeOffsetInSeconds: 3600,
          steps: 0,
          met: 1,
          intensity: 'SEDENTARY',
          durationInSeconds: 900,
        },
      ],
      stressDetails: [
        {
          calendarDate: '2022-09-27',
          startTimeInSeconds: DAY_START,
          startTimeOffsetInSeconds: 3600,
          timeOffsetStressLevelValues: { '0': -1, '180': 20, '360': -2, '540': 40 },
          timeOffsetBodyBatteryValues: { '0': 55, '180': 54 },
        },
      ],
      pulseox: [
        {
          calendarDate: '2022-09-27',
          startTimeInSeconds: DAY_START + 7200,
          startTimeOffsetInSeconds: 3600,
          timeOffsetSpo2Values: { '0': 95, '60': 97, '120': 0 },
        },
      ],
    },
    context,
  );
  const record = records[0];

  test('one valid record per calendar day, the longest copy of the day', () => {
    assert.equal(records.length, 1);
    assertRecord(Daily, record, 'daily');
    assert.equal(record?.metadata.start_time, '2022-09-27T00:00:00.000000+01:00');
    assert.equal(record?.metadata.end_time, '2022-09-28T00:00:00.000000+01:00');
    assert.equal(record?.distance_data?.steps, 392);
    assert.equal(record?.calories_data?.total_burned_calories, 917);
    assert.equal(record?.calories_data?.BMR_calories, 893);
  });

  test('0 and 255 are not heart rates; the 7-day average is not the day average', () => {
    const bpm = record?.heart_rate_data?.detailed?.hr_samples?.map((sample) => sample.bpm);
    assert.deepEqual(bpm, [56, 60]);
    assert.equal(record?.heart_rate_data?.summary?.avg_hr_bpm, 58, 'the mean of 56 and 60, not the field');
    assert.equal(record?.heart_rate_data?.summary?.resting_hr_bpm, 53);
    assert.equal(record?.heart_rate_data?.summary?.max_hr_bpm, 138);
  });

  test('negative stress values are not readings; qualifier, epochs, SpO2', () => {
    assert.deepEqual(
      record?.stress_data?.samples?.map((sample) => sample.level),
      [20, 40],
    );
    assert.equal(record?.stress_data?.stress_rating, StressLevel.LOW);
    assert.equal(record?.stress_data?.body_battery_samples?.length, 2);
    assert.deepEqual(
      record?.active_durations_data?.activity_levels_samples?.map((sample) => sample.level),
      [ActivityLevel.INACTIVE, ActivityLevel.MEDIUM],
    );
    assert.equal(record?.MET_data?.avg_level, 1.75);
    assert.equal(record?.oxygen_data?.avg_saturation_percentage, 96);
  });

  test('a missing offset is derived from the calendar date and the start, not taken as UTC', () => {
    const [derived] = garminNormalizers.dailies.normalize(
      { dailies: [{ ...daily, startTimeOffsetInSeconds: undefined }] },
      context,
    );
    assert.equal(derived?.metadata.start_time, '2022-09-27T00:00:00.000000+01:00');
    assert.equal(derived?.metadata.timestamp_localization, 1);
  });
});

const SLEEP_START = 1_664_669_040;
const sleep = {
  userId: 'eb24e8e5-110d-4a87-b976-444f40ca27d4',
  summaryId: 'x35e229f-6338d570-5dc0',
  calendarDate: '2022-10-02',
  durationInSeconds: 24_000,
  startTimeInSeconds: SLEEP_START,
  startTimeOffsetInSeconds: 3600,
  unmeasurableSleepInSeconds: 0,
  deepSleepDurationInSeconds: 1980,
  lightSleepDurationInSeconds: 21_600,
  remSleepInSeconds: 420,
  awakeDurationInSeconds: 120,
  sleepLevelsMap: {
    deep: [{ startTimeInSeconds: SLEEP_START + 1800, endTimeInSeconds: SLEEP_START + 3780 }],
    light: [
      { startTimeInSeconds: SLEEP_START, endTimeInSeconds: SLEEP_START + 1800 },
      { startTimeInSeconds: SLEEP_START + 3780, endTimeInSeconds: SLEEP_START + 23_580 },
    ],
    awake: [{ startTimeInSeconds: SLEEP_START + 23_580, endTimeInSeconds: SLEEP_START + 23_700 }],
    rem: [{ startTimeInSeconds: SLEEP_START + 23_700, endTimeInSeconds: SLEEP_START + 24_120 }],
  },
  validation: 'ENHANCED_TENTATIVE',
  timeOffsetSleepSpo2: {},
  overallSleepScore: { value: 81, qualifierKey: 'GOOD' },
};

describe('Garmin sleep', () => {
  const [record] = garminNormalizers.sleeps.normalize(
    {
      sleeps: [sleep],
      hrv: [
        {
          calendarDate: '2022-10-02',
          lastNightAvg: 44,
          startTimeInSeconds: SLEEP_START,
          hrvValues: { '300': 40, '600': 48 },
        },
      ],
      allDayRespiration: [
        {
          startTimeInSeconds: SLEEP_START - 3600,
          timeOffsetEpochToBreaths: { '0': 15, '3600': 14, '7200': 13.5 },
        },
      ],
    },
    context,
  );

  test('valid, with stages, time in bed from start and end, and the night’s HRV', () => {
    assertRecord(Sleep, record, 'sleep');
    assert.equal(record?.metadata.summary_id, 'x35e229f-6338d570-5dc0');
    assert.equal(record?.metadata.upload_type, SleepUploadType.TENTATIVE);
    assert.equal(record?.metadata.end_time, '2022-10-02T07:46:00.000000+01:00');
    assert.equal(record?.sleep_durations_data?.other?.duration_in_bed_seconds, 24_120);
    assert.equal(record?.sleep_durations_data?.asleep?.duration_asleep_state_seconds, 24_000);
    assert.deepEqual(
      record?.sleep_durations_data?.hypnogram_samples?.map((sample) => sample.level),
      [SleepLevel.LIGHT, SleepLevel.DEEP, SleepLevel.LIGHT, SleepLevel.AWAKE, SleepLevel.REM],
    );
    assert.equal(record?.sleep_durations_data?.awake?.num_wakeup_events, 1);
    assert.equal(record?.heart_rate_data?.summary?.avg_hrv_rmssd, 44);
    assert.equal(record?.scores?.sleep, 81);
  });

  test('breathing from all-day respiration inside the night when the sleep has none', () => {
    assert.deepEqual(
      record?.respiration_data?.breaths_data?.samples?.map((sample) => sample.breaths_per_min),
      [14, 13.5],
    );
    assert.equal(record?.respiration_data?.oxygen_saturation_data, null, 'an empty SpO2 map is no data');
  });
});

describe('Garmin activity', () => {
  const start = 1_660_111_129;
  const activity = {
    userId: 'u',
    summaryId: '9283749',
    activityId: 9_283_749,
    activityName: 'Morning weights',
    activityType: 'WEIGHTLIFTING_MSK',
    durationInSeconds: 120,
    startTimeInSeconds: start,
    startTimeOffsetInSeconds: -14_400,
    averageHeartRateInBeatsPerMinute: 255,
    activeKilocalories: 100,
    distanceInMeters: 0,
    deviceName: 'fenix7',
  };
  const [record] = garminNormalizers.activities.normalize(
    {
      activities: [activity],
      activityDetails: [
        {
          summaryId: '9283749-detail',
          samples: [
            { startTimeInSeconds: start, heartRate: 0, speedMetersPerSecond: 2, powerInWatts: 150 },
            { startTimeInSeconds: null, heartRate: 190, speedMetersPerSecond: 9 },
            null,
            { startTimeInSeconds: start + 60, heartRate: 120, speedMetersPerSecond: 3.5, powerInWatts: 210 },
            { startTimeInSeconds: start + 90, heartRate: 255, speedMetersPerSecond: 3, powerInWatts: 180 },
          ],
        },
      ],
    },
    context,
  );

  test('valid; sport by its parts; offset from the summary', () => {
    assertRecord(Activity, record, 'activity');
    assert.equal(record?.metadata.type, ActivityType.WEIGHTLIFTING);
    assert.equal(record?.metadata.upload_type, UploadType.AUTOMATIC);
    assert.equal(record?.metadata.start_time, '2022-08-10T01:58:49.000000-04:00');
    assert.ok(Math.abs((record?.energy_data?.energy_kilojoules ?? 0) - 418.4) < 1e-9, 'kcal as kJ');
  });

  test('sentinel heart rates and untimed samples are skipped; maxima come from the streams', () => {
    assert.deepEqual(
      record?.heart_rate_data?.detailed?.hr_samples?.map((sample) => sample.bpm),
      [120],
    );
    assert.equal(record?.heart_rate_data?.summary?.avg_hr_bpm, 120, 'the 255 average is no reading');
    assert.equal(record?.heart_rate_data?.summary?.max_hr_bpm, 120);
    assert.equal(record?.movement_data?.max_speed_meters_per_second, 3.5, 'the 9 m/s has no time');
    assert.equal(record?.power_data?.max_watts, 210);
    assert.equal(
      record?.distance_data?.summary?.distance_meters,
      null,
      'a 0 m weights session has no distance',
    );
  });

  test('a paused workout ends at start + elapsed (clock) time, never before its own samples', () => {
    // 30 min of timer time with a 10 min pause in the middle: `durationInSeconds` is the timer's
    // 1800 s, the samples run 2400 s of clock time (Activity API: timer ≤ clock duration).
    const samples = [0, 600, 900, 1500, 1800, 2400].map((clock) => ({
      startTimeInSeconds: start + clock,
      heartRate: 130,
      timerDurationInSeconds: clock <= 900 ? clock : clock - 600,
      clockDurationInSeconds: clock,
    }));
    const [paused] = garminNormalizers.activities.normalize(
      {
        activities: [{ ...activity, durationInSeconds: 1800 }],
        activityDetails: [{ summaryId: '9283749-detail', samples }],
      },
      context,
    );
    assert.equal(paused?.metadata.end_time, '2022-08-10T02:38:49.000000-04:00');
    const end = Date.parse(paused!.metadata.end_time);
    for (const sample of paused?.heart_rate_data?.detailed?.hr_samples ?? [])
      assert.ok(Date.parse(String(sample.timestamp)) <= end, `${sample.timestamp} inside the record`);
    // Without clock durations, the last sample still bounds the end.
    const untimed = samples.map(({ clockDurationInSeconds: _clock, ...rest }) => rest);
    const [bounded] = garminNormalizers.activities.normalize(
      {
        activities: [{ ...activity, durationInSeconds: 1800 }],
        activityDetails: [{ summaryId: '9283749-detail', samples: untimed }],
      },
      context,
    );
    assert.equal(bounded?.metadata.end_time, '2022-08-10T02:38:49.000000-04:00');
  });

  test('an unpaused activity ends at start + durationInSeconds, not at its last sample (issue 41)', () => {
    // Samples every 3 s: the last one starts 3 s before the end, its clock duration 3 s short of
    // the summary's `durationInSeconds` (Health API: the activity's length).
    const samples = Array.from({ length: 600 }, (_, index) => ({
      startTimeInSeconds: start + index * 3,
      heartRate: 130,
      clockDurationInSeconds: index * 3,
    }));
    const [whole] = garminNormalizers.activities.normalize(
      {
        activities: [{ ...activity, durationInSeconds: 1800 }],
        activityDetails: [{ summaryId: '9283749-detail', samples }],
      },
      context,
    );
    assert.equal(whole?.metadata.end_time, '2022-08-10T02:28:49.000000-04:00');
    assert.equal(whole?.active_durations_data?.activity_seconds, 1800);
  });

  test('a manually updated activity replaces the device copy as an UPDATE', () => {
    const [updated] = garminNormalizers.activities.normalize(
      {
        activities: [activity],
        manuallyUpdatedActivities: [{ ...activity, activityName: 'Renamed', activityType: 'YOGA' }],
      },
      context,
    );
    assert.equal(updated?.metadata.upload_type, UploadType.UPDATE);
    assert.equal(updated?.metadata.type, ActivityType.YOGA);
    assert.equal(updated?.metadata.name, 'Renamed');
  });
});

describe('Garmin body and sport names', () => {
  test('body composition and user metrics by local day', () => {
    const records = garminNormalizers.bodyComps.normalize(
      {
        bodyComps: [
          {
            measurementTimeInSeconds: 1_664_262_000,
            measurementTimeOffsetInSeconds: 3600,
            weightInGrams: 72_500,
            bodyFatInPercent: 18.5,
            bodyMassIndex: 0,
            muscleMassInGrams: 33_000,
          },
        ],
        userMetrics: [{ calendarDate: '2022-09-27', vo2Max: 48, fitnessAge: 31 }],
      },
      { ...context, userOffsetMinutes: 60 },
    );
    assert.equal(records.length, 1);
    assertRecord(Body, records[0], 'body');
    const measurements = records[0]?.measurements_data;
    assert.equal(measurements?.day_avg_weight_kg, 72.5);
    assert.equal(measurements?.measurements?.[0]?.BMI, null, 'a zero BMI is not a measurement');
    assert.equal(measurements?.day_avg_estimated_fitness_age, 31);
    assert.equal(records[0]?.oxygen_data?.vo2max_ml_per_min_per_kg, 48);
  });

  test('names: Garmin’s own, the shared ones, then by parts, then OTHER', () => {
    assert.equal(garminActivityType('LAP_SWIMMING'), ActivityType.SWIMMING_SWIMMING_POOL);
    assert.equal(garminActivityType('TRAIL_RUNNING'), ActivityType.TRAIL_RUNNING);
    assert.equal(garminActivityType('STREET_RUNNING'), ActivityType.RUNNING);
    assert.equal(garminActivityType('INDOOR_CYCLING'), ActivityType.STATIONARY_BIKING);
    assert.equal(garminActivityType('weightlifting_msk'), ActivityType.WEIGHTLIFTING);
    assert.equal(garminActivityType('UNHEARD_OF'), ActivityType.OTHER);
    assert.equal(garminActivityType(undefined), ActivityType.OTHER);
  });

  test('shapes Garmin never documented are skipped, never a TypeError', () => {
    const junk = [null, 7, 'x', { summaryId: 3 }, { startTimeInSeconds: 'soon' }] as never[];
    assert.doesNotThrow(() => {
      garminNormalizers.dailies.normalize(
        { dailies: junk, epochs: junk, stressDetails: junk, pulseox: junk },
        context,
      );
      garminNormalizers.sleeps.normalize(
        { sleeps: [...junk, { ...sleep, sleepLevelsMap: 'deep' as never }], hrv: junk },
        context,
      );
      garminNormalizers.activities.normalize(
        { activities: junk, activityDetails: [{ samples: 'none' as never }] },
        context,
      );
      garminNormalizers.bodyComps.normalize({ bodyComps: junk, userMetrics: junk }, context);
    });
  });
});

// A real `dailies` push captured from Garmin (Rove-LTD/Rove,
// Cloudfunctions/functions/.test/test-modules/garminRawDailyWebhook.json @ 7364784), kept in the
// shared reference as garmin-dailies_push.json: the push body is the data, read as Garmin sent it.
const REAL_PUSH = 'garmin-dailies_push';
describe('Garmin real push', () => {
  const missing = !existsSync(join(PROVIDER_SAMPLES_DIR, `${REAL_PUSH}.json`));
  test(
    'a captured dailies push is taken as inline summaries and normalizes to valid days',
    { skip: missing && `${REAL_PUSH}.json is not in ${PROVIDER_SAMPLES_DIR}` },
    () => {
      const raw = readProviderSampleText(REAL_PUSH);
      const [notification] = garminNotifications.parse(Buffer.from(raw), new Date('2022-09-28T00:00:00Z'));
      assert.equal(notification?.kind, 'data');
      if (notification?.kind !== 'data') return;
      assert.equal(notification.dataKind, 'dailies');
      assert.equal(notification.callbacks, undefined, 'a push names no callback');
      const pushed = notification.inline?.dailies ?? [];
      assert.ok(pushed.length > 0, 'the pushed summaries are kept');
      for (const item of pushed) assert.ok(!('userAccessToken' in (item as object)), 'no user token kept');
      const days = garminNormalizers.dailies.normalize({ dailies: pushed } as never, context);
      assert.ok(days.length > 0);
      for (const day of days) assertRecord(Daily, day, 'daily from a real push');
    },
  );
});
