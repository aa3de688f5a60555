import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { Activity, ActivityType, Athlete, HeartRateZone, UploadType } from '../../src/model/index.ts';
import type { NormalizeContext } from '../../src/provider-kit/normalize/normalize.ts';
import { KJ_PER_KCAL } from '../../src/provider-kit/normalize/units.ts';
import {
  activityTypeOf,
  parseStravaJson,
  type StravaActivity,
  type StravaActivityZone,
  type StravaAthlete,
  type StravaStreamList,
  type StravaStreamSet,
  type StravaZones,
  stravaNormalizers,
} from '../../src/providers/strava/normalize/index.ts';
import { missingProviderSamples, readProviderSampleText } from '../helpers/provider-samples.ts';
import { describeWithShared } from '../helpers/shared-reference.ts';

/**
 * Why the blocks that read the shared provider samples are skipped (undefined when present);
 * samples read at module level are read only when present (`undefined as never` otherwise).
 */
const skip = missingProviderSamples();

const text = (name: string) => readProviderSampleText(`strava-${name}`);
const sample = <T>(name: string): T => parseStravaJson(text(name)) as T;

function assertValid(schema: TSchema, records: readonly unknown[], label: string): void {
  for (const [index, record] of records.entries()) {
    if (!Value.Check(schema, record)) {
      const errors = [...Value.Errors(schema, record)].slice(0, 5);
      assert.fail(`${label}[${index}] is invalid: ${JSON.stringify(errors, null, 2)}`);
    }
  }
}

const context: NormalizeContext = { userOffsetMinutes: null };
const detail = skip ? (undefined as never) : sample<StravaActivity>('activity_detail');
const normalize = (payload: Parameters<typeof stravaNormalizers.activity.normalize>[0], ctx = context) => {
  const [record] = stravaNormalizers.activity.normalize(payload, ctx);
  assert.ok(record);
  assertValid(Activity, [record], 'activity');
  return record;
};

/** Ten one-second points of every stream the normalizer reads. */
const streams: StravaStreamSet = {
  time: { data: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] },
  distance: { data: [0, 3, 6, 9, 12, 15, 18, 21, 24, 27] },
  latlng: { data: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((index) => [37.83 + index / 1e4, -122.26]) },
  altitude: { data: [17, 17.2, 17.4, 17.6, 17.8, 18, 18.2, 18.4, 18.6, 18.8] },
  velocity_smooth: { data: [0, 3, 3, 3.1, 3.2, 3, 2.9, 3, 3, 3] },
  heartrate: { data: [100, 110, 122, 123, 150, 152, 153, 170, 185, 190] },
  cadence: { data: [0, 80, 82, 84, 86, 88, 90, 92, 94, 96] },
  watts: { data: [0, 200, null, 220, 230, 240, 250, 260, 270, 280] },
  temp: { data: [14, 14, 14, 14, 14, 14, 14, 14, 14, 14] },
};

describeWithShared('Strava athlete -> Athlete', skip, () => {
  test('fields, sex words, creation date in wire form, and an int64 id kept exact', () => {
    const records = stravaNormalizers.athlete.normalize(
      { athlete: sample<StravaAthlete>('athlete') },
      context,
    );
    assert.deepEqual(records, [
      {
        first_name: 'Marianne',
        last_name: 'Teutenberg',
        sex: 'female',
        city: 'San Francisco',
        state: 'CA',
        country: 'US',
        joined_provider: '2017-11-14T02:30:05.000000+00:00',
        account_creation_date: '2017-11-14T02:30:05.000000+00:00',
        provider_user_id: '1234567890987654321',
      },
    ]);
    // Plain JSON.parse would have rounded the id.
    assert.notEqual(String((JSON.parse(text('athlete')) as { id: number }).id), '1234567890987654321');
    assertValid(Athlete, records, 'athlete');
  });
});

