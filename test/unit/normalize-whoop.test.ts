import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import {
  Activity,
  ActivityType,
  Athlete,
  Body,
  Daily,
  HeartRateZone,
  OxygenSaturationType,
  Sleep,
  SleepUploadType,
  UploadType,
} from '../../src/model/index.ts';
import type { NormalizeContext } from '../../src/provider-kit/normalize/normalize.ts';
import { KJ_PER_KCAL } from '../../src/provider-kit/normalize/units.ts';
import {
  cycleDay,
  type WhoopBodyMeasurement,
  type WhoopCycle,
  type WhoopProfile,
  type WhoopRecovery,
  type WhoopSleep,
  type WhoopWorkout,
  whoopActivityType,
  whoopNormalizers,
} from '../../src/providers/whoop/normalize/index.ts';
import { missingProviderSamples, readProviderSample } from '../helpers/provider-samples.ts';
import { describeWithShared } from '../helpers/shared-reference.ts';

/**
 * Why the blocks that read the shared provider samples are skipped (undefined when present);
 * samples read at module level are read only when present (`undefined as never` otherwise).
 */
const skip = missingProviderSamples();

const sample = <T>(name: string): T => readProviderSample<T>(`whoop-${name}`);
const first = <T>(name: string): T => sample<{ records: T[] }>(name).records[0] as T;

function assertValid(schema: TSchema, records: readonly unknown[], label: string): void {
  for (const [index, record] of records.entries()) {
    if (!Value.Check(schema, record)) {
      const errors = [...Value.Errors(schema, record)].slice(0, 5);
      assert.fail(`${label}[${index}] is invalid: ${JSON.stringify(errors, null, 2)}`);
    }
  }
}

const context: NormalizeContext = { userOffsetMinutes: null };
const cycle = skip ? (undefined as never) : first<WhoopCycle>('cycle_collection');
const sleep = skip ? (undefined as never) : first<WhoopSleep>('sleep_collection');
const workout = skip ? (undefined as never) : first<WhoopWorkout>('workout_collection');
const body = skip ? (undefined as never) : sample<WhoopBodyMeasurement>('user_measurement_body');
// The spec's examples were written independently: the recovery names another sleep. Point it at
// the sample sleep where a test needs the two joined.
const recovery = skip ? (undefined as never) : first<WhoopRecovery>('recovery_collection');
const recoveryOfSleep: WhoopRecovery = skip ? (undefined as never) : { ...recovery, sleep_id: sleep.id };

describeWithShared('WHOOP cycle (+ recovery, sleep) -> Daily', skip, () => {
  const [record] = whoopNormalizers.cycle.normalize(
    { cycle: [cycle], recovery: [recovery], sleep: [sleep] },
    context,
  );

  test('the day the cycle is lived in, local midnight to midnight at its timezone_offset', () => {
    // Asleep 2022-04-23 21:25 at -05:00: the cycle is the 24th.
    assert.deepEqual(record?.metadata, {
      start_time: '2022-04-24T00:00:00.000000-05:00',
      end_time: '2022-04-25T00:00:00.000000-05:00',
      upload_type: UploadType.AUTOMATIC,
      timestamp_localization: 1,
    });
    assert.equal(cycleDay({ ...cycle, start: '2022-04-24T04:30:00.000Z' }, -300), '2022-04-24');
    assert.equal(cycleDay({ ...cycle, start: '2022-04-24T06:00:00.000Z' }, -300), '2022-04-24');
  });

  test('strain, kJ -> kcal, heart rate, and the recovery and sleep scores', () => {
    assert.deepEqual(record?.strain_data, { strain_level: 5.2951527 });
    assert.equal(record?.calories_data?.total_burned_calories, 8288.297 / KJ_PER_KCAL);
    assert.ok(Math.abs((record?.calories_data?.total_burned_calories ?? 0) - 1980.95) < 0.01);
    assert.deepEqual(record?.heart_rate_data?.summary, {
      avg_hr_bpm: 68,
      max_hr_bpm: 141,
      resting_hr_bpm: 64,
      avg_hrv_rmssd: 31.813562,
    });
    assert.deepEqual(record?.oxygen_data, { avg_saturation_percentage: 95.6875 });
    assert.deepEqual(record?.scores, { recovery: 44, sleep: 98 });
    assertValid(Daily, [record], 'daily');
  });

  test('a cycle still being scored is PENDING with no score fields', () => {
    const [pending] = whoopNormalizers.cycle.normalize(
      { cycle: [{ ...cycle, end: undefined, score_state: 'PENDING_SCORE', score: undefined }] },
      context,
    );
    assert.equal(pending?.metadata.upload_type, UploadType.PENDING);
    assert.equal(pending?.strain_data?.strain_level, null);
    assert.equal(pending?.calories_data?.total_burned_calories, null);
    assertValid(Daily, [pending], 'daily');
  });
});

