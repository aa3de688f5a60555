// What real recorded payloads break (issue 16, item 5), one class per describe, across the
// first six normalizers and the shared helpers: placeholders that are no measurement, null
// stream entries, missing UTC offsets, unknown sport names, maxima the summary omits, derivable
// totals and fields asked for, user-entered zeros, and payloads in no documented shape.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ActivityType } from '../../src/model/index.ts';
import type { ProviderHttp, ProviderRequest } from '../../src/provider-kit/api.ts';
import { NormalizationError, normalizeEach } from '../../src/provider-kit/normalize/errors.ts';
import { heartRate, positiveOrNull } from '../../src/provider-kit/normalize/measures.ts';
import type { NormalizeContext } from '../../src/provider-kit/normalize/normalize.ts';
import { activityTypeByParts, activityTypeOfName } from '../../src/provider-kit/normalize/sport-names.ts';
import { localTimeOffsetMinutes, zoneOffsetMinutes } from '../../src/provider-kit/normalize/time-zones.ts';
import { dexcomNormalizers } from '../../src/providers/dexcom/normalize/index.ts';
import { ouraNormalizers, type OuraSleepPeriod } from '../../src/providers/oura/normalize/index.ts';
import { type PolarExercise, polarNormalizers } from '../../src/providers/polar/normalize/index.ts';
import {
  parseStravaJson,
  type StravaActivity,
  stravaNormalizers,
} from '../../src/providers/strava/normalize/index.ts';
import {
  whoopNormalizers,
  type WhoopSleep,
  type WhoopWorkout,
} from '../../src/providers/whoop/normalize/index.ts';
import { withingsFetchers } from '../../src/providers/withings/data-source.ts';
import {
  type WithingsWorkoutsBody,
  withingsNormalizers,
} from '../../src/providers/withings/normalize/index.ts';
import {
  missingProviderSamples,
  readProviderSample,
  readProviderSampleText,
} from '../helpers/provider-samples.ts';
import { describeWithShared } from '../helpers/shared-reference.ts';

/**
 * Why the blocks that read the shared provider samples are skipped (undefined when present);
 * samples read at module level are read only when present (`undefined as never` otherwise).
 */
const skip = missingProviderSamples();

const context: NormalizeContext = { userOffsetMinutes: null };
const whoopWorkout = skip
  ? (undefined as never)
  : (readProviderSample<{ records: WhoopWorkout[] }>('whoop-workout_collection').records[0] as WhoopWorkout);
const whoopSleep = skip
  ? (undefined as never)
  : (readProviderSample<{ records: WhoopSleep[] }>('whoop-sleep_collection').records[0] as WhoopSleep);
const stravaDetail = skip
  ? (undefined as never)
  : (parseStravaJson(readProviderSampleText('strava-activity_detail')) as StravaActivity);
const polarExercise = skip
  ? (undefined as never)
  : (readProviderSample<PolarExercise[]>('polar-exercises_list')[0] as PolarExercise);
const ouraSleep = skip
  ? (undefined as never)
  : (readProviderSample<{ data: OuraSleepPeriod[] }>('oura-sleep').data[0] as OuraSleepPeriod);
const withingsWorkouts = skip
  ? (undefined as never)
  : readProviderSample<{ body: WithingsWorkoutsBody }>('withings-measurev2_getworkouts').body;
const withingsWorkout = skip
  ? (undefined as never)
  : (withingsWorkouts.series[0] as WithingsWorkoutsBody['series'][number]);

