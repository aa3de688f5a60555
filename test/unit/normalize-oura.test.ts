import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import {
  Activity,
  ActivityLevel,
  ActivityType,
  Athlete,
  Body,
  Daily,
  HeartRateContext,
  Sleep,
  SleepLevel,
  SleepUploadType,
  StressLevel,
  UploadType,
} from '../../src/model/index.ts';
import {
  normalizeHeartRateRows,
  type OuraDailyActivity,
  type OuraDailyReadiness,
  type OuraDailySleep,
  type OuraDailySpo2,
  type OuraDailyStress,
  type OuraHeartRateRow,
  type OuraPersonalInfo,
  type OuraSession,
  type OuraSleepPeriod,
  type OuraVo2Max,
  type OuraWorkout,
  ouraNormalizers,
} from '../../src/providers/oura/normalize/index.ts';
import { KJ_PER_KCAL } from '../../src/provider-kit/normalize/units.ts';
import { missingProviderSamples, readProviderSample } from '../helpers/provider-samples.ts';
import { describeWithShared } from '../helpers/shared-reference.ts';

/**
 * Why the blocks that read the shared provider samples are skipped (undefined when present);
 * samples read at module level are read only when present (`undefined as never` otherwise).
 */
const skip = missingProviderSamples();

const sample = <T>(name: string): T => readProviderSample<T>(`oura-${name}`);
const data = <T>(name: string): T[] => sample<{ data: T[] }>(name).data;

function assertValid(schema: TSchema, records: readonly unknown[], label: string): void {
  for (const [index, record] of records.entries()) {
    if (!Value.Check(schema, record)) {
      const errors = [...Value.Errors(schema, record)].slice(0, 5);
      assert.fail(`${label}[${index}] is invalid: ${JSON.stringify(errors, null, 2)}`);
    }
  }
}

const noOffset = { userOffsetMinutes: null };
/** The same day-level document, moved to another day (the samples were recorded on different days). */
const onDay = <T extends { day: string }>(document: T, day: string): T => ({ ...document, day });

describeWithShared('Oura workout -> Activity', skip, () => {
  const workouts = data<OuraWorkout>('workout');
  const records = ouraNormalizers.workout.normalize({ workout: workouts }, noOffset);

  test('maps every field of the recorded workouts, keeping each one its own offset', () => {
    assert.equal(records.length, 2);
    const [first, second] = records;
    assert.deepEqual(first?.metadata, {
      summary_id: '23264206-4a83-4619-abff-0e77bf6cd562',
      start_time: '2024-10-09T09:07:00.000000+02:00',
      end_time: '2024-10-09T09:18:00.000000+02:00',
      type: ActivityType.WALKING,
      upload_type: UploadType.AUTOMATIC,
      name: 'walking',
      timestamp_localization: 1,
    });
    assert.equal(first?.calories_data?.total_burned_calories, 21.967);
    assert.equal(first?.energy_data?.energy_kilojoules, 21.967 * KJ_PER_KCAL);
    assert.equal(first?.distance_data?.summary?.distance_meters, null);
    assert.equal(second?.metadata.start_time, '2024-10-09T16:49:00.000000+00:00');
    assert.equal(second?.metadata.end_time, '2024-10-09T17:33:00.000000+00:00');
    assert.equal(second?.metadata.timestamp_localization, 0);
    assert.equal(second?.distance_data?.summary?.distance_meters, 269.87872314453125);
    assertValid(Activity, records, 'workout');
  });

  test('a manual entry is MANUAL, a label names it, and unknown activities are OTHER', () => {
    const base = workouts[0] as OuraWorkout;
    const [manual, strength, unknown] = ouraNormalizers.workout.normalize(
      {
        workout: [
          { ...base, source: 'manual', label: 'Lunch walk' },
          { ...base, activity: 'strengthTraining' },
          { ...base, activity: 'underwaterBasketWeaving' },
        ],
      },
      noOffset,
    );
    assert.equal(manual?.metadata.upload_type, UploadType.MANUAL);
    assert.equal(manual?.metadata.name, 'Lunch walk');
    assert.equal(strength?.metadata.type, ActivityType.STRENGTH_TRAINING);
    assert.equal(unknown?.metadata.type, ActivityType.OTHER);
  });
});