describeWithShared('Strava activity detail -> Activity', skip, () => {
  const record = normalize({ activity: detail });

  test('metadata: exact id, local times from utc_offset, sport_type code, upload type', () => {
    assert.deepEqual(record.metadata, {
      summary_id: '12345678987654321',
      start_time: '2018-02-16T06:52:54.000000-08:00',
      end_time: '2018-02-16T08:06:24.000000-08:00',
      type: ActivityType.MOUNTAIN_BIKING,
      upload_type: UploadType.AUTOMATIC,
      name: 'Happy Friday',
      city: null,
      state: null,
      country: null,
      timestamp_localization: 1,
    });
  });

  test('durations (s), energy (kcal and kJ), work (kJ), distance and elevation (m), device', () => {
    assert.deepEqual(record.active_durations_data, { activity_seconds: 4207, rest_seconds: 203 });
    assert.deepEqual(record.calories_data, { total_burned_calories: 870.2 });
    assert.equal(record.energy_data?.energy_kilojoules, 870.2 * KJ_PER_KCAL);
    assert.deepEqual(record.work_data, { work_kilojoules: 780.5 });
    assert.deepEqual(record.distance_data?.summary, {
      distance_meters: 28099,
      elevation: { gain_actual_meters: 516, max_meters: 446.6, min_meters: 17.2 },
    });
    assert.deepEqual(record.device_data, { name: 'Garmin Edge 1030' });
  });

  test('speed (m/s), pace (min/km), cadence, power, polyline and positions', () => {
    const movement = record.movement_data;
    assert.equal(movement?.avg_speed_meters_per_second, 6.679);
    assert.equal(movement?.max_speed_meters_per_second, 18.5);
    assert.equal(movement?.avg_pace_minutes_per_kilometer, 1000 / 6.679 / 60);
    assert.equal(movement?.max_pace_minutes_per_kilometer, 1000 / 18.5 / 60);
    assert.equal(movement?.avg_cadence_rpm, 78.5);
    assert.deepEqual(
      { avg: record.power_data?.avg_watts, max: record.power_data?.max_watts },
      { avg: 185.5, max: 743 },
    );
    assert.equal(
      record.polyline_map_data?.summary_polyline,
      (detail.map as { summary_polyline: string }).summary_polyline,
    );
    assert.deepEqual(record.position_data?.start_pos_lat_lng_deg, [37.83, -122.26]);
    assert.deepEqual(record.position_data?.end_pos_lat_lng_deg, [37.83, -122.26]);
  });

  test('laps from the detail: local bounds, distance, speed, power, moving time', () => {
    assert.deepEqual(record.lap_data?.laps, [
      {
        start_time: '2018-02-16T06:52:54.000000-08:00',
        end_time: '2018-02-16T07:19:07.000000-08:00',
        distance_meters: 8046.72,
        avg_speed_meters_per_second: 5.12,
        avg_hr_bpm: null,
        avg_watts: 233.1,
        active_duration_seconds: 1569,
      },
    ]);
    const fromEndpoint = normalize({ activity: detail, laps: sample('activity_laps') });
    assert.equal(fromEndpoint.lap_data?.laps?.[0]?.start_time, '2018-02-08T06:13:37.000000-08:00');
    assert.equal(fromEndpoint.lap_data?.laps?.[0]?.avg_watts, 228.2);
  });
});

describeWithShared('Strava summary activities', skip, () => {
  const [first] = sample<StravaActivity[]>('athlete_activities');
  const record = normalize({ activity: first as StravaActivity });

  test('DST offset from utc_offset, heart rate, location, absent map and positions', () => {
    assert.equal(record.metadata.start_time, '2018-05-02T05:15:09.000000-07:00');
    assert.equal(record.metadata.end_time, '2018-05-02T06:30:09.000000-07:00');
    assert.equal(record.metadata.country, 'United States');
    assert.deepEqual(
      { avg: record.heart_rate_data?.summary?.avg_hr_bpm, max: record.heart_rate_data?.summary?.max_hr_bpm },
      { avg: 140.3, max: 178 },
    );
    assert.equal(record.polyline_map_data, null);
    assert.equal(record.position_data?.start_pos_lat_lng_deg, null);
    assert.equal(record.calories_data?.total_burned_calories, null);
    assert.equal(record.lap_data, null);
  });

  test('sport types map to ActivityType codes; the trainer flag refines rides and runs', () => {
    assert.equal(record.metadata.type, ActivityType.MOUNTAIN_BIKING);
    assert.equal(activityTypeOf('Run', false), ActivityType.RUNNING);
    assert.equal(activityTypeOf('TrailRun', false), ActivityType.TRAIL_RUNNING);
    assert.equal(activityTypeOf('Ride', true), ActivityType.STATIONARY_BIKING);
    assert.equal(activityTypeOf('Run', true), ActivityType.TREADMILL_RUNNING);
    assert.equal(activityTypeOf('VirtualRide', true), ActivityType.STATIONARY_BIKING);
    assert.equal(activityTypeOf('GravelRide', false), ActivityType.GRAVEL_CYCLING);
    assert.equal(activityTypeOf('EMountainBikeRide', false), ActivityType.E_MOUNTAIN_BIKING);
    assert.equal(activityTypeOf('WeightTraining', false), ActivityType.STRENGTH_TRAINING);
    assert.equal(activityTypeOf('Pickleball', false), ActivityType.OTHER);
    assert.equal(activityTypeOf('SomethingNew', false), ActivityType.OTHER);
    const legacy = normalize({ activity: { ...(first as StravaActivity), sport_type: null, type: 'Swim' } });
    assert.equal(legacy.metadata.type, ActivityType.SWIMMING);
    const manual = normalize({ activity: { ...(first as StravaActivity), manual: true } });
    assert.equal(manual.metadata.upload_type, UploadType.MANUAL);
  });
});