describeWithShared(
  'placeholders are no measurement: heart rates of 0 or 255 are null, no zones',
  skip,
  () => {
    test('the shared rule', () => {
      assert.equal(heartRate(0), null);
      assert.equal(heartRate(255), null);
      assert.equal(heartRate(-1), null);
      assert.equal(heartRate(Number.NaN), null);
      assert.equal(heartRate(undefined), null);
      assert.equal(heartRate(142), 142);
    });

    test('WHOOP: a workout recorded without heart rate', () => {
      const score = { ...whoopWorkout.score!, average_heart_rate: 0, max_heart_rate: 0 };
      const [record] = whoopNormalizers.workout.normalize({ workout: [{ ...whoopWorkout, score }] }, context);
      assert.equal(record?.heart_rate_data?.summary?.avg_hr_bpm, null);
      assert.equal(record?.heart_rate_data?.summary?.max_hr_bpm, null);
      assert.equal(record?.heart_rate_data?.summary?.hr_zone_data, null, 'no zones from a 0 bpm workout');
      const [measured] = whoopNormalizers.workout.normalize({ workout: [whoopWorkout] }, context);
      assert.ok((measured?.heart_rate_data?.summary?.hr_zone_data?.length ?? 0) > 0, 'zones from a real one');
    });

    test('Polar: an exercise without a sensor (0 bpm summary, zones listed)', () => {
      const exercise = { ...polarExercise, heart_rate: { average: 0, maximum: 0 } };
      const [record] = polarNormalizers.exercise.normalize({ exercise: [exercise] }, context);
      assert.equal(record?.heart_rate_data?.summary?.avg_hr_bpm, null);
      assert.equal(record?.heart_rate_data?.summary?.max_hr_bpm, null);
      assert.equal(record?.heart_rate_data?.summary?.hr_zone_data, null);
    });

    test('Withings: a workout whose hr_average is 0 keeps no zones', () => {
      const workout = {
        ...withingsWorkout,
        data: {
          hr_average: 0,
          hr_min: 0,
          hr_max: 255,
          hr_zone_0: 600,
          hr_zone_1: 0,
          hr_zone_2: 0,
          hr_zone_3: 0,
        },
      };
      const [record] = withingsNormalizers.workouts.normalize({ workouts: [{ series: [workout] }] }, context);
      const summary = record?.heart_rate_data?.summary;
      assert.deepEqual([summary?.avg_hr_bpm, summary?.min_hr_bpm, summary?.max_hr_bpm], [null, null, null]);
      assert.equal(summary?.hr_zone_data, null);
    });

    test('Oura: a nap without a heart-rate series (0 bpm summary, 0 and 255 items)', () => {
      const nap: OuraSleepPeriod = {
        ...ouraSleep,
        type: 'sleep',
        average_heart_rate: 0,
        lowest_heart_rate: 255,
        heart_rate: { interval: 300, items: [0, 255, null], timestamp: ouraSleep.bedtime_start },
      };
      const [record] = ouraNormalizers.sleep.normalize({ sleep: [nap] }, context);
      const heart = record?.heart_rate_data;
      assert.equal(heart?.summary?.avg_hr_bpm, null);
      assert.equal(heart?.summary?.min_hr_bpm, null);
      assert.equal(heart?.summary?.resting_hr_bpm, null);
      assert.deepEqual(heart?.detailed?.hr_samples, []);
    });

    test('Strava: 0 and 255 in the heart-rate stream are skipped, and the maximum ignores them', () => {
      const activity = { ...stravaDetail, max_heartrate: null, average_heartrate: 0 };
      const [record] = stravaNormalizers.activity.normalize(
        { activity, streams: { time: { data: [0, 1, 2, 3] }, heartrate: { data: [0, 140, 255, 150] } } },
        context,
      );
      assert.deepEqual(
        record?.heart_rate_data?.detailed?.hr_samples?.map((sample) => sample.bpm),
        [140, 150],
      );
      assert.equal(record?.heart_rate_data?.summary?.max_hr_bpm, 150);
      assert.equal(record?.heart_rate_data?.summary?.avg_hr_bpm, null);
    });

    test('Dexcom: a 0 mg/dL reading is no reading', () => {
      const egv = {
        recordId: 'r1',
        systemTime: '2024-03-01T08:00:00',
        displayTime: '2024-03-01T09:00:00',
        transmitterId: 't',
        value: 0,
        unit: 'mg/dL',
        status: null,
        trend: 'flat',
      };
      const [record] = dexcomNormalizers.egvs.normalize(
        {
          egvs: [
            egv,
            {
              ...egv,
              recordId: 'r2',
              systemTime: '2024-03-01T08:05:00',
              displayTime: '2024-03-01T09:05:00',
              value: 110,
            },
          ],
        } as never,
        context,
      );
      const readings = record?.glucose_data?.detailed_blood_glucose_samples ?? [];
      assert.deepEqual(
        readings.map(
          (reading: { blood_glucose_mg_per_dL?: number | null }) => reading.blood_glucose_mg_per_dL,
        ),
        [null, 110],
        'the 0 is kept as a time without a value',
      );
    });
  },
);

