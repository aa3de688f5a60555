import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { ActivityType } from '../../src/model/activity-type.ts';
import {
  AFibFlag,
  HeartRateZone,
  OxygenSaturationType,
  SleepLevel,
  SleepUploadType,
  UploadType,
} from '../../src/model/enums.ts';
import { Activity, Body, Daily, Sleep } from '../../src/model/index.ts';
import type { NormalizeContext } from '../../src/provider-kit/normalize/normalize.ts';
import { activityTypeOfCategory } from '../../src/providers/withings/normalize/categories.ts';
import { withingsNormalizers } from '../../src/providers/withings/normalize/index.ts';
import { afibFlag, scaledValue } from '../../src/providers/withings/normalize/measures.ts';
import { midnightOffset, zoneOffsetMinutes } from '../../src/providers/withings/normalize/timezone.ts';
import type {
  WithingsActivityBody,
  WithingsGetmeasBody,
  WithingsHeartListBody,
  WithingsIntradayBody,
  WithingsSleepBody,
  WithingsSleepSummaryBody,
  WithingsWorkoutsBody,
} from '../../src/providers/withings/normalize/types.ts';
import { missingProviderSamples, readProviderSample } from '../helpers/provider-samples.ts';
import { describeWithShared } from '../helpers/shared-reference.ts';

/**
 * Why the blocks that read the shared provider samples are skipped (undefined when present);
 * samples read at module level are read only when present (`undefined as never` otherwise).
 */
const skip = missingProviderSamples();

/** A Withings response's `body` (status 0 checked: the normalizers never see errors). */
function body<T>(name: string): T {
  const response = readProviderSample<{ status: number; body: T }>(name);
  assert.equal(response.status, 0);
  return response.body;
}

function assertValid(schema: TSchema, value: unknown, label: string): void {
  if (!Value.Check(schema, value)) {
    const errors = [...Value.Errors(schema, value)].slice(0, 5);
    assert.fail(`${label} is invalid: ${JSON.stringify(errors, null, 2)}`);
  }
}

const utc: NormalizeContext = { userOffsetMinutes: null };
const s = (iso: string) => Date.parse(iso) / 1000;

describe('Withings values and zones', () => {
  test('value × 10^unit, exact for the usual units', () => {
    assert.equal(scaledValue({ value: 65750, type: 1, unit: -3 }), 65.75);
    assert.equal(scaledValue({ value: 178, type: 4, unit: -2 }, 2), 178);
    assert.equal(scaledValue({ value: 58123, type: 5, unit: -3 }, 3), 58123);
    assert.equal(scaledValue({ value: 12, type: 1, unit: 2 }), 1200);
  });

  test('IANA zones -> offsets, DST included', () => {
    assert.equal(zoneOffsetMinutes('Europe/Paris', Date.UTC(2020, 6, 9)), 120);
    assert.equal(zoneOffsetMinutes('Europe/Paris', Date.UTC(2020, 0, 9)), 60);
    assert.equal(zoneOffsetMinutes('Asia/Kolkata', 0), 330);
    assert.equal(zoneOffsetMinutes('Not/AZone', 0), null);
    assert.equal(
      midnightOffset('America/New_York', '2024-03-10', 0),
      -300,
      'midnight is before the 02:00 switch',
    );
    assert.equal(midnightOffset('America/New_York', '2024-03-11', 0), -240);
  });

  test('AFib results fold into the model flags', () => {
    assert.equal(afibFlag(0), AFibFlag.NEGATIVE);
    assert.equal(afibFlag(10), AFibFlag.NEGATIVE);
    assert.equal(afibFlag(1), AFibFlag.POSITIVE);
    assert.equal(afibFlag(12), AFibFlag.POSITIVE);
    assert.equal(afibFlag(3), AFibFlag.INCONCLUSIVE);
    assert.equal(afibFlag(99), null);
  });
});

