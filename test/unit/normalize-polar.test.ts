import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { ActivityType } from '../../src/model/activity-type.ts';
import {
  ActivityLevel,
  HeartRateContext,
  HeartRateZone,
  RecoveryLevel,
  SleepLevel,
  SleepUploadType,
  UploadType,
} from '../../src/model/enums.ts';
import { Activity, Athlete, Body, Daily, Sleep } from '../../src/model/index.ts';
import { polarNormalizers } from '../../src/providers/polar/normalize/index.ts';
import { polarActivityType } from '../../src/providers/polar/normalize/sport.ts';
import { clockSeries, isoDurationSeconds } from '../../src/providers/polar/normalize/time.ts';
import type {
  PolarActivity,
  PolarContinuousHeartRate,
  PolarExercise,
  PolarNight,
  PolarNightlyRecharge,
  PolarPhysicalInfo,
  PolarUser,
} from '../../src/providers/polar/normalize/types.ts';
import type { NormalizeContext } from '../../src/provider-kit/normalize/normalize.ts';
import { missingProviderSamples, readProviderSample } from '../helpers/provider-samples.ts';
import { describeWithShared } from '../helpers/shared-reference.ts';

/**
 * Why the blocks that read the shared provider samples are skipped (undefined when present);
 * samples read at module level are read only when present (`undefined as never` otherwise).
 */
const skip = missingProviderSamples();

function sample<T>(name: string): T {
  return readProviderSample<T>(name);
}

function assertValid(schema: TSchema, value: unknown, label: string): void {
  if (!Value.Check(schema, value)) {
    const errors = [...Value.Errors(schema, value)].slice(0, 5);
    assert.fail(`${label} is invalid: ${JSON.stringify(errors, null, 2)}`);
  }
}

/** Google's encoded polyline (precision 1e-5) back to points, to check the encoding independently. */
function decodePolyline(text: string): [number, number][] {
  const values: number[] = [];
  let index = 0;
  while (index < text.length) {
    let result = 0;
    let shift = 0;
    let byte: number;
    do {
      byte = text.charCodeAt(index++) - 63;
      result |= (byte & 0x1f) << shift;
      shift += 5;
    } while (byte >= 0x20);
    values.push(result & 1 ? ~(result >> 1) : result >> 1);
  }
  const points: [number, number][] = [];
  let lat = 0;
  let lng = 0;
  for (let at = 0; at + 1 < values.length; at += 2) {
    lat += values[at] as number;
    lng += values[at + 1] as number;
    points.push([lat / 1e5, lng / 1e5]);
  }
  return points;
}

const exercises = skip ? (undefined as never) : sample<PolarExercise[]>('polar-exercises_list');
const activities = skip ? (undefined as never) : sample<PolarActivity[]>('polar-activities_list');
const continuous = skip
  ? (undefined as never)
  : sample<PolarContinuousHeartRate>('polar-continuous_heart_rate');
const nights = skip ? (undefined as never) : sample<{ nights: PolarNight[] }>('polar-sleep_nights').nights;
const recharges = skip
  ? (undefined as never)
  : sample<{ recharges: PolarNightlyRecharge[] }>('polar-nightly_recharge').recharges;
const physical = skip ? (undefined as never) : sample<PolarPhysicalInfo>('polar-physical_info');
const user = skip ? (undefined as never) : sample<PolarUser>('polar-user');

const context: NormalizeContext = {
  userOffsetMinutes: 120,
  now: Date.UTC(2024, 6, 1, 12),
  maxHeartRate: 190,
};

describe('Polar time notations', () => {
  test('ISO 8601 durations, including fractional seconds and days', () => {
    assert.equal(isoDurationSeconds('PT2H44M'), 9840);
    assert.equal(isoDurationSeconds('PT210.026S'), 210.026);
    assert.equal(isoDurationSeconds('PT18H23M30S'), 66210);
    assert.equal(isoDurationSeconds('P1DT1S'), 86401);
    assert.equal(isoDurationSeconds('PT4S'), 4);
    assert.equal(isoDurationSeconds('P1M'), null, 'months have no fixed length');
    assert.equal(isoDurationSeconds('2H'), null);
    assert.equal(isoDurationSeconds(null), null);
  });

  test('clock keys of a night that crosses midnight land on the right day, in order', () => {
    const start = Date.UTC(2024, 0, 1, 21, 10); // 23:10 at +02:00
    const series = clockSeries({ '00:20': 3, '23:10': 1, '23:40': 2, '07:05': 4 }, start, 120);
    assert.deepEqual(
      series.map(({ atMs, value }) => [new Date(atMs).toISOString(), value]),
      [
        ['2024-01-01T21:10:00.000Z', 1],
        ['2024-01-01T21:40:00.000Z', 2],
        ['2024-01-01T22:20:00.000Z', 3],
        ['2024-01-02T05:05:00.000Z', 4],
      ],
    );
  });
});