describeWithShared('Oura sleep (+ daily_sleep, daily_readiness, daily_spo2) -> Sleep', skip, () => {
  const period = data<OuraSleepPeriod>('sleep')[0] as OuraSleepPeriod;
  const dailySleep = onDay(data<OuraDailySleep>('daily_sleep')[0] as OuraDailySleep, period.day);
  const readiness = onDay(data<OuraDailyReadiness>('daily_readiness')[0] as OuraDailyReadiness, period.day);
  const spo2 = onDay(data<OuraDailySpo2>('daily_spo2')[0] as OuraDailySpo2, period.day);
  const [record] = ouraNormalizers.sleep.normalize(
    { sleep: [period], daily_sleep: [dailySleep], daily_readiness: [readiness], daily_spo2: [spo2] },
    noOffset,
  );

  test('metadata, durations (seconds) and efficiency', () => {
    assert.deepEqual(record?.metadata, {
      start_time: '2024-10-10T01:01:59.000000+02:00',
      end_time: '2024-10-10T09:04:12.000000+02:00',
      upload_type: SleepUploadType.AUTOMATIC,
      is_nap: false,
      summary_id: '96e7772a-64a7-4342-9c5f-3e5ed9e64d6d',
      timestamp_localization: 1,
    });
    const durations = record?.sleep_durations_data;
    assert.deepEqual(durations?.asleep, {
      duration_asleep_state_seconds: 23220,
      duration_deep_sleep_state_seconds: 3060,
      duration_light_sleep_state_seconds: 17160,
      duration_REM_sleep_state_seconds: 3000,
    });
    assert.deepEqual(durations?.awake, { duration_awake_state_seconds: 5713, sleep_latency_seconds: 930 });
    assert.deepEqual(durations?.other, { duration_in_bed_seconds: 28933 });
    assert.equal(durations?.sleep_efficiency, 80);
  });

  test('hypnogram from sleep_phase_5_min: one sample per stage change, at bedtime_start + 5 min steps', () => {
    const phases = period.sleep_phase_5_min as string;
    const runs = phases
      .split('')
      .filter((character, index) => index === 0 || character !== phases[index - 1]);
    const hypnogram = record?.sleep_durations_data?.hypnogram_samples ?? [];
    assert.equal(hypnogram.length, runs.length);
    // "4244…": awake, then light at +5 min, awake at +10 min.
    assert.deepEqual(hypnogram.slice(0, 3), [
      { timestamp: '2024-10-10T01:01:59.000000+02:00', level: SleepLevel.AWAKE },
      { timestamp: '2024-10-10T01:06:59.000000+02:00', level: SleepLevel.LIGHT },
      { timestamp: '2024-10-10T01:11:59.000000+02:00', level: SleepLevel.AWAKE },
    ]);
    const levels = new Set(hypnogram.map((sample) => sample.level));
    assert.deepEqual(
      [...levels].sort(),
      [SleepLevel.AWAKE, SleepLevel.LIGHT, SleepLevel.DEEP, SleepLevel.REM].sort(),
    );
  });

  test('heart rate and HRV summaries and 5-minute samples', () => {
    const heart = record?.heart_rate_data;
    const samples = heart?.detailed?.hr_samples ?? [];
    // Oura's summary has no maximum: it is the series' highest reading.
    assert.deepEqual(heart?.summary, {
      avg_hr_bpm: 71.25,
      min_hr_bpm: 60,
      max_hr_bpm: Math.max(...samples.map((sample) => sample.bpm as number)),
      resting_hr_bpm: 60,
      avg_hrv_rmssd: 38,
    });
    assert.equal(heart?.summary?.max_hr_bpm, 82);
    assert.equal(samples.length, 8);
    assert.deepEqual(samples[0], { timestamp: '2024-10-10T01:01:59.000000+02:00', bpm: 76 });
    assert.deepEqual(samples[7], { timestamp: '2024-10-10T01:36:59.000000+02:00', bpm: 79 });
    const hrv = heart?.detailed?.hrv_samples_rmssd ?? [];
    assert.equal(hrv.length, 8);
    assert.deepEqual(hrv[1], { timestamp: '2024-10-10T01:06:59.000000+02:00', hrv_rmssd: 9 });
  });

  test('breathing, SpO2, readiness, temperature deviation (°C) and the day scores', () => {
    assert.equal(record?.respiration_data?.breaths_data?.avg_breaths_per_min, 14.5);
    assert.equal(record?.respiration_data?.oxygen_saturation_data?.avg_saturation_percentage, 98.072);
    assert.equal(record?.readiness_data?.readiness, 71);
    assert.equal(record?.temperature_data?.delta, -0.05);
    assert.deepEqual(record?.scores, { sleep: 77, sleep_score: 77 });
    assert.equal(record?.data_enrichment?.sleep_score, 77);
    assert.equal(record?.data_enrichment?.sleep_contributors?.deep_sleep, 68);
    assert.equal(record?.data_enrichment?.readiness_score, 71);
    assert.equal(record?.data_enrichment?.readiness_contributors?.recovery_index, 23);
    assertValid(Sleep, [record], 'sleep');
  });

  test('naps carry no day scores; deleted and rejected periods produce nothing; 30-s phases win', () => {
    const nap: OuraSleepPeriod = {
      ...period,
      id: 'nap',
      type: 'late_nap',
      time_in_bed: 1800,
      readiness: null,
      sleep_phase_30_sec: '4422222211',
    };
    const records = ouraNormalizers.sleep.normalize(
      {
        sleep: [
          period,
          nap,
          { ...period, id: 'deleted', type: 'deleted' },
          { ...period, id: 'rest', type: 'rest' },
        ],
        daily_sleep: [dailySleep],
      },
      noOffset,
    );
    assert.deepEqual(
      records.map((sleep) => sleep.metadata.summary_id),
      ['96e7772a-64a7-4342-9c5f-3e5ed9e64d6d', 'nap'],
    );
    const napRecord = records[1];
    assert.equal(napRecord?.metadata.is_nap, true);
    assert.deepEqual(napRecord?.scores, { sleep: null, sleep_score: null });
    assert.deepEqual(
      napRecord?.sleep_durations_data?.hypnogram_samples?.map((sample) => sample.timestamp),
      [
        '2024-10-10T01:01:59.000000+02:00',
        '2024-10-10T01:02:59.000000+02:00',
        '2024-10-10T01:05:59.000000+02:00',
      ],
    );
    assertValid(Sleep, records, 'sleep');
  });
});