describeWithShared('Withings getmeas (+ heart) -> Body', skip, () => {
  test('the sample measure group: weight in kg, placed on its day in its zone', () => {
    const sample = body<WithingsGetmeasBody>('withings-measure_getmeas');
    const [inUtc] = withingsNormalizers.measure.normalize({ measure: sample }, utc);
    assert.ok(inUtc);
    assertValid(Body, inUtc, 'body');
    // 1594245600 = 2020-07-08T22:00:00Z.
    assert.equal(inUtc.metadata.start_time, '2020-07-08T00:00:00.000000+00:00');
    assert.deepEqual(inUtc.measurements_data?.measurements?.[0], {
      measurement_time: '2020-07-08T22:00:00.000000+00:00',
      weight_kg: 65.75,
      height_cm: null,
      lean_mass_g: null,
      bodyfat_percentage: null,
      muscle_mass_g: null,
      bone_mass_g: null,
      water_percentage: null,
      visceral_fat_level: null,
      BMR: null,
    });
    assert.equal(inUtc.measurements_data?.day_avg_weight_kg, 65.75);
    assert.deepEqual(inUtc.device_data, { name: 'Body Cardio', manufacturer: 'Withings', other_devices: [] });
    // In Paris the same instant is already 9 July.
    const [inParis] = withingsNormalizers.measure.normalize(
      { measure: { ...sample, timezone: 'Europe/Paris' } },
      utc,
    );
    assert.equal(inParis?.metadata.start_time, '2020-07-09T00:00:00.000000+02:00');
    assert.equal(
      inParis?.measurements_data?.measurements?.[0]?.measurement_time,
      '2020-07-09T00:00:00.000000+02:00',
    );
  });

  const group = (
    grpid: number,
    iso: string,
    measures: [type: number, value: number, unit: number][],
    model = 'Body Comp',
  ) => ({
    grpid,
    attrib: 0,
    date: s(iso),
    category: 1,
    model,
    measures: measures.map(([type, value, unit]) => ({ type, value, unit })),
  });
  const measureBody: WithingsGetmeasBody = {
    timezone: 'America/New_York',
    measuregrps: [
      group(1, '2024-03-10T12:00:00Z', [
        [1, 72350, -3],
        [4, 178, -2],
        [5, 58123, -3],
        [6, 1960, -2],
        [8, 14180, -3],
        [76, 55012, -3],
        [77, 40100, -3],
        [88, 2890, -3],
        [170, 8, 0],
        [226, 1650, 0],
        [91, 72, -1],
        [11, 64, 0],
        [123, 4210, -2],
      ]),
      group(
        2,
        '2024-03-10T23:30:00Z',
        [
          [9, 80, 0],
          [10, 125, 0],
          [11, 70, 0],
        ],
        'BPM Connect',
      ),
      group(
        3,
        '2024-03-10T14:00:00Z',
        [
          [71, 3690, -2],
          [73, 3310, -2],
          [12, 370, -1],
        ],
        'Thermo',
      ),
      group(
        4,
        '2024-03-10T15:00:00Z',
        [
          [54, 97, 0],
          [130, 11, 0],
          [139, 9, 0],
          [135, 90, 0],
        ],
        'ScanWatch',
      ),
      { ...group(5, '2024-03-10T16:00:00Z', [[1, 70000, -3]]), category: 2 },
      // 03:30Z on the 11th is 23:30 on the 10th in New York.
      group(6, '2024-03-11T03:30:00Z', [[1, 72050, -3]]),
      group(7, '2024-03-11T12:00:00Z', [[1, 71900, -3]]),
    ],
  };
  const heart: WithingsHeartListBody = {
    series: [
      {
        deviceid: 'abc',
        model: 91,
        ecg: { signalid: 48, afib: 0 },
        heart_rate: 82,
        timestamp: s('2024-03-10T15:30:00Z'),
      },
      {
        model: 44,
        bloodpressure: { diastole: 79, systole: 121 },
        heart_rate: 66,
        timestamp: s('2024-03-10T13:00:00Z'),
      },
    ],
  };
  const signal = { signal: [1, 2, 3, -4], sampling_frequency: 500, wearposition: 1 };
  const days = withingsNormalizers.measure.normalize(
    { measure: [measureBody], heart: heart, heart_signal: { '48': signal } },
    { userOffsetMinutes: 60 },
  );

  test('groups land on their local day; goals are skipped; every record is valid', () => {
    assert.deepEqual(
      days.map((day) => [day.metadata.start_time, day.metadata.end_time]),
      [
        ['2024-03-10T00:00:00.000000-05:00', '2024-03-11T00:00:00.000000-05:00'],
        ['2024-03-11T00:00:00.000000-04:00', '2024-03-12T00:00:00.000000-04:00'],
      ],
    );
    for (const day of days) assertValid(Body, day, `body ${day.metadata.start_time}`);
    const weights = days[0]?.measurements_data?.measurements?.map((m) => m.weight_kg);
    assert.deepEqual(weights, [72.35, 72.05], 'the category-2 goal (70 kg) is not a measurement');
    assert.equal(days[1]?.measurements_data?.measurements?.[0]?.weight_kg, 71.9);
  });

  test('body composition in model units', () => {
    const [first] = days[0]?.measurements_data?.measurements ?? [];
    assert.deepEqual(first, {
      measurement_time: '2024-03-10T08:00:00.000000-04:00',
      weight_kg: 72.35,
      height_cm: 178,
      lean_mass_g: 58123,
      bodyfat_percentage: 19.6,
      muscle_mass_g: 55012,
      bone_mass_g: 2890,
      water_percentage: (40.1 / 72.35) * 100,
      visceral_fat_level: 8,
      BMR: 1650,
    });
    assert.equal(days[0]?.measurements_data?.day_avg_weight_kg, (72.35 + 72.05) / 2);
    assert.deepEqual(days[0]?.hydration_data?.hydration_amount_samples, [
      { timestamp: '2024-03-10T08:00:00.000000-04:00', hydration_kg: 40.1 },
    ]);
  });

  test('blood pressure, pulse, temperatures, SpO2, PWV, VO2max, AFib', () => {
    const day = days[0];
    assert.deepEqual(day?.blood_pressure_data?.blood_pressure_samples, [
      { timestamp: '2024-03-10T09:00:00.000000-04:00', systolic_bp: 121, diastolic_bp: 79 },
      { timestamp: '2024-03-10T19:30:00.000000-04:00', systolic_bp: 125, diastolic_bp: 80 },
    ]);
    assert.equal(day?.blood_pressure_data?.day_avg_systolic_bp, 123);
    assert.deepEqual(
      day?.heart_data?.heart_rate_data?.detailed?.hr_samples?.map((x) => x.bpm),
      [64, 66, 82, 70],
      'scale pulse, BPM-core list, ECG list, BPM group — in time order',
    );
    assert.deepEqual(day?.heart_data?.heart_rate_data?.summary, {
      avg_hr_bpm: (64 + 66 + 82 + 70) / 4,
      min_hr_bpm: 64,
      max_hr_bpm: 82,
    });
    assert.deepEqual(day?.temperature_data?.body_temperature_samples, [
      { timestamp: '2024-03-10T10:00:00.000000-04:00', temperature_celsius: 37 },
      { timestamp: '2024-03-10T10:00:00.000000-04:00', temperature_celsius: 36.9 },
    ]);
    assert.deepEqual(day?.temperature_data?.skin_temperature_samples, [
      { timestamp: '2024-03-10T10:00:00.000000-04:00', temperature_celsius: 33.1 },
    ]);
    assert.deepEqual(day?.oxygen_data?.saturation_samples, [
      {
        timestamp: '2024-03-10T11:00:00.000000-04:00',
        percentage: 97,
        type: OxygenSaturationType.BLOOD_SPO2,
      },
    ]);
    assert.equal(day?.oxygen_data?.avg_saturation_percentage, 97);
    assert.equal(day?.oxygen_data?.vo2max_ml_per_min_per_kg, 42.1);
    assert.deepEqual(day?.heart_data?.pulse_wave_velocity_samples, [
      { timestamp: '2024-03-10T08:00:00.000000-04:00', pulse_wave_velocity_meters_per_second: 7.2 },
    ]);
    assert.deepEqual(
      day?.heart_data?.afib_classification_samples?.map((x) => x.afib_classification),
      [AFibFlag.POSITIVE, AFibFlag.NEGATIVE, AFibFlag.NEGATIVE],
      'meastype 130, 139 and the ECG of the heart list',
    );
    assert.deepEqual(day?.device_data?.name, 'Body Comp');
    assert.deepEqual(
      day?.device_data?.other_devices?.map((device) => device.name),
      ['BPM Connect', 'Thermo', 'ScanWatch'],
    );
  });

  test('ECG: heart list entry + its signal (µV at the sampling frequency)', () => {
    assert.deepEqual(days[0]?.heart_data?.ecg_signal, [
      {
        start_timestamp: '2024-03-10T11:30:00.000000-04:00',
        avg_hr_bpm: 82,
        afib_classification: AFibFlag.NEGATIVE,
        raw_signal: [
          { timestamp: '2024-03-10T11:30:00.000000-04:00', potential_uV: 1 },
          { timestamp: '2024-03-10T11:30:00.002000-04:00', potential_uV: 2 },
          { timestamp: '2024-03-10T11:30:00.004000-04:00', potential_uV: 3 },
          { timestamp: '2024-03-10T11:30:00.006000-04:00', potential_uV: -4 },
        ],
      },
    ]);
  });
});