describeWithShared('Polar exercise -> Activity', skip, () => {
  const [activity] = polarNormalizers.exercise.normalize({ exercise: exercises }, context);
  assert.ok(activity);

  test('the sample exercise, field by field', () => {
    assertValid(Activity, activity, 'activity');
    const m = activity.metadata;
    assert.equal(m.summary_id, '2AC312F');
    // start_time is local wall clock; start_time_utc_offset (180 min) is its zone.
    assert.equal(m.start_time, '2008-10-13T10:40:02.000000+03:00');
    assert.equal(m.end_time, '2008-10-13T13:24:02.000000+03:00', 'start + PT2H44M');
    assert.equal(
      m.type,
      ActivityType.WATER_SKIING,
      'detailed_sport_info WATERSPORTS_WATERSKI beats sport OTHER',
    );
    assert.equal(m.upload_type, UploadType.AUTOMATIC);
    assert.equal(m.name, 'WATERSPORTS_WATERSKI');
    assert.equal(m.timestamp_localization, 1);
    assert.equal(activity.active_durations_data?.activity_seconds, 9840);
    assert.equal(activity.calories_data?.total_burned_calories, 530);
    assert.equal(activity.energy_data?.energy_kilojoules, 530 * 4.184);
    assert.equal(activity.distance_data?.summary?.distance_meters, 1600);
    assert.equal(activity.data_enrichment?.trimp_score, 1, 'training_load_pro cardio-load');
    assert.equal(activity.oxygen_data?.vo2max_ml_per_min_per_kg, 51, 'running-index');
    assert.deepEqual(activity.device_data, {
      name: 'Polar M400',
      manufacturer: 'Polar',
      serial_number: '1111AAAA',
      last_upload_date: '2008-10-13T13:40:02.000000+03:00',
    });
  });

  test('heart rate summary and zones (bpm bounds as % of the user maximum)', () => {
    const summary = activity.heart_rate_data?.summary;
    assert.equal(summary?.avg_hr_bpm, 129);
    assert.equal(summary?.max_hr_bpm, 147);
    assert.equal(summary?.user_max_hr_bpm, 190);
    assert.deepEqual(summary?.hr_zone_data, [
      {
        zone: HeartRateZone.ZONE_1,
        name: 'Zone 1',
        duration_seconds: 4,
        start_percentage: (110 / 190) * 100,
        end_percentage: (130 / 190) * 100,
      },
    ]);
    const [withoutMax] = polarNormalizers.exercise.normalize(
      { exercise: exercises },
      { userOffsetMinutes: null },
    );
    assert.equal(withoutMax?.heart_rate_data?.summary?.hr_zone_data?.[0]?.start_percentage, null);
  });

  test('speed samples (type 1, km/h) become m/s every recording-rate seconds', () => {
    const speed = activity.movement_data?.speed_samples ?? [];
    assert.equal(speed.length, 27);
    assert.deepEqual(speed[1], {
      timestamp: '2008-10-13T10:40:07.000000+03:00',
      timer_duration_seconds: 5,
      speed_meters_per_second: 100 / 3.6,
    });
    assert.equal(activity.movement_data?.max_speed_meters_per_second, 123 / 3.6);
    assert.equal(activity.movement_data?.avg_speed_meters_per_second, 1600 / 9840, 'distance over duration');
    assert.equal(activity.movement_data?.avg_pace_minutes_per_kilometer, 1000 / (1600 / 9840) / 60);
  });

  test('route -> position samples, bounds and polyline', () => {
    const position = activity.position_data;
    assert.deepEqual(position?.position_samples, [
      {
        timestamp: '2008-10-13T10:43:32.026000+03:00',
        coords_lat_lng_deg: [60.21982833, 25.13925],
        timer_duration_seconds: 210.026,
      },
    ]);
    assert.deepEqual(position?.start_pos_lat_lng_deg, [60.21982833, 25.13925]);
    assert.deepEqual(position?.end_pos_lat_lng_deg, [60.21982833, 25.13925]);
    assert.deepEqual(position?.center_pos_lat_lng_deg, [60.21982833, 25.13925]);
    assert.deepEqual(decodePolyline(activity.polyline_map_data?.summary_polyline ?? ''), [
      [60.21983, 25.13925],
    ]);
  });

  test('every sample type the model has a place for; gaps, RR and temperature skipped', () => {
    const exercise: PolarExercise = {
      id: 'x1',
      start_time: '2024-05-01T07:00:00',
      start_time_utc_offset: -300,
      duration: 'PT1M',
      sport: 'CYCLING',
      device: 'Polar Vantage V3',
      samples: [
        { 'recording-rate': 1, 'sample-type': '0', data: '120,null,122,,124' },
        { 'recording-rate': 1, 'sample-type': '2', data: '80,90' },
        { 'recording-rate': 1, 'sample-type': '8', data: '170,172' },
        { 'recording-rate': 2, 'sample-type': '3', data: '100,103,101,106' },
        { 'recording-rate': 1, 'sample-type': '4', data: '200,300' },
        { 'recording-rate': 1, 'sample-type': '9', data: '21,22' },
        { 'recording-rate': 1, 'sample-type': '10', data: '0,5.5,11' },
        { 'recording-rate': null, 'sample-type': '11', data: '800,810' },
      ],
    };
    const [result] = polarNormalizers.exercise.normalize(
      { exercise: [exercise] },
      { userOffsetMinutes: null },
    );
    assert.ok(result);
    assertValid(Activity, result, 'activity');
    assert.equal(result.metadata.start_time, '2024-05-01T07:00:00.000000-05:00');
    assert.equal(result.metadata.type, ActivityType.BIKING);
    const hr = result.heart_rate_data?.detailed?.hr_samples ?? [];
    assert.deepEqual(
      hr.map((sample) => [sample.timer_duration_seconds, sample.bpm, sample.context]),
      [
        [0, 120, HeartRateContext.ACTIVE],
        [2, 122, HeartRateContext.ACTIVE],
        [4, 124, HeartRateContext.ACTIVE],
      ],
    );
    assert.equal(result.heart_rate_data?.summary?.min_hr_bpm, 120);
    assert.equal(result.heart_rate_data?.summary?.avg_hr_bpm, 122, 'from samples when the summary is absent');
    assert.deepEqual(
      result.movement_data?.cadence_samples?.map((sample) => sample.cadence_rpm),
      [80, 90],
      'bike cadence wins over running cadence',
    );
    assert.equal(result.movement_data?.max_cadence_rpm, 90);
    const elevation = result.distance_data?.detailed?.elevation_samples ?? [];
    assert.deepEqual(
      elevation.map((sample) => sample.timer_duration_seconds),
      [0, 2, 4, 6],
    );
    assert.deepEqual(result.distance_data?.summary?.elevation, {
      avg_meters: 102.5,
      max_meters: 106,
      min_meters: 100,
      gain_actual_meters: 8,
      loss_actual_meters: 2,
    });
    assert.equal(result.power_data?.avg_watts, 250);
    assert.equal(result.power_data?.max_watts, 300);
    assert.deepEqual(
      result.distance_data?.detailed?.distance_samples?.map((sample) => sample.distance_meters),
      [0, 5.5, 11],
    );
    const running = polarNormalizers.exercise.normalize(
      {
        exercise: [
          { ...exercise, samples: exercise.samples?.filter((sample) => sample['sample-type'] !== '2') },
        ],
      },
      { userOffsetMinutes: null },
    );
    assert.deepEqual(
      running[0]?.movement_data?.cadence_samples?.map((sample) => sample.cadence_rpm),
      [170, 172],
    );
  });

  test('sport names -> ActivityType codes', () => {
    assert.equal(polarActivityType('RUNNING', 'ROAD_RUNNING'), ActivityType.RUNNING);
    assert.equal(polarActivityType('RUNNING', 'TRAIL_RUNNING'), ActivityType.TRAIL_RUNNING);
    assert.equal(polarActivityType('CYCLING', 'MOUNTAIN_BIKING'), ActivityType.MOUNTAIN_BIKING);
    assert.equal(polarActivityType('OTHER', 'CROSS-COUNTRY_SKIING'), ActivityType.CROSS_COUNTRY_SKIING);
    assert.equal(polarActivityType('OTHER', 'LES_MILLS_SOMETHING_NEW'), ActivityType.AEROBICS);
    assert.equal(
      polarActivityType('SWIMMING', 'NOT_A_POLAR_SPORT'),
      ActivityType.SWIMMING,
      'unknown detail falls back',
    );
    assert.equal(polarActivityType('RUNNING', 'OTHER_OUTDOOR'), ActivityType.RUNNING);
    assert.equal(polarActivityType(null, null), ActivityType.OTHER);
    assert.equal(polarActivityType('INDOOR_CYCLING', undefined), ActivityType.STATIONARY_BIKING);
  });
});