describeWithShared('WHOOP sleep (+ recovery) -> Sleep', skip, () => {
  const [record] = whoopNormalizers.sleep.normalize({ sleep: [sleep], recovery: [recoveryOfSleep] }, context);

  test('bounds in the sleep offset (with milliseconds), nap flag, id', () => {
    assert.deepEqual(record?.metadata, {
      start_time: '2022-04-23T21:25:44.774000-05:00',
      end_time: '2022-04-24T05:25:44.774000-05:00',
      upload_type: SleepUploadType.AUTOMATIC,
      is_nap: false,
      summary_id: 'ecfc6a15-4661-442f-a9a4-f160dd7afae8',
      timestamp_localization: 1,
    });
  });

  test('stage durations ms -> s, wake-ups, efficiency', () => {
    const durations = record?.sleep_durations_data;
    assert.deepEqual(durations?.asleep, {
      duration_asleep_state_seconds: 14905.851 + 6630.37 + 5879.573,
      duration_light_sleep_state_seconds: 14905.851,
      duration_deep_sleep_state_seconds: 6630.37,
      duration_REM_sleep_state_seconds: 5879.573,
    });
    assert.deepEqual(durations?.awake, { duration_awake_state_seconds: 1403.507, num_wakeup_events: 12 });
    assert.deepEqual(durations?.other, {
      duration_in_bed_seconds: 30272.735,
      duration_unmeasurable_sleep_seconds: 0,
    });
    assert.equal(durations?.sleep_efficiency, 91.69533848);
  });

  test('respiratory rate, sleep performance as the score, recovery HR/HRV/SpO2/readiness', () => {
    assert.equal(record?.respiration_data?.breaths_data?.avg_breaths_per_min, 16.11328125);
    assert.equal(record?.respiration_data?.oxygen_saturation_data?.avg_saturation_percentage, 95.6875);
    assert.deepEqual(record?.scores, { sleep: 98, sleep_score: 98 });
    assert.deepEqual(record?.heart_rate_data?.summary, { resting_hr_bpm: 64, avg_hrv_rmssd: 31.813562 });
    assert.deepEqual(record?.readiness_data, { readiness: 44 });
    assert.equal(record?.data_enrichment?.readiness_score, 44);
    assertValid(Sleep, [record], 'sleep');
  });

  test('without its recovery, and while pending, the sleep stays valid', () => {
    const records = whoopNormalizers.sleep.normalize(
      { sleep: [sleep, { ...sleep, id: 'pending', nap: true, score_state: 'PENDING_SCORE', score: null }] },
      context,
    );
    assert.equal(records[0]?.heart_rate_data, null);
    assert.equal(records[1]?.metadata.upload_type, SleepUploadType.TENTATIVE);
    assert.equal(records[1]?.metadata.is_nap, true);
    // Unscored: no stages, but the time in bed is the sleep's own span.
    const span = (Date.parse(sleep.end) - Date.parse(sleep.start)) / 1000;
    assert.deepEqual(records[1]?.sleep_durations_data, { other: { duration_in_bed_seconds: span } });
    assertValid(Sleep, records, 'sleep');
  });
});