describeWithShared(
  'Oura daily_activity (+ stress, heartrate, vo2_max, readiness, sleep, spo2, tags)',
  skip,
  () => {
    const activity = data<OuraDailyActivity>('daily_activity')[0] as OuraDailyActivity;
    const vo2 = onDay(data<OuraVo2Max>('vo2_max')[0] as OuraVo2Max, '2024-11-11');
    const hourlyRows: OuraHeartRateRow[] = [
      // 22:30 UTC on the 10th is 23:30 local: the previous day, excluded.
      { bpm: 50, source: 'sleep', timestamp: '2024-11-10T22:30:00+00:00' },
      { bpm: 55, source: 'sleep', timestamp: '2024-11-10T23:30:00+00:00' },
      { bpm: 120, source: 'workout', timestamp: '2024-11-11T09:00:00+00:00' },
      { bpm: 70, source: 'awake', timestamp: '2024-11-11T22:59:59+00:00' },
      { bpm: 60, source: 'rest', timestamp: '2024-11-11T23:00:00+00:00' },
    ];
    const [record] = ouraNormalizers.daily_activity.normalize(
      {
        daily_activity: [activity],
        daily_stress: data<OuraDailyStress>('daily_stress'),
        daily_readiness: data<OuraDailyReadiness>('daily_readiness'),
        daily_sleep: data<OuraDailySleep>('daily_sleep'),
        daily_spo2: data<OuraDailySpo2>('daily_spo2'),
        vo2_max: [vo2],
        heartrate: hourlyRows,
        tag: [
          {
            id: 't',
            day: '2024-11-11',
            text: 'late dinner',
            timestamp: '2024-11-11T21:00:00',
            tags: ['tag_generic_late_meal'],
          },
        ],
        enhanced_tag: [
          {
            id: 'e',
            tag_type_code: 'tag_generic_caffeine',
            start_time: '2024-11-11T09:15:00+01:00',
            start_day: '2024-11-11',
            comment: null,
          },
        ],
      },
      noOffset,
    );

    test('the day is local midnight to midnight in the offset of the document', () => {
      assert.deepEqual(record?.metadata, {
        start_time: '2024-11-11T00:00:00.000000+01:00',
        end_time: '2024-11-12T00:00:00.000000+01:00',
        upload_type: UploadType.AUTOMATIC,
        timestamp_localization: 1,
      });
    });

    test('durations (s), calories (kcal), steps, distance (m) and MET data', () => {
      const durations = record?.active_durations_data;
      assert.equal(durations?.activity_seconds, 18060 + 4860 + 2460);
      assert.equal(durations?.low_intensity_seconds, 18060);
      assert.equal(durations?.moderate_intensity_seconds, 4860);
      assert.equal(durations?.vigorous_intensity_seconds, 2460);
      assert.equal(durations?.inactivity_seconds, 38100);
      assert.equal(durations?.rest_seconds, 22860);
      assert.equal(durations?.num_continuous_inactive_periods, 0);
      assert.deepEqual(record?.calories_data, { total_burned_calories: 3502, net_activity_calories: 1153 });
      // equivalent_walking_distance (17850) is energy written as metres walked, not a distance travelled.
      assert.deepEqual(record?.distance_data, { steps: 15185, distance_meters: null });
      const met = record?.MET_data;
      assert.equal(met?.avg_level, 1.875);
      assert.equal(met?.num_high_intensity_minutes, 41);
      assert.equal(met?.num_moderate_intensity_minutes, 81);
      assert.equal(met?.num_low_intensity_minutes, 301);
      assert.equal(met?.num_inactive_minutes, 635);
      assert.equal(met?.MET_samples?.length, 8);
      assert.deepEqual(met?.MET_samples?.[1], { timestamp: '2024-11-11T04:01:00.000000+01:00', level: 0.9 });
    });

    test('class_5_min becomes one ActivityLevel sample per 5 minutes from 04:00 (same codes)', () => {
      const levels = record?.active_durations_data?.activity_levels_samples ?? [];
      assert.equal(levels.length, (activity.class_5_min as string).length);
      assert.deepEqual(levels[0], {
        timestamp: '2024-11-11T04:00:00.000000+01:00',
        level: ActivityLevel.REST,
      });
      assert.deepEqual(levels[45], {
        timestamp: '2024-11-11T07:45:00.000000+01:00',
        level: ActivityLevel.INACTIVE,
      });
      const highs = (activity.class_5_min as string)
        .split('')
        .filter((character) => character === '5').length;
      assert.equal(levels.filter((sample) => sample.level === ActivityLevel.HIGH).length, highs);
    });

    test('scores, stress (s and rating), SpO2, VO2max and readiness contributors', () => {
      assert.deepEqual(record?.scores, { activity: 95, sleep: 77, recovery: 86 });
      assert.deepEqual(record?.stress_data, {
        high_stress_duration_seconds: 1800,
        rest_stress_duration_seconds: 7200,
        stress_rating: StressLevel.LOW,
      });
      assert.equal(record?.oxygen_data?.avg_saturation_percentage, 98.072);
      assert.equal(record?.oxygen_data?.vo2max_ml_per_min_per_kg, 62);
      assert.deepEqual(record?.oxygen_data?.vo2_samples, [
        { timestamp: '2023-09-17T15:15:22.000000+01:00', vo2max_ml_per_min_per_kg: 62 },
      ]);
      assert.equal(record?.data_enrichment?.readiness_score, 86);
      const contributors = record?.data_enrichment?.readiness_contributors;
      assert.equal(Object.keys(contributors ?? {}).length, 8);
    });

    test('heart-rate rows of the local day only, with their source as context', () => {
      const heart = record?.heart_rate_data;
      assert.deepEqual(heart?.detailed?.hr_samples, [
        { timestamp: '2024-11-11T00:30:00.000000+01:00', bpm: 55, context: HeartRateContext.NOT_ACTIVE },
        { timestamp: '2024-11-11T10:00:00.000000+01:00', bpm: 120, context: HeartRateContext.ACTIVE },
        { timestamp: '2024-11-11T23:59:59.000000+01:00', bpm: 70, context: HeartRateContext.NOT_SET },
      ]);
      assert.deepEqual(heart?.summary, { avg_hr_bpm: (55 + 120 + 70) / 3, min_hr_bpm: 55, max_hr_bpm: 120 });
    });

    test('tags and enhanced tags become TagEntries; times without an offset take the day offset', () => {
      assert.deepEqual(record?.tag_data?.tags, [
        {
          timestamp: '2024-11-11T21:00:00.000000+01:00',
          tag_name: 'tag_generic_late_meal',
          notes: 'late dinner',
        },
        { timestamp: '2024-11-11T09:15:00.000000+01:00', tag_name: 'tag_generic_caffeine', notes: '' },
      ]);
      assertValid(Daily, [record], 'daily');
    });

    test('without an offset in the payload the context offset is used, else UTC', () => {
      const bare = { ...activity, timestamp: '2024-11-11T04:00:00' };
      const [local] = ouraNormalizers.daily_activity.normalize(
        { daily_activity: [bare] },
        { userOffsetMinutes: -300 },
      );
      assert.equal(local?.metadata.start_time, '2024-11-11T00:00:00.000000-05:00');
      assert.equal(
        local?.active_durations_data?.activity_levels_samples?.[0]?.timestamp,
        '2024-11-11T04:00:00.000000-05:00',
      );
      const [utc] = ouraNormalizers.daily_activity.normalize({ daily_activity: [bare] }, noOffset);
      assert.equal(utc?.metadata.start_time, '2024-11-11T00:00:00.000000+00:00');
      assert.equal(utc?.metadata.timestamp_localization, 0);
    });
  },
);