describeWithShared(
  'null entries in sample streams are skipped, never stamped at the start time',
  skip,
  () => {
    test('Strava: a null in the time stream drops that index from every series', () => {
      const [record] = stravaNormalizers.activity.normalize(
        {
          activity: stravaDetail,
          streams: {
            time: { data: [0, null as unknown as number, 2] },
            heartrate: { data: [120, 130, 140] },
            watts: { data: [200, 210, null] },
            latlng: {
              data: [
                [1, 2],
                [1, 2.1],
                [1, 2.2],
              ],
            },
          },
        },
        context,
      );
      const start = record?.metadata.start_time;
      const hr = record?.heart_rate_data?.detailed?.hr_samples ?? [];
      assert.deepEqual(
        hr.map((sample) => sample.bpm),
        [120, 140],
      );
      assert.equal(hr.filter((sample) => sample.timestamp === start).length, 1, 'only the real first sample');
      assert.deepEqual(
        record?.power_data?.power_samples?.map((sample) => sample.watts),
        [200],
      );
      assert.equal(record?.position_data?.position_samples?.length, 2);
    });
  },
);

describeWithShared(
  'missing UTC offsets come from the provider’s zone and local times, never +00:00',
  skip,
  () => {
    test('the shared zone helpers', () => {
      assert.equal(zoneOffsetMinutes('Europe/Paris', Date.parse('2024-07-01T12:00:00Z')), 120);
      assert.equal(zoneOffsetMinutes('Europe/Paris', Date.parse('2024-01-01T12:00:00Z')), 60);
      assert.equal(zoneOffsetMinutes('Not/AZone', 0), null);
      assert.equal(localTimeOffsetMinutes('America/New_York', '2024-03-10 12:00:00'), -240);
      assert.equal(localTimeOffsetMinutes('America/New_York', '2024-03-09 12:00:00'), -300);
      assert.equal(localTimeOffsetMinutes('Europe/Paris', 'not a time'), null);
    });

    test('Strava: an activity without utc_offset is placed by its `timezone`', () => {
      const activity = {
        ...stravaDetail,
        utc_offset: null,
        timezone: '(GMT+01:00) Europe/Paris',
        start_date: '2024-07-01T06:00:00Z',
      };
      const [record] = stravaNormalizers.activity.normalize({ activity }, context);
      assert.equal(record?.metadata.start_time, '2024-07-01T08:00:00.000000+02:00');
    });
  },
);

describeWithShared('unknown sport names are mapped by their parts before OTHER', skip, () => {
  test('shared names', () => {
    assert.equal(activityTypeOfName('weightlifting_msk'), ActivityType.WEIGHTLIFTING);
    assert.equal(activityTypeOfName('IndoorRowingCustom'), ActivityType.ROWING_MACHINE);
    assert.equal(activityTypeOfName('trail-running (race)'), ActivityType.TRAIL_RUNNING);
    assert.equal(activityTypeOfName('xyz_other'), ActivityType.OTHER);
    assert.equal(activityTypeByParts('nothing known here'), null);
  });

  test('WHOOP and Strava names no table lists', () => {
    const [whoop] = whoopNormalizers.workout.normalize(
      { workout: [{ ...whoopWorkout, sport_name: 'weightlifting_msk', sport_id: 9999 }] },
      context,
    );
    assert.equal(whoop?.metadata.type, ActivityType.WEIGHTLIFTING);
    const [strava] = stravaNormalizers.activity.normalize(
      { activity: { ...stravaDetail, sport_type: 'NightTrailRun', trainer: false } },
      context,
    );
    assert.equal(strava?.metadata.type, ActivityType.TRAIL_RUNNING);
  });
});