describeWithShared('WHOOP workout -> Activity', skip, () => {
  const [record] = whoopNormalizers.workout.normalize(
    { workout: [workout], body_measurement: body },
    context,
  );

  test('metadata: offset, sport_name type, upload type', () => {
    assert.deepEqual(record?.metadata, {
      summary_id: 'ecfc6a15-4661-442f-a9a4-f160dd7afae8',
      start_time: '2022-04-23T21:25:44.774000-05:00',
      end_time: '2022-04-24T05:25:44.774000-05:00',
      type: ActivityType.RUNNING,
      upload_type: UploadType.AUTOMATIC,
      name: 'running',
      timestamp_localization: 1,
    });
  });

  test('strain, kJ and kcal, heart rate and the six zones in seconds', () => {
    assert.deepEqual(record?.strain_data, { strain_level: 8.2463 });
    assert.equal(record?.energy_data?.energy_kilojoules, 1569.34033203125);
    assert.equal(record?.calories_data?.total_burned_calories, 1569.34033203125 / KJ_PER_KCAL);
    const summary = record?.heart_rate_data?.summary;
    assert.deepEqual([summary?.avg_hr_bpm, summary?.max_hr_bpm, summary?.user_max_hr_bpm], [123, 146, 200]);
    assert.deepEqual(
      summary?.hr_zone_data?.map((zone) => [zone.zone, zone.duration_seconds]),
      [
        [HeartRateZone.ZONE_0, 300],
        [HeartRateZone.ZONE_1, 600],
        [HeartRateZone.ZONE_2, 900],
        [HeartRateZone.ZONE_3, 900],
        [HeartRateZone.ZONE_4, 600],
        [HeartRateZone.ZONE_5, 300],
      ],
    );
  });

  test('distance and altitude gain; loss is gain minus the net change', () => {
    assert.equal(record?.distance_data?.summary?.distance_meters, 1772.77035916);
    assert.deepEqual(record?.distance_data?.summary?.elevation, {
      gain_actual_meters: 46.64384460449,
      loss_actual_meters: 46.64384460449 - -0.781372010707855,
    });
    assertValid(Activity, [record], 'workout');
  });

  test('sport names and the deprecated sport_id fallback map to ActivityType codes', () => {
    assert.equal(whoopActivityType('weightlifting', null), ActivityType.WEIGHTLIFTING);
    assert.equal(whoopActivityType('Functional Fitness', null), ActivityType.CROSSFIT);
    assert.equal(whoopActivityType('hiking/rucking', null), ActivityType.HIKING);
    assert.equal(whoopActivityType('Football', null), ActivityType.AMERICAN_FOOTBALL);
    assert.equal(whoopActivityType('', 1), ActivityType.BIKING);
    assert.equal(whoopActivityType(null, 0), ActivityType.RUNNING);
    assert.equal(whoopActivityType('ice bath', null), ActivityType.OTHER);
  });

  test('an unscorable workout keeps its bounds and type, without scores', () => {
    const [unscored] = whoopNormalizers.workout.normalize(
      { workout: [{ ...workout, timezone_offset: '+05:30', score_state: 'UNSCORABLE', score: undefined }] },
      context,
    );
    assert.equal(unscored?.metadata.start_time, '2022-04-24T07:55:44.774000+05:30');
    assert.equal(unscored?.heart_rate_data?.summary?.hr_zone_data, null);
    assert.equal(unscored?.distance_data?.summary?.elevation, null);
    assertValid(Activity, [unscored], 'workout');
  });
});