describeWithShared('Polar daily activity + continuous heart rate -> Daily', skip, () => {
  const days = polarNormalizers.activity_summary.normalize(
    { activity_summary: activities, continuous_heart_rate: [continuous] },
    context,
  );

  test('one record per date, in the user offset, all valid', () => {
    assert.deepEqual(
      days.map((day) => day.metadata.start_time),
      ['2022-09-12T00:00:00.000000+02:00', '2025-08-13T00:00:00.000000+02:00'],
    );
    for (const day of days) assertValid(Daily, day, `daily ${day.metadata.start_time}`);
  });

  test('the sample activity day, field by field', () => {
    const day = days[1];
    assert.ok(day);
    assert.equal(day.metadata.end_time, '2025-08-14T00:00:00.000000+02:00');
    assert.equal(day.metadata.upload_type, UploadType.AUTOMATIC);
    assert.equal(day.active_durations_data?.activity_seconds, 3 * 3600 + 11 * 60);
    assert.equal(day.active_durations_data?.inactivity_seconds, 18 * 3600 + 23 * 60 + 30);
    assert.equal(day.active_durations_data?.num_continuous_inactive_periods, 1);
    assert.deepEqual(day.calories_data, {
      total_burned_calories: 2500,
      net_activity_calories: 1500,
      BMR_calories: 1000,
    });
    assert.equal(day.distance_data?.steps, 8823);
    assert.equal(day.distance_data?.distance_meters, 4590.53);
    assert.equal(day.scores?.activity, 89.1);
    assert.equal(day.heart_rate_data, null);
  });

  test('continuous heart rate: HH:mm:ss on the date, in the user offset', () => {
    const day = days[0];
    assert.deepEqual(day?.heart_rate_data?.detailed?.hr_samples, [
      { timestamp: '2022-09-12T00:02:08.000000+02:00', bpm: 63 },
      { timestamp: '2022-09-12T00:07:08.000000+02:00', bpm: 62 },
    ]);
    assert.deepEqual(day?.heart_rate_data?.summary, { avg_hr_bpm: 62.5, min_hr_bpm: 62, max_hr_bpm: 63 });
  });

  test('filtered repeats of step samples are restored; zones add up per level', () => {
    const activity: PolarActivity = {
      start_time: '2024-03-10T00:00:00',
      end_time: '2024-03-10T23:59:59',
      samples: {
        steps: {
          interval_ms: 60_000,
          total_steps: 40,
          samples: [
            { steps: 10, timestamp: '2024-03-10T08:00' },
            { steps: 0, timestamp: '2024-03-10T08:03' },
            { steps: 10, timestamp: '2024-03-10T08:04' },
          ],
        },
        activity_zones: {
          samples: [
            { zone: 'SLEEP', timestamp: '2024-03-10T00:00:00' },
            { zone: 'LIGHT', timestamp: '2024-03-10T07:00:00' },
            { zone: 'VIGOROUS', timestamp: '2024-03-10T08:00:00' },
            { zone: 'SEDENTARY', timestamp: '2024-03-10T08:30:00' },
          ],
        },
      },
    };
    const [day] = polarNormalizers.activity_summary.normalize(
      { activity_summary: [activity] },
      { userOffsetMinutes: 0 },
    );
    assert.ok(day);
    assertValid(Daily, day, 'daily');
    const steps = day.distance_data?.detailed?.step_samples ?? [];
    assert.deepEqual(
      steps.map((sample) => [sample.timestamp?.slice(11, 16), sample.steps]),
      [
        ['08:00', 10],
        ['08:01', 10],
        ['08:02', 10],
        ['08:03', 0],
        ['08:04', 10],
      ],
    );
    assert.equal(
      steps.reduce((total, sample) => total + (sample.steps ?? 0), 0),
      40,
      'restored samples add up to total_steps',
    );
    const durations = day.active_durations_data;
    assert.equal(durations?.rest_seconds, 7 * 3600);
    assert.equal(durations?.low_intensity_seconds, 3600);
    assert.equal(durations?.vigorous_intensity_seconds, 1800);
    assert.equal(durations?.moderate_intensity_seconds, 0);
    assert.deepEqual(
      durations?.activity_levels_samples?.map((sample) => sample.level),
      [ActivityLevel.REST, ActivityLevel.LOW, ActivityLevel.HIGH, ActivityLevel.INACTIVE],
    );
  });
});