describeWithShared('Withings getactivity (+ intraday) -> Daily', skip, () => {
  const activity = body<WithingsActivityBody>('withings-measurev2_getactivity');
  const point = (iso: string, values: Record<string, number>) => [String(s(iso)), values] as const;
  const intraday: WithingsIntradayBody = {
    series: Object.fromEntries([
      point('2020-06-23T21:50:00Z', { steps: 99 }), // 23:50 in Paris the day before
      point('2020-06-24T06:00:00Z', {
        steps: 120,
        calories: 5.5,
        distance: 90,
        elevation: 1,
        heart_rate: 95,
      }),
      point('2020-06-24T06:01:00Z', {
        steps: 80,
        calories: 4,
        distance: 60,
        elevation: 2,
        heart_rate: 99,
        spo2_auto: 96,
      }),
    ]),
  };
  const [day] = withingsNormalizers.activity.normalize({ activity, intraday_activity: intraday }, utc);
  assert.ok(day);

  test('the sample day, field by field', () => {
    assertValid(Daily, day, 'daily');
    assert.deepEqual(day.metadata, {
      start_time: '2020-06-24T00:00:00.000000+02:00',
      end_time: '2020-06-25T00:00:00.000000+02:00',
      upload_type: UploadType.AUTOMATIC,
      timestamp_localization: 1,
    });
    assert.deepEqual(day.active_durations_data, {
      activity_seconds: 2300,
      low_intensity_seconds: 800,
      moderate_intensity_seconds: 1000,
      vigorous_intensity_seconds: 700,
    });
    assert.equal(day.calories_data?.total_burned_calories, 3500);
    assert.equal(day.calories_data?.net_activity_calories, 1200);
    assert.equal(day.calories_data?.BMR_calories, 2300);
    assert.equal(day.distance_data?.steps, 6200);
    assert.equal(day.distance_data?.distance_meters, 3000);
    assert.equal(day.distance_data?.floors_climbed, 100);
    assert.deepEqual(day.heart_rate_data?.summary, {
      avg_hr_bpm: 80,
      min_hr_bpm: 70,
      max_hr_bpm: 80,
      hr_zone_data: [
        { zone: HeartRateZone.ZONE_0, name: 'light', duration_seconds: 100 },
        { zone: HeartRateZone.ZONE_1, name: 'moderate', duration_seconds: 200 },
        { zone: HeartRateZone.ZONE_2, name: 'intense', duration_seconds: 300 },
        { zone: HeartRateZone.ZONE_3, name: 'maximal', duration_seconds: 400 },
      ],
    });
    assert.deepEqual(day.device_data, { name: 'Pulse HR', manufacturer: 'Withings' });
  });

  test('intraday points of the local day: per-interval steps/calories, cumulative distance/floors', () => {
    const detailed = day.distance_data?.detailed;
    assert.deepEqual(detailed?.step_samples, [
      { timestamp: '2020-06-24T08:00:00.000000+02:00', steps: 120 },
      { timestamp: '2020-06-24T08:01:00.000000+02:00', steps: 80 },
    ]);
    assert.deepEqual(
      detailed?.distance_samples?.map((x) => x.distance_meters),
      [90, 150],
    );
    assert.deepEqual(
      detailed?.floors_climbed_samples?.map((x) => x.floors_climbed),
      [1, 3],
    );
    assert.deepEqual(
      day.calories_data?.calorie_samples?.map((x) => x.calories),
      [5.5, 4],
    );
    assert.deepEqual(
      day.heart_rate_data?.detailed?.hr_samples?.map((x) => x.bpm),
      [95, 99],
    );
    assert.deepEqual(day.oxygen_data?.saturation_samples, [
      {
        timestamp: '2020-06-24T08:01:00.000000+02:00',
        percentage: 96,
        type: OxygenSaturationType.BLOOD_SPO2,
      },
    ]);
  });
});