describeWithShared(
  'Oura heartrate (+ personal_info) -> Body, HR samples; personal_info -> Athlete',
  skip,
  () => {
    const rows = data<OuraHeartRateRow>('heartrate');

    test('rows become samples in the requested offset; timestamp_unix is used when present', () => {
      const samples = normalizeHeartRateRows(rows, 60);
      assert.equal(samples.length, 5);
      assert.deepEqual(samples[0], {
        timestamp: '2024-12-13T13:31:21.000000+01:00',
        bpm: 91,
        context: HeartRateContext.NOT_SET,
      });
      const withUnix = normalizeHeartRateRows(
        [{ ...(rows[0] as OuraHeartRateRow), timestamp_unix: Date.UTC(2024, 11, 13, 12, 31, 21, 500) }],
        0,
      );
      assert.equal(withUnix[0]?.timestamp, '2024-12-13T12:31:21.500000+00:00');
    });

    test('one Body per local day with HR summary, SpO2 and the profile measurement on the fetch day', () => {
      const now = Date.parse('2024-12-13T18:00:00Z');
      const spo2 = onDay(data<OuraDailySpo2>('daily_spo2')[0] as OuraDailySpo2, '2024-12-13');
      const records = ouraNormalizers.heartrate.normalize(
        { heartrate: rows, daily_spo2: [spo2], personal_info: sample<OuraPersonalInfo>('personal_info') },
        { userOffsetMinutes: 60, now },
      );
      assert.equal(records.length, 1);
      const [body] = records;
      assert.equal(body?.metadata.start_time, '2024-12-13T00:00:00.000000+01:00');
      assert.deepEqual(body?.heart_data?.heart_rate_data?.summary, {
        avg_hr_bpm: 93.4,
        min_hr_bpm: 91,
        max_hr_bpm: 96,
      });
      assert.equal(body?.heart_data?.heart_rate_data?.detailed?.hr_samples?.length, 5);
      assert.equal(body?.oxygen_data?.avg_saturation_percentage, 98.072);
      assert.deepEqual(body?.measurements_data?.measurements, [
        { measurement_time: '2024-12-13T19:00:00.000000+01:00', weight_kg: 90.2, height_cm: 180 },
      ]);
      assertValid(Body, records, 'body');
    });

    test('personal_info -> Athlete', () => {
      const records = ouraNormalizers.personal_info.normalize(
        { personal_info: sample<OuraPersonalInfo>('personal_info') },
        noOffset,
      );
      assert.deepEqual(records, [
        {
          age: 42,
          sex: 'male',
          email: 'foo@bar.ai',
          provider_user_id: '8b97e1b67-144-5e9a8c067-e62331-968-b',
        },
      ]);
      assertValid(Athlete, records, 'athlete');
    });
  },
);