describeWithShared('Polar sleep + nightly recharge -> Sleep', skip, () => {
  const [sleep] = polarNormalizers.sleep.normalize({ sleep: nights, nightly_recharge: recharges }, context);
  assert.ok(sleep);

  test('the sample night, field by field', () => {
    assertValid(Sleep, sleep, 'sleep');
    assert.deepEqual(sleep.metadata, {
      summary_id: '2020-01-01',
      start_time: '2020-01-01T00:39:07.000000+03:00',
      end_time: '2020-01-01T09:19:37.000000+03:00',
      upload_type: SleepUploadType.AUTOMATIC,
      is_nap: false,
      timestamp_localization: 1,
    });
    const durations = sleep.sleep_durations_data;
    assert.deepEqual(durations?.asleep, {
      duration_asleep_state_seconds: 4000,
      duration_light_sleep_state_seconds: 1000,
      duration_deep_sleep_state_seconds: 1000,
      duration_REM_sleep_state_seconds: 1000,
      num_REM_events: 0,
    });
    assert.deepEqual(durations?.awake, {
      duration_awake_state_seconds: 1000,
      duration_short_interruption_seconds: 500,
      duration_long_interruption_seconds: 300,
      num_wakeup_events: 0,
    });
    assert.deepEqual(durations?.other, {
      duration_in_bed_seconds: 31230,
      duration_unmeasurable_sleep_seconds: 1000,
    });
    assert.equal(durations?.sleep_efficiency, (4000 / 31230) * 100);
    // 2 lighter and 3 light non-REM are both LIGHT (one run); 5 unknown.
    assert.deepEqual(durations?.hypnogram_samples, [
      { timestamp: '2020-01-01T00:39:00.000000+03:00', level: SleepLevel.LIGHT },
      { timestamp: '2020-01-01T01:23:00.000000+03:00', level: SleepLevel.UNKNOWN },
    ]);
    assert.deepEqual(sleep.scores, { sleep: 80, sleep_score: 80 });
    assert.deepEqual(sleep.data_enrichment?.sleep_contributors, {
      duration: 100,
      solidity: 75,
      regeneration: 54.2,
    });
    assert.deepEqual(sleep.device_data, { manufacturer: 'Polar', serial_number: '1111AAAA' });
  });

  test('heart rate from the night, HRV, breathing and recovery from the recharge', () => {
    const hr = sleep.heart_rate_data;
    assert.deepEqual(hr?.detailed?.hr_samples?.[1], {
      timestamp: '2020-01-01T00:46:00.000000+03:00',
      bpm: 77,
      context: HeartRateContext.NOT_ACTIVE,
    });
    assert.equal(hr?.summary?.avg_hr_bpm, (76 + 77 + 76) / 3);
    assert.equal(hr?.summary?.min_hr_bpm, 76);
    assert.equal(hr?.summary?.avg_hrv_rmssd, 28);
    assert.deepEqual(
      hr?.detailed?.hrv_samples_rmssd?.map((sample) => sample.hrv_rmssd),
      [14, 14, 15],
    );
    const breaths = sleep.respiration_data?.breaths_data;
    assert.equal(breaths?.avg_breaths_per_min, 14.1);
    assert.equal(breaths?.min_breaths_per_min, 13.4);
    assert.equal(breaths?.max_breaths_per_min, 13.5);
    assert.equal(breaths?.samples?.[0]?.timestamp, '2020-01-01T00:39:00.000000+03:00');
    assert.equal(
      sleep.readiness_data?.recovery_level,
      RecoveryLevel.COMPROMISED,
      'status 3 on the same 6-step scale',
    );
  });

  test('without a recharge the night stands alone; a lone recharge makes no record', () => {
    const [alone] = polarNormalizers.sleep.normalize({ sleep: nights }, context);
    assertValid(Sleep, alone, 'sleep');
    assert.equal(alone?.readiness_data, null);
    assert.equal(alone?.heart_rate_data?.summary?.avg_hrv_rmssd, null);
    assert.deepEqual(
      polarNormalizers.sleep.normalize({ sleep: [], nightly_recharge: recharges }, context),
      [],
    );
  });

  test('a night across midnight: stages ordered, REM and wake-ups counted', () => {
    const night: PolarNight = {
      date: '2024-01-02',
      sleep_start_time: '2024-01-01T23:10:00+02:00',
      sleep_end_time: '2024-01-02T07:00:00+02:00',
      hypnogram: { '23:10': 3, '00:20': 4, '01:30': 1, '02:00': 0, '02:05': 2, '05:00': 1 },
    };
    const [result] = polarNormalizers.sleep.normalize({ sleep: [night] }, { userOffsetMinutes: null });
    assertValid(Sleep, result, 'sleep');
    assert.deepEqual(
      result?.sleep_durations_data?.hypnogram_samples?.map((sample) => [sample.timestamp, sample.level]),
      [
        ['2024-01-01T23:10:00.000000+02:00', SleepLevel.LIGHT],
        ['2024-01-02T00:20:00.000000+02:00', SleepLevel.DEEP],
        ['2024-01-02T01:30:00.000000+02:00', SleepLevel.REM],
        ['2024-01-02T02:00:00.000000+02:00', SleepLevel.AWAKE],
        ['2024-01-02T02:05:00.000000+02:00', SleepLevel.LIGHT],
        ['2024-01-02T05:00:00.000000+02:00', SleepLevel.REM],
      ],
    );
    assert.equal(result?.sleep_durations_data?.asleep?.num_REM_events, 2);
    assert.equal(result?.sleep_durations_data?.awake?.num_wakeup_events, 1);
  });
});