describeWithShared('maxima omitted by a summary come from the streams, for every metric', skip, () => {
  test('Strava: heart rate, power, speed and cadence', () => {
    const activity = { ...stravaDetail, max_heartrate: null, max_watts: null, max_speed: null };
    const [record] = stravaNormalizers.activity.normalize(
      {
        activity,
        streams: {
          time: { data: [0, 1, 2] },
          heartrate: { data: [120, 171, 150] },
          watts: { data: [200, 410, 300] },
          velocity_smooth: { data: [3, 5.5, 4] },
          cadence: { data: [80, 96, 90] },
        },
      },
      context,
    );
    assert.equal(record?.heart_rate_data?.summary?.max_hr_bpm, 171);
    assert.equal(record?.power_data?.max_watts, 410);
    assert.equal(record?.movement_data?.max_speed_meters_per_second, 5.5);
    assert.equal(record?.movement_data?.max_cadence_rpm, 96);
  });
});

describeWithShared(
  'derivable totals are filled, and fields given only on request are asked for',
  skip,
  () => {
    test('WHOOP, Oura and Withings: time in bed from start and end', () => {
      const [whoop] = whoopNormalizers.sleep.normalize(
        { sleep: [{ ...whoopSleep, score: null, score_state: 'UNSCORABLE' }] },
        context,
      );
      assert.equal(
        whoop?.sleep_durations_data?.other?.duration_in_bed_seconds,
        (Date.parse(whoopSleep.end) - Date.parse(whoopSleep.start)) / 1000,
      );
      const { time_in_bed: _omitted, ...withoutInBed } = ouraSleep;
      const [oura] = ouraNormalizers.sleep.normalize({ sleep: [withoutInBed as OuraSleepPeriod] }, context);
      assert.equal(
        oura?.sleep_durations_data?.other?.duration_in_bed_seconds,
        (Date.parse(ouraSleep.bedtime_end) - Date.parse(ouraSleep.bedtime_start)) / 1000,
      );
      const night = {
        id: 1,
        startdate: 1_700_000_000,
        enddate: 1_700_028_800,
        timezone: 'Europe/Paris',
        data: {},
      };
      const [withings] = withingsNormalizers.sleep_summary.normalize(
        { sleep_summary: [{ series: [night] }], sleep: [] } as never,
        context,
      );
      assert.equal(withings?.sleep_durations_data?.other?.duration_in_bed_seconds, 28_800);
    });

    test('Withings: getworkouts, getactivity and getsummary name their data_fields', async () => {
      const asked: ProviderRequest[] = [];
      const http: ProviderHttp = {
        async json<T>(request: ProviderRequest) {
          asked.push(request);
          return (
            request.query?.action === 'getintradayactivity'
              ? { series: {} }
              : { series: [], activities: [], more: false }
          ) as T;
        },
        async bytes() {
          return null;
        },
        async items() {
          return null;
        },
        client: null,
      };
      const args = {
        http,
        user: { id: 'u', providerUserId: '1', scopes: null },
        startDate: '2024-03-01',
        endDate: '2024-03-02',
        now: new Date('2024-03-05T00:00:00Z'),
      };
      for (const fetch of [withingsFetchers.activity, withingsFetchers.daily, withingsFetchers.sleep]) {
        for await (const _page of fetch(args)) {
          // drain
        }
      }
      const fieldsOf = (action: string) =>
        String(asked.find((request) => request.query?.action === action)?.query?.data_fields ?? '').split(
          ',',
        );
      for (const field of ['hr_average', 'hr_zone_0', 'manual_distance', 'pool_laps', 'spo2_average'])
        assert.ok(fieldsOf('getworkouts').includes(field), `getworkouts asks for ${field}`);
      for (const field of ['hr_average', 'hr_zone_3', 'steps'])
        assert.ok(fieldsOf('getactivity').includes(field), `getactivity asks for ${field}`);
      for (const field of ['total_timeinbed', 'hr_average', 'rr_average', 'sleep_score'])
        assert.ok(fieldsOf('getsummary').includes(field), `getsummary asks for ${field}`);
    });
  },
);