describeWithShared('Withings getworkouts -> Activity', skip, () => {
  test('the sample workout (category 36 Other, zone from `timezone`)', () => {
    const [activity] = withingsNormalizers.workouts.normalize(
      { workouts: body<WithingsWorkoutsBody>('withings-measurev2_getworkouts') },
      utc,
    );
    assert.ok(activity);
    assertValid(Activity, activity, 'activity');
    assert.deepEqual(activity.metadata, {
      summary_id: '12345',
      start_time: '2020-07-09T00:00:00.000000+02:00',
      end_time: '2020-07-09T03:13:20.000000+02:00',
      type: ActivityType.OTHER,
      upload_type: UploadType.AUTOMATIC,
      timestamp_localization: 1,
    });
    assert.equal(activity.active_durations_data?.activity_seconds, 11600);
    assert.equal(activity.device_data?.name, 'Activite Steel HR Sport Edition');
  });

  test('a detailed run and a manual swim', () => {
    const workouts: WithingsWorkoutsBody = {
      series: [
        {
          id: 1,
          category: 2,
          timezone: 'Asia/Kolkata',
          model: 93,
          attrib: 0,
          startdate: s('2024-01-05T01:00:00Z'),
          enddate: s('2024-01-05T01:31:00Z'),
          data: {
            calories: 350,
            distance: 5000,
            steps: 5200,
            elevation: 3,
            hr_average: 150,
            hr_min: 110,
            hr_max: 178,
            hr_zone_0: 60,
            hr_zone_1: 600,
            hr_zone_2: 900,
            hr_zone_3: 300,
            pause_duration: 60,
            spo2_average: 97,
            intensity: 40,
          },
        },
        {
          id: 2,
          category: 7,
          timezone: 'Europe/Paris',
          attrib: 2,
          startdate: s('2024-01-06T10:00:00Z'),
          enddate: s('2024-01-06T10:45:00Z'),
          data: { manual_calories: 300, pool_laps: 40, strokes: 800, pool_length: 25, manual_distance: 1000 },
        },
      ],
    };
    const [run, swim] = withingsNormalizers.workouts.normalize({ workouts }, utc);
    assertValid(Activity, run, 'run');
    assertValid(Activity, swim, 'swim');
    assert.equal(run?.metadata.start_time, '2024-01-05T06:30:00.000000+05:30');
    assert.equal(run?.metadata.type, ActivityType.RUNNING);
    assert.equal(run?.active_durations_data?.activity_seconds, 1800, 'span minus the pause');
    assert.equal(run?.calories_data?.net_activity_calories, 350);
    assert.equal(run?.energy_data?.energy_kilojoules, 350 * 4.184);
    assert.deepEqual(run?.distance_data?.summary, {
      distance_meters: 5000,
      steps: 5200,
      floors_climbed: 3,
      swimming: null,
    });
    assert.equal(run?.movement_data?.avg_speed_meters_per_second, 5000 / 1800);
    assert.equal(run?.heart_rate_data?.summary?.hr_zone_data?.[2]?.duration_seconds, 900);
    assert.equal(run?.oxygen_data?.avg_saturation_percentage, 97);
    assert.equal(run?.device_data?.name, 'ScanWatch');
    assert.equal(swim?.metadata.type, ActivityType.SWIMMING);
    assert.equal(swim?.metadata.upload_type, UploadType.MANUAL);
    assert.equal(
      swim?.calories_data?.net_activity_calories,
      300,
      'manual calories when nothing was measured',
    );
    assert.deepEqual(swim?.distance_data?.summary?.swimming, {
      num_laps: 40,
      num_strokes: 800,
      pool_length_meters: 25,
    });
  });

  test('categories -> ActivityType codes', () => {
    assert.equal(activityTypeOfCategory(1), ActivityType.WALKING);
    assert.equal(activityTypeOfCategory(6), ActivityType.BIKING);
    assert.equal(activityTypeOfCategory(16), ActivityType.WEIGHTLIFTING);
    assert.equal(activityTypeOfCategory(307), ActivityType.INDOOR_RUNNING);
    assert.equal(activityTypeOfCategory(524), ActivityType.GRAVEL_CYCLING);
    assert.equal(activityTypeOfCategory(457), ActivityType.OTHER, 'gaming');
    assert.equal(activityTypeOfCategory(9999), ActivityType.OTHER);
  });
});