describeWithShared('WHOOP recovery (+ body measurement) -> Body; profile -> Athlete', skip, () => {
  test('skin temperature (°C) and SpO2 at the sleep end, resting HR, HRV; measurements on the fetch day', () => {
    const now = Date.parse('2022-04-24T15:00:00Z');
    const records = whoopNormalizers.recovery.normalize(
      { recovery: [recoveryOfSleep], sleep: [sleep], body_measurement: body },
      { userOffsetMinutes: -300, now },
    );
    assert.equal(records.length, 1);
    const [record] = records;
    assert.equal(record?.metadata.start_time, '2022-04-24T00:00:00.000000-05:00');
    assert.deepEqual(record?.temperature_data, {
      skin_temperature_samples: [
        { timestamp: '2022-04-24T05:25:44.774000-05:00', temperature_celsius: 33.7 },
      ],
    });
    assert.deepEqual(record?.oxygen_data, {
      avg_saturation_percentage: 95.6875,
      saturation_samples: [
        {
          timestamp: '2022-04-24T05:25:44.774000-05:00',
          percentage: 95.6875,
          type: OxygenSaturationType.BLOOD_SPO2,
        },
      ],
    });
    assert.deepEqual(record?.heart_data?.heart_rate_data?.summary, {
      resting_hr_bpm: 64,
      avg_hrv_rmssd: 31.813562,
      user_max_hr_bpm: 200,
    });
    assert.deepEqual(record?.measurements_data?.measurements, [
      { measurement_time: '2022-04-24T10:00:00.000000-05:00', weight_kg: 90.7185, height_cm: 182.88 },
    ]);
    assertValid(Body, records, 'body');
  });

  test('profile -> Athlete', () => {
    const records = whoopNormalizers.profile.normalize(
      { profile: sample<WhoopProfile>('user_profile_basic') },
      context,
    );
    assert.deepEqual(records, [
      { first_name: 'John', last_name: 'Smith', email: 'jsmith123@whoop.com', provider_user_id: '10129' },
    ]);
    assertValid(Athlete, records, 'athlete');
  });
});

test('the WHOOP table names a unified type and companions for every kind', () => {
  assert.deepEqual(
    Object.fromEntries(
      Object.entries(whoopNormalizers).map(([kind, row]) => [kind, [row.unifiedType, row.companions]]),
    ),
    {
      cycle: ['daily', ['recovery', 'sleep']],
      sleep: ['sleep', ['recovery']],
      workout: ['activity', ['body_measurement']],
      recovery: ['body', ['body_measurement', 'sleep', 'cycle']],
      profile: ['athlete', []],
    },
  );
});

// WHOOP's v1-v2 migration guide: v1 sleeps and workouts were identified by a long, v2 by a UUID
// (the long kept as `v1_id`). A record still in the v1 shape must come out valid, or be refused
// by name: the model keys records by a string id.
describeWithShared('WHOOP records in the v1 shape', skip, () => {
  const { id: _uuid, cycle_id: _cycle, v1_id: _v1, ...v1Sleep } = sleep;
  const v1Recovery: WhoopRecovery = { ...recovery, sleep_id: 93845 };
  const { id: _workoutUuid, sport_name: _name, ...v1WorkoutBase } = workout;
  const { zone_durations: zones, ...v1Score } = workout.score ?? {};
  const v1Workout = {
    ...v1WorkoutBase,
    id: 1043,
    score: { ...v1Score, zone_duration: zones },
  } as WhoopWorkout;

  test('a v1 sleep and its v1 recovery: a valid record keyed by the long in decimal', () => {
    const records = whoopNormalizers.sleep.normalize(
      { sleep: [{ ...v1Sleep, id: 93845 } as WhoopSleep], recovery: [v1Recovery] },
      context,
    );
    assertValid(Sleep, records, 'v1 sleep');
    assert.equal(records[0]?.metadata.summary_id, '93845');
    assert.equal(
      records[0]?.readiness_data?.readiness,
      recovery.score?.recovery_score,
      'the recovery is matched',
    );
  });

  test('a v1 workout: valid, its zones read from zone_duration, its type from sport_id', () => {
    const records = whoopNormalizers.workout.normalize({ workout: [v1Workout] }, context);
    assertValid(Activity, records, 'v1 workout');
    assert.equal(records[0]?.metadata.summary_id, '1043');
    assert.equal(records[0]?.heart_rate_data?.summary?.hr_zone_data?.length, 6);
  });

  test('an id of no documented kind is a NormalizationError naming the field', () => {
    assert.throws(
      () => whoopNormalizers.workout.normalize({ workout: [{ ...v1Workout, id: 1.5 }] }, context),
      (error: Error & { field?: string }) =>
        error.name === 'NormalizationError' &&
        error.field === 'id' &&
        /WHOOP workout 1\.5/.test(error.message),
    );
  });
});