describeWithShared('user-entered zeros are not measurements', skip, () => {
  test('a swim’s manual_distance: 0 is no distance; a measured distance stands', () => {
    assert.equal(positiveOrNull(0), null);
    const swim = {
      ...withingsWorkout,
      category: 7,
      data: { manual_distance: 0, manual_calories: 0, pool_laps: 20 },
    };
    const [record] = withingsNormalizers.workouts.normalize({ workouts: [{ series: [swim] }] }, context);
    assert.equal(record?.distance_data?.summary?.distance_meters, null);
    assert.equal(record?.calories_data?.net_activity_calories, null);
    const measured = { ...swim, data: { distance: 1000, manual_distance: 0 } };
    const [kept] = withingsNormalizers.workouts.normalize({ workouts: [{ series: [measured] }] }, context);
    assert.equal(kept?.distance_data?.summary?.distance_meters, 1000);
  });
});

describeWithShared('user-entered zeros: Strava manual entries, Polar exercises typed into Flow', skip, () => {
  test('0 m typed by hand is no distance', () => {
    const [strava] = stravaNormalizers.activity.normalize(
      { activity: { ...stravaDetail, manual: true, distance: 0 } },
      context,
    );
    assert.equal(strava?.distance_data?.summary?.distance_meters, null);
    const [recorded] = stravaNormalizers.activity.normalize(
      { activity: { ...stravaDetail, manual: false, distance: 0 } },
      context,
    );
    assert.equal(recorded?.distance_data?.summary?.distance_meters, 0, 'a recorded 0 stands');
    const { device: _device, ...typed } = polarExercise;
    const [polar] = polarNormalizers.exercise.normalize(
      { exercise: [{ ...typed, distance: 0 } as PolarExercise] },
      context,
    );
    assert.equal(polar?.distance_data?.summary?.distance_meters, null);
  });
});

describe('payloads in no documented shape give a clean normalization error, never a TypeError', () => {
  test('every row of the six tables', () => {
    const tables = {
      oura: ouraNormalizers,
      strava: stravaNormalizers,
      whoop: whoopNormalizers,
      polar: polarNormalizers,
      withings: withingsNormalizers,
      dexcom: dexcomNormalizers,
    } as Record<
      string,
      Record<string, { normalize(payload: unknown, context: NormalizeContext): unknown[] }>
    >;
    for (const [provider, table] of Object.entries(tables)) {
      for (const [kind, row] of Object.entries(table)) {
        for (const payload of [{ [kind]: 'not a list' }, { [kind]: [42] }, 7]) {
          try {
            row.normalize(payload, context);
          } catch (error) {
            assert.ok(
              error instanceof NormalizationError,
              `${provider}.${kind} threw ${(error as Error).name}: ${(error as Error).message}`,
            );
            assert.match(error.message, /not in the documented shape|expected/);
          }
        }
      }
    }
  });

  test('normalizeEach keeps the good items and names the bad one', () => {
    const { records, rejected } = normalizeEach(
      [{ n: 1 }, null, { n: 3 }] as ({ n: number } | null)[],
      (_item, index) => `item ${index}`,
      (item) => (item as { n: number }).n * 2,
    );
    assert.deepEqual(records, [2, 6]);
    assert.equal(rejected.length, 1);
    assert.equal(rejected[0]?.item, 'item 1');
    assert.match(rejected[0]?.problem ?? '', /not in the documented shape/);
  });
});