describeWithShared('Withings sleep getsummary (+ sleep get) -> Sleep', skip, () => {
  test('the sample summary', () => {
    const [sleep] = withingsNormalizers.sleep_summary.normalize(
      { sleep_summary: body<WithingsSleepSummaryBody>('withings-sleepv2_getsummary') },
      utc,
    );
    assert.ok(sleep);
    assertValid(Sleep, sleep, 'sleep');
    assert.deepEqual(sleep.metadata, {
      summary_id: '12345',
      start_time: '2020-07-09T00:00:00.000000+02:00',
      end_time: '2020-07-09T03:13:20.000000+02:00',
      upload_type: SleepUploadType.AUTOMATIC,
      timestamp_localization: 1,
    });
    assert.deepEqual(sleep.device_data, { name: 'Withings tracker', manufacturer: 'Withings' });
  });

  test('a full night: summary data and the state segments with their series', () => {
    const start = s('2024-02-01T22:00:00Z');
    const summaries: WithingsSleepSummaryBody = {
      series: [
        {
          id: 77,
          timezone: 'Europe/London',
          model: 32,
          startdate: start,
          enddate: start + 8 * 3600,
          completed: false,
          data: {
            total_timeinbed: 28800,
            total_sleep_time: 25200,
            lightsleepduration: 14400,
            deepsleepduration: 5400,
            remsleepduration: 5400,
            sleep_efficiency: 0.875,
            sleep_latency: 600,
            wakeup_latency: 300,
            wakeupduration: 3600,
            wakeupcount: 2,
            nb_rem_episodes: 4,
            out_of_bed_count: 1,
            hr_average: 58,
            hr_min: 49,
            hr_max: 77,
            rr_average: 14,
            rr_min: 11,
            rr_max: 18,
            snoring: 900,
            snoringepisodecount: 3,
            sleep_score: 83,
            rmssd_start_avg: 40,
            rmssd_end_avg: 50,
          },
        },
      ],
    };
    const segments: WithingsSleepBody = {
      series: [
        {
          startdate: start + 600,
          enddate: start + 1200,
          state: 2,
          hr: { [start + 600]: 55 },
          rr: { [start + 600]: 13 },
        },
        {
          startdate: start,
          enddate: start + 600,
          state: 0,
          snoring: { [start + 60]: 30 },
          rmssd: { [start]: 42 },
          sdnn_1: { [start]: 61 },
        },
        { startdate: start + 1200, enddate: start + 1500, state: 2 },
        { startdate: start + 1500, enddate: start + 1800, state: 15 },
        { startdate: start + 1800, enddate: start + 2400, state: 3 },
        { startdate: start + 9 * 3600, enddate: start + 9 * 3600 + 60, state: 1 },
      ],
    };
    const [sleep] = withingsNormalizers.sleep_summary.normalize(
      { sleep_summary: summaries, sleep: segments },
      utc,
    );
    assert.ok(sleep);
    assertValid(Sleep, sleep, 'sleep');
    assert.equal(sleep.metadata.start_time, '2024-02-01T22:00:00.000000+00:00');
    assert.equal(sleep.metadata.upload_type, SleepUploadType.TENTATIVE, 'completed: false');
    assert.deepEqual(sleep.sleep_durations_data?.asleep, {
      duration_asleep_state_seconds: 25200,
      duration_light_sleep_state_seconds: 14400,
      duration_deep_sleep_state_seconds: 5400,
      duration_REM_sleep_state_seconds: 5400,
      num_REM_events: 4,
    });
    assert.deepEqual(sleep.sleep_durations_data?.awake, {
      duration_awake_state_seconds: 3600,
      num_wakeup_events: 2,
      num_out_of_bed_events: 1,
      sleep_latency_seconds: 600,
      wake_up_latency_seconds: 300,
    });
    assert.equal(sleep.sleep_durations_data?.other?.duration_in_bed_seconds, 28800);
    assert.equal(sleep.sleep_durations_data?.sleep_efficiency, 87.5);
    assert.deepEqual(
      sleep.sleep_durations_data?.hypnogram_samples?.map((x) => [x.timestamp, x.level]),
      [
        ['2024-02-01T22:00:00.000000+00:00', SleepLevel.AWAKE],
        ['2024-02-01T22:10:00.000000+00:00', SleepLevel.DEEP],
        ['2024-02-01T22:25:00.000000+00:00', SleepLevel.OUT_OF_BED],
        ['2024-02-01T22:30:00.000000+00:00', SleepLevel.REM],
      ],
      'sorted, runs merged, the segment after the night left out',
    );
    assert.deepEqual(sleep.heart_rate_data?.summary, {
      avg_hr_bpm: 58,
      min_hr_bpm: 49,
      max_hr_bpm: 77,
      avg_hrv_rmssd: 45,
    });
    assert.deepEqual(sleep.heart_rate_data?.detailed?.hr_samples, [
      { timestamp: '2024-02-01T22:10:00.000000+00:00', bpm: 55, context: 2 },
    ]);
    assert.deepEqual(sleep.heart_rate_data?.detailed?.hrv_samples_rmssd, [
      { timestamp: '2024-02-01T22:00:00.000000+00:00', hrv_rmssd: 42 },
    ]);
    assert.deepEqual(sleep.heart_rate_data?.detailed?.hrv_samples_sdnn, [
      { timestamp: '2024-02-01T22:00:00.000000+00:00', hrv_sdnn: 61 },
    ]);
    assert.deepEqual(sleep.respiration_data?.breaths_data?.samples, [
      { timestamp: '2024-02-01T22:10:00.000000+00:00', breaths_per_min: 13 },
    ]);
    assert.equal(sleep.respiration_data?.breaths_data?.avg_breaths_per_min, 14);
    assert.equal(sleep.respiration_data?.snoring_data?.total_snoring_duration_seconds, 900);
    assert.equal(sleep.respiration_data?.snoring_data?.num_snoring_events, 3);
    assert.deepEqual(sleep.respiration_data?.snoring_data?.samples, [
      { timestamp: '2024-02-01T22:01:00.000000+00:00', duration_seconds: 30 },
    ]);
    assert.deepEqual(sleep.scores, { sleep: 83, sleep_score: 83 });
    assert.deepEqual(sleep.device_data, { name: 'Withings sleep monitor', manufacturer: 'Withings' });
  });
});

test('the table declares each kind with its unified type and companions', () => {
  assert.deepEqual(
    Object.fromEntries(
      Object.entries(withingsNormalizers).map(([kind, row]) => [kind, [row.unifiedType, row.companions]]),
    ),
    {
      measure: ['body', ['heart', 'heart_signal']],
      activity: ['daily', ['intraday_activity']],
      workouts: ['activity', []],
      sleep_summary: ['sleep', ['sleep']],
    },
  );
});