describeWithShared('Oura session -> Activity', skip, () => {
  const session = data<OuraSession>('session')[0] as OuraSession;

  test('the recorded breathing session: type, bounds, manual upload, no heart data', () => {
    const [record] = ouraNormalizers.session.normalize({ session: [session] }, noOffset);
    assert.deepEqual(record?.metadata, {
      summary_id: '0daf01ce-ce56-4b7e-b573-2954c709741d',
      start_time: '2024-10-09T16:39:07.000000+02:00',
      end_time: '2024-10-09T16:43:44.000000+02:00',
      type: ActivityType.GUIDED_BREATHING,
      upload_type: UploadType.MANUAL,
      name: 'breathing',
      timestamp_localization: 1,
    });
    assert.equal(record?.heart_rate_data, null);
    assertValid(Activity, [record], 'session');
  });

  test('heart-rate and HRV series become samples with summaries; nulls are gaps', () => {
    const withHeart: OuraSession = {
      ...session,
      type: 'meditation',
      heart_rate: { interval: 5, items: [60, null, 64], timestamp: '2024-10-09T16:39:07.000+02:00' },
      heart_rate_variability: {
        interval: 5,
        items: [30, 40, 50],
        timestamp: '2024-10-09T16:39:07.000+02:00',
      },
    };
    const [record] = ouraNormalizers.session.normalize({ session: [withHeart] }, noOffset);
    assert.equal(record?.metadata.type, ActivityType.MEDITATION);
    assert.deepEqual(record?.heart_rate_data?.detailed?.hr_samples, [
      { timestamp: '2024-10-09T16:39:07.000000+02:00', bpm: 60 },
      { timestamp: '2024-10-09T16:39:17.000000+02:00', bpm: 64 },
    ]);
    assert.deepEqual(record?.heart_rate_data?.summary, {
      avg_hr_bpm: 62,
      max_hr_bpm: 64,
      min_hr_bpm: 60,
      avg_hrv_rmssd: 40,
    });
    assertValid(Activity, [record], 'session');
  });
});

test('the Oura table names a unified type and companions for every kind', () => {
  assert.deepEqual(
    Object.fromEntries(Object.entries(ouraNormalizers).map(([kind, row]) => [kind, row.unifiedType])),
    {
      workout: 'activity',
      session: 'activity',
      sleep: 'sleep',
      daily_activity: 'daily',
      heartrate: 'body',
      personal_info: 'athlete',
    },
  );
  assert.deepEqual(ouraNormalizers.sleep.companions, ['daily_sleep', 'daily_readiness', 'daily_spo2']);
});