describeWithShared('Strava streams -> samples timestamped from start_date + time', skip, () => {
  test('the recorded stream set has no time stream, so nothing can be placed in time', () => {
    const record = normalize({ activity: detail, streams: sample<StravaStreamList>('activity_streams') });
    assert.deepEqual(record.distance_data?.detailed?.distance_samples, []);
  });

  test('with its time stream the recorded distances become 12 cumulative samples', () => {
    const recorded = sample<StravaStreamList>('activity_streams');
    const record = normalize({
      activity: detail,
      streams: [...recorded, { type: 'time', data: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] }],
    });
    const samples = record.distance_data?.detailed?.distance_samples ?? [];
    assert.equal(samples.length, 12);
    assert.deepEqual(samples[11], {
      timestamp: '2018-02-16T06:53:05.000000-08:00',
      distance_meters: 49.5,
      timer_duration_seconds: 11,
    });
  });

  test('every stream lands in its slot with shared timestamps; null watts are gaps', () => {
    const record = normalize({ activity: detail, streams });
    const heart = record.heart_rate_data?.detailed?.hr_samples ?? [];
    assert.equal(heart.length, 10);
    assert.deepEqual(heart[3], {
      timestamp: '2018-02-16T06:52:57.000000-08:00',
      bpm: 123,
      timer_duration_seconds: 3,
    });
    assert.equal(record.movement_data?.speed_samples?.[4]?.speed_meters_per_second, 3.2);
    assert.equal(record.movement_data?.cadence_samples?.[9]?.cadence_rpm, 96);
    assert.equal(record.movement_data?.max_cadence_rpm, 96);
    assert.equal(record.power_data?.power_samples?.length, 9);
    assert.deepEqual(record.position_data?.position_samples?.[1], {
      timestamp: '2018-02-16T06:52:55.000000-08:00',
      coords_lat_lng_deg: [37.8301, -122.26],
      timer_duration_seconds: 1,
    });
    assert.equal(record.distance_data?.detailed?.elevation_samples?.[5]?.elev_meters, 18);
    // The array form (no key_by_type) gives the same record.
    const asList = Object.entries(streams).map(([type, stream]) => ({
      type,
      ...stream,
    })) as unknown as StravaStreamList;
    assert.deepEqual(normalize({ activity: detail, streams: asList }), record);
  });
});

describeWithShared('Strava zones -> hr_zone_data', skip, () => {
  const athleteZones: StravaZones = {
    heart_rate: {
      custom_zones: false,
      zones: [
        { min: 0, max: 123 },
        { min: 123, max: 153 },
        { min: 153, max: 169 },
        { min: 169, max: 184 },
        { min: 184, max: -1 },
      ],
    },
  };

  test('athlete zones applied to the HR stream: seconds per zone, Strava Z1-Z5 as zones 1-5', () => {
    const record = normalize({ activity: detail, streams, athlete_zones: athleteZones });
    const zones = record.heart_rate_data?.summary?.hr_zone_data ?? [];
    assert.deepEqual(
      zones.map((zone) => [zone.zone, zone.duration_seconds, zone.name]),
      [
        [HeartRateZone.ZONE_1, 3, 'Z1 (0-123 bpm)'],
        [HeartRateZone.ZONE_2, 3, 'Z2 (123-153 bpm)'],
        [HeartRateZone.ZONE_3, 1, 'Z3 (153-169 bpm)'],
        [HeartRateZone.ZONE_4, 1, 'Z4 (169-184 bpm)'],
        [HeartRateZone.ZONE_5, 1, 'Z5 (184+ bpm)'],
      ],
    );
    assert.equal(zones[0]?.start_percentage, null);
  });

  test('a known max HR turns bpm bounds into percentages', () => {
    const record = normalize(
      { activity: detail, streams, athlete_zones: athleteZones },
      { userOffsetMinutes: null, maxHeartRate: 200 },
    );
    const zones = record.heart_rate_data?.summary?.hr_zone_data ?? [];
    assert.deepEqual([zones[1]?.start_percentage, zones[1]?.end_percentage], [61.5, 76.5]);
    assert.equal(zones[4]?.end_percentage, null);
    assert.equal(record.heart_rate_data?.summary?.user_max_hr_bpm, 200);
  });

  test('activity zones win; the recorded zones example (power) has no heart-rate slot', () => {
    const heartZones: StravaActivityZone[] = [
      {
        type: 'heartrate',
        distribution_buckets:
          athleteZones.heart_rate?.zones?.map((zone, index) => ({ ...zone, time: index * 60 })) ?? [],
      },
    ];
    const record = normalize({
      activity: detail,
      streams,
      athlete_zones: athleteZones,
      activity_zones: heartZones,
    });
    assert.deepEqual(
      record.heart_rate_data?.summary?.hr_zone_data?.map((zone) => zone.duration_seconds),
      [0, 60, 120, 180, 240],
    );
    const power = normalize({
      activity: detail,
      activity_zones: sample<StravaActivityZone[]>('athlete_zones'),
    });
    assert.equal(power.heart_rate_data?.summary?.hr_zone_data, null);
  });
});

test('the Strava table names a unified type and companions for every kind', () => {
  assert.equal(stravaNormalizers.activity.unifiedType, 'activity');
  assert.equal(stravaNormalizers.athlete.unifiedType, 'athlete');
  assert.deepEqual(stravaNormalizers.activity.companions, [
    'streams',
    'laps',
    'activity_zones',
    'athlete_zones',
  ]);
});