describeWithShared('Polar physical info and user', skip, () => {
  test('physical info -> Body on the day it was modified', () => {
    const [body] = polarNormalizers.physical_information.normalize(
      { physical_information: physical },
      context,
    );
    assert.ok(body);
    assertValid(Body, body, 'body');
    assert.equal(body.metadata.start_time, '2024-06-10T00:00:00.000000+02:00');
    assert.deepEqual(body.measurements_data?.measurements, [
      { measurement_time: '2024-06-10T14:00:00.000000+02:00', weight_kg: 70.5, height_cm: 175 },
    ]);
    assert.deepEqual(body.heart_data?.heart_rate_data?.summary, { resting_hr_bpm: 60, user_max_hr_bpm: 190 });
    assert.equal(body.oxygen_data?.vo2max_ml_per_min_per_kg, 50);
    assert.deepEqual(body.oxygen_data?.vo2_samples, [
      { timestamp: '2024-06-10T14:00:00.000000+02:00', vo2max_ml_per_min_per_kg: 50 },
    ]);
  });

  test("a SOURCE_DEFAULT weight is Polar's placeholder and is left out", () => {
    const [body] = polarNormalizers.physical_information.normalize(
      { physical_information: { ...physical, weight_source: 'SOURCE_DEFAULT' } },
      context,
    );
    assert.equal(body?.measurements_data?.measurements?.[0]?.weight_kg, null);
    assert.equal(body?.measurements_data?.measurements?.[0]?.height_cm, 175);
  });

  test('user (+ physical info) -> Athlete', () => {
    const [athlete] = polarNormalizers.user.normalize({ user, physical_information: physical }, context);
    assertValid(Athlete, athlete, 'athlete');
    assert.deepEqual(athlete, {
      first_name: 'Eka',
      last_name: 'Toka',
      date_of_birth: '1985-09-06',
      sex: 'male',
      gender: 'male',
      age: 38,
      provider_user_id: '2278512',
    });
    const [fromInfo] = polarNormalizers.user.normalize(
      { user: { 'polar-user-id': 7 }, physical_information: physical },
      context,
    );
    assert.equal(fromInfo?.date_of_birth, '1990-01-01');
    assert.equal(fromInfo?.age, 34);
  });
});

test('the table declares each kind with its unified type and companions', () => {
  assert.deepEqual(
    Object.fromEntries(
      Object.entries(polarNormalizers).map(([kind, row]) => [kind, [row.unifiedType, row.companions]]),
    ),
    {
      exercise: ['activity', []],
      activity_summary: ['daily', ['continuous_heart_rate']],
      sleep: ['sleep', ['nightly_recharge']],
      physical_information: ['body', []],
      user: ['athlete', ['physical_information']],
    },
  );
});
