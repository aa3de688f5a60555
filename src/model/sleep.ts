// Sleep: one sleep session (docs/wire-contract.md#data-model). Identity: `metadata.summary_id`.
import Type, { type Static } from 'typebox';
import { ComputedSleepScores } from './computed-scores.ts';
import { RecoveryLevelSchema, SleepUploadTypeSchema } from './enums.ts';
import { BreathSample, OxygenSaturationSample, SleepHypnogramSample, SnoringSample } from './samples.ts';
import {
  DateTimeText,
  Nullable,
  NullableArray,
  NullableBoolean,
  NullableDateTime,
  NullableNumber,
  NullableString,
} from './schema-helpers.ts';
import { ContributorMap, DeviceData, HeartRateData, timestampLocalization } from './shared.ts';

export const SleepMetadata = Type.Object(
  {
    start_time: DateTimeText(),
    end_time: DateTimeText(),
    upload_type: SleepUploadTypeSchema,
    is_nap: NullableBoolean(),
    summary_id: NullableString(),
    timestamp_localization: timestampLocalization,
  },
  { title: 'SleepMetadata' },
);

export const AsleepDurations = Type.Object(
  {
    duration_asleep_state_seconds: NullableNumber(),
    duration_deep_sleep_state_seconds: NullableNumber(),
    duration_light_sleep_state_seconds: NullableNumber(),
    duration_REM_sleep_state_seconds: NullableNumber(),
    num_REM_events: NullableNumber(),
  },
  { title: 'AsleepDurations' },
);

export const AwakeDurations = Type.Object(
  {
    duration_awake_state_seconds: NullableNumber(),
    duration_long_interruption_seconds: NullableNumber({ description: 'interruptions longer than 90 s' }),
    duration_short_interruption_seconds: NullableNumber({ description: 'interruptions shorter than 90 s' }),
    num_out_of_bed_events: NullableNumber(),
    num_wakeup_events: NullableNumber(),
    sleep_latency_seconds: NullableNumber(),
    wake_up_latency_seconds: NullableNumber(),
  },
  { title: 'AwakeDurations' },
);

export const SleepDurationsData = Type.Object(
  {
    asleep: Nullable(AsleepDurations),
    awake: Nullable(AwakeDurations),
    other: Nullable(
      Type.Object(
        { duration_in_bed_seconds: NullableNumber(), duration_unmeasurable_sleep_seconds: NullableNumber() },
        { title: 'OtherSleepDurations' },
      ),
    ),
    hypnogram_samples: NullableArray(SleepHypnogramSample),
    sleep_efficiency: NullableNumber({ description: 'percent' }),
  },
  { title: 'SleepDurationsData' },
);

const window = { start_time: NullableDateTime(), end_time: NullableDateTime() };

export const RespirationData = Type.Object(
  {
    breaths_data: Nullable(
      Type.Object(
        {
          avg_breaths_per_min: NullableNumber(),
          max_breaths_per_min: NullableNumber(),
          min_breaths_per_min: NullableNumber(),
          on_demand_reading: NullableBoolean(),
          samples: NullableArray(BreathSample),
          ...window,
        },
        { title: 'BreathsData' },
      ),
    ),
    oxygen_saturation_data: Nullable(
      Type.Object(
        {
          avg_saturation_percentage: NullableNumber(),
          samples: NullableArray(OxygenSaturationSample),
          ...window,
        },
        { title: 'OxygenSaturationData' },
      ),
    ),
    snoring_data: Nullable(
      Type.Object(
        {
          num_snoring_events: NullableNumber(),
          total_snoring_duration_seconds: NullableNumber(),
          samples: NullableArray(SnoringSample),
          ...window,
        },
        { title: 'SnoringData' },
      ),
    ),
  },
  { title: 'RespirationData' },
);

/** The SDK names the score `sleep_score`, the docs and newer schema `sleep`: both are kept. */
export const SleepScores = Type.Object(
  { sleep: NullableNumber(), sleep_score: NullableNumber() },
  { title: 'SleepScores' },
);

export const SleepDataEnrichment = Type.Object(
  {
    sleep_score: NullableNumber(),
    sleep_contributors: ContributorMap(),
    readiness_score: NullableNumber(),
    readiness_contributors: ContributorMap(),
    sleep_score_v2: NullableNumber(),
    sleep_score_v2_contributors: ContributorMap(),
    respiratory_score_v2: NullableNumber(),
    respiratory_score_v2_contributors: ContributorMap(),
    tributary: Nullable(ComputedSleepScores),
  },
  { title: 'SleepDataEnrichment' },
);

export const Sleep = Type.Object(
  {
    metadata: SleepMetadata,
    sleep_durations_data: Nullable(SleepDurationsData),
    heart_rate_data: Nullable(HeartRateData),
    respiration_data: Nullable(RespirationData),
    readiness_data: Nullable(
      Type.Object(
        { readiness: NullableNumber(), recovery_level: Nullable(RecoveryLevelSchema) },
        { title: 'ReadinessData' },
      ),
    ),
    temperature_data: Nullable(
      Type.Object(
        { delta: NullableNumber({ description: 'skin temperature deviation from baseline, °C' }) },
        { title: 'SleepTemperatureData' },
      ),
    ),
    scores: Nullable(SleepScores),
    data_enrichment: Nullable(SleepDataEnrichment),
    device_data: Nullable(DeviceData),
  },
  { $id: 'Sleep', title: 'Sleep', description: 'One sleep session. Identity: metadata.summary_id.' },
);

export type Sleep = Static<typeof Sleep>;
