// Daily: one day's activity totals (docs/wire-contract.md#data-model). Identity: start_time + end_time. A
// cumulative superset: providers re-send it during the day and the latest copy wins.
import Type, { type Static } from 'typebox';
import { ComputedDailyScores } from './computed-scores.ts';
import { StressLevelSchema, UploadTypeSchema } from './enums.ts';
import { BodyBatterySample, StressSample, TagEntry } from './samples.ts';
import {
  Nullable,
  NullableArray,
  NullableDateTime,
  NullableNumber,
  NullableString,
} from './schema-helpers.ts';
import {
  ActiveDurationsData,
  CaloriesData,
  ContributorMap,
  DeviceData,
  DistanceDataDetailed,
  dayBounds,
  ElevationData,
  HeartRateData,
  MetData,
  OxygenData,
  StrainData,
  SwimmingData,
  timestampLocalization,
} from './shared.ts';

export const DailyMetadata = Type.Object(
  { ...dayBounds, upload_type: UploadTypeSchema, timestamp_localization: timestampLocalization },
  { title: 'DailyMetadata' },
);

/** Unlike Activity, the day totals sit flat on `distance_data`, not under `summary`. */
export const DailyDistanceData = Type.Object(
  {
    distance_meters: NullableNumber(),
    steps: NullableNumber(),
    floors_climbed: NullableNumber(),
    elevation: Nullable(ElevationData),
    swimming: Nullable(SwimmingData),
    detailed: Nullable(DistanceDataDetailed),
  },
  { title: 'DailyDistanceData' },
);

export const StressData = Type.Object(
  {
    avg_stress_level: NullableNumber(),
    max_stress_level: NullableNumber(),
    activity_stress_duration_seconds: NullableNumber(),
    low_stress_duration_seconds: NullableNumber(),
    medium_stress_duration_seconds: NullableNumber(),
    high_stress_duration_seconds: NullableNumber(),
    rest_stress_duration_seconds: NullableNumber(),
    stress_duration_seconds: NullableNumber(),
    stress_rating: Nullable(StressLevelSchema),
    samples: NullableArray(StressSample),
    body_battery_samples: NullableArray(BodyBatterySample),
  },
  { title: 'StressData' },
);

export const DailyDataEnrichment = Type.Object(
  {
    cardiovascular_score: NullableNumber(),
    cardiovascular_contributors: ContributorMap(),
    immune_index: NullableNumber(),
    immune_contributors: ContributorMap(),
    readiness_score: NullableNumber(),
    readiness_contributors: ContributorMap(),
    respiratory_score: NullableNumber(),
    respiratory_contributors: ContributorMap(),
    total_stress_score: NullableNumber(),
    stress_contributors: ContributorMap(),
    start_time: NullableDateTime(),
    resilience_score: NullableNumber(),
    resilience_contributors: ContributorMap(),
    strain_index: NullableNumber(),
    strain_traffic_light: NullableString(),
    strain_contributors: ContributorMap(),
    total_stress_score_v2: NullableNumber(),
    total_stress_score_v2_contributors: ContributorMap(),
    tributary: Nullable(ComputedDailyScores),
  },
  { title: 'DailyDataEnrichment' },
);

export const Daily = Type.Object(
  {
    metadata: DailyMetadata,
    active_durations_data: Nullable(ActiveDurationsData),
    calories_data: Nullable(CaloriesData),
    distance_data: Nullable(DailyDistanceData),
    heart_rate_data: Nullable(HeartRateData),
    MET_data: Nullable(MetData),
    oxygen_data: Nullable(OxygenData),
    scores: Nullable(
      Type.Object(
        { activity: NullableNumber(), recovery: NullableNumber(), sleep: NullableNumber() },
        { title: 'DailyScores' },
      ),
    ),
    strain_data: Nullable(StrainData),
    stress_data: Nullable(StressData),
    tag_data: Nullable(Type.Object({ tags: NullableArray(TagEntry) }, { title: 'TagData' })),
    data_enrichment: Nullable(DailyDataEnrichment),
    device_data: Nullable(DeviceData),
  },
  {
    $id: 'Daily',
    title: 'Daily',
    description: 'One day of activity totals. Identity: start_time + end_time.',
  },
);

export type Daily = Static<typeof Daily>;
