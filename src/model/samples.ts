// Element shapes of the model's sample / time-series arrays (reference B, "Shared sample
// element shapes"). `timestamp` is an ISO datetime; `timer_duration_seconds` is time on the
// activity timer when the sample was taken.
//
// Nested schemas carry a `title` but no `$id`: the same shape appears several times inside one
// record (e.g. three temperature series in Body), and a repeated `$id` within one document is
// ambiguous to JSON Schema validators. Only the top-level records have `$id`s.
import Type, { type Static } from 'typebox';
import {
  ActivityLevelSchema,
  AFibFlagSchema,
  GlucoseFlagSchema,
  HeartRateContextSchema,
  HeartRateZoneSchema,
  KetoneSampleTypeSchema,
  MenstruationFlowSchema,
  MenstruationIntervalSchema,
  NutritionUnitsSchema,
  OxygenSaturationTypeSchema,
  SleepLevelSchema,
  StrokeTypeSchema,
  TrendArrowSchema,
} from './enums.ts';
import {
  DateTimeText,
  LatLng,
  Nullable,
  NullableDateTime,
  NullableInteger,
  NullableNumber,
  NullableString,
} from './schema-helpers.ts';

const timestamp = NullableDateTime();
const timer_duration_seconds = NullableNumber();

export const HeartRateDataSample = Type.Object(
  { timestamp, bpm: NullableNumber(), timer_duration_seconds, context: Nullable(HeartRateContextSchema) },
  { title: 'HeartRateDataSample' },
);
export const HeartRateVariabilityDataSampleRmssd = Type.Object(
  { timestamp, hrv_rmssd: NullableNumber() },
  { title: 'HeartRateVariabilityDataSampleRMSSD' },
);
export const HeartRateVariabilityDataSampleSdnn = Type.Object(
  { timestamp, hrv_sdnn: NullableNumber() },
  { title: 'HeartRateVariabilityDataSampleSDNN' },
);
export const HeartRateZoneData = Type.Object(
  {
    zone: Nullable(HeartRateZoneSchema),
    start_percentage: NullableNumber(),
    end_percentage: NullableNumber(),
    name: NullableString(),
    duration_seconds: NullableNumber(),
  },
  { title: 'HeartRateZoneData' },
);
/** The SDK calls the level `level`; the newer schema `activity_level`. Both are accepted. */
export const ActivityLevelSample = Type.Object(
  {
    timestamp,
    level: Nullable(ActivityLevelSchema),
    activity_level: Nullable(ActivityLevelSchema),
    timer_duration_seconds,
  },
  { title: 'ActivityLevelSample' },
);
export const CalorieSample = Type.Object(
  { timestamp, calories: NullableNumber(), timer_duration_seconds },
  { title: 'CalorieSample' },
);
export const DistanceSample = Type.Object(
  { timestamp, distance_meters: NullableNumber({ description: 'cumulative' }), timer_duration_seconds },
  { title: 'DistanceSample' },
);
export const ElevationSample = Type.Object(
  { timestamp, elev_meters: NullableNumber(), timer_duration_seconds },
  { title: 'ElevationSample' },
);
export const FloorsClimbedSample = Type.Object(
  { timestamp, floors_climbed: NullableNumber({ description: 'cumulative' }), timer_duration_seconds },
  { title: 'FloorsClimbedSample' },
);
export const StepSample = Type.Object(
  { timestamp, steps: NullableNumber(), timer_duration_seconds },
  { title: 'StepSample' },
);
export const SpeedSample = Type.Object(
  { timestamp, speed_meters_per_second: NullableNumber(), timer_duration_seconds },
  { title: 'SpeedSample' },
);
export const CadenceSample = Type.Object(
  { timestamp, cadence_rpm: NullableNumber(), timer_duration_seconds },
  { title: 'CadenceSample' },
);
export const TorqueSample = Type.Object(
  { timestamp, torque_newton_meters: NullableNumber(), timer_duration_seconds },
  { title: 'TorqueSample' },
);
export const PowerSample = Type.Object(
  { timestamp, watts: NullableNumber(), timer_duration_seconds },
  { title: 'PowerSample' },
);
export const PositionSample = Type.Object(
  { timestamp, coords_lat_lng_deg: Nullable(LatLng()), timer_duration_seconds },
  { title: 'PositionSample' },
);
export const MetSample = Type.Object({ timestamp, level: NullableNumber() }, { title: 'METSample' });
export const StressSample = Type.Object({ timestamp, level: NullableNumber() }, { title: 'StressSample' });
export const BodyBatterySample = Type.Object(
  { timestamp, level: NullableNumber() },
  { title: 'BodyBatterySample' },
);
/** Training stress; the only sample without a timestamp. */
export const TssSample = Type.Object(
  {
    planned: NullableNumber(),
    actual: NullableNumber(),
    method: NullableString(),
    intensity_factor_planned: NullableNumber(),
    intensity_factor_actual: NullableNumber(),
    normalized_power_watts: NullableNumber(),
  },
  { title: 'TSSSample' },
);
export const LapSample = Type.Object(
  {
    calories: NullableNumber(),
    avg_hr_bpm: NullableNumber(),
    start_time: NullableDateTime(),
    end_time: NullableDateTime(),
    avg_speed_meters_per_second: NullableNumber(),
    distance_meters: NullableNumber(),
    total_strokes: NullableNumber(),
    stroke_type: Nullable(StrokeTypeSchema),
    active_duration_seconds: NullableNumber(),
    avg_watts: NullableNumber(),
    trigger_method: NullableString({ description: 'MANUAL, TIME, DISTANCE, POSITION_*, SESSION_END, ...' }),
  },
  { title: 'LapSample' },
);
export const OxygenSaturationSample = Type.Object(
  { timestamp, percentage: NullableNumber(), type: Nullable(OxygenSaturationTypeSchema) },
  { title: 'OxygenSaturationSample' },
);
export const Vo2MaxSample = Type.Object(
  { timestamp, vo2max_ml_per_min_per_kg: NullableNumber() },
  { title: 'Vo2MaxSample' },
);
export const BreathSample = Type.Object(
  { timestamp, breaths_per_min: NullableNumber() },
  { title: 'BreathSample' },
);
export const SnoringSample = Type.Object(
  { timestamp, duration_seconds: NullableNumber() },
  { title: 'SnoringSample' },
);
/** Each sample starts a stage that lasts until the next sample (the last one until the end). */
export const SleepHypnogramSample = Type.Object(
  { timestamp, level: Nullable(SleepLevelSchema) },
  { title: 'SleepHypnogramSample' },
);
export const BloodPressureSample = Type.Object(
  { timestamp, diastolic_bp: NullableNumber(), systolic_bp: NullableNumber() },
  { title: 'BloodPressureSample', description: 'mmHg' },
);
export const TemperatureSample = Type.Object(
  { timestamp, temperature_celsius: NullableNumber() },
  { title: 'TemperatureSample' },
);
export const GlucoseDataSample = Type.Object(
  {
    timestamp,
    blood_glucose_mg_per_dL: NullableNumber(),
    glucose_level_flag: Nullable(GlucoseFlagSchema),
    trend_arrow: Nullable(TrendArrowSchema),
  },
  { title: 'GlucoseDataSample' },
);
export const DailyPatternSample = Type.Object(
  {
    time_from_midnight: NullableInteger({ minimum: 0, maximum: 23, description: 'hour of the day' }),
    percentile_5: NullableNumber(),
    percentile_25: NullableNumber(),
    percentile_50: NullableNumber(),
    percentile_75: NullableNumber(),
    percentile_95: NullableNumber(),
  },
  { title: 'DailyPatternSample' },
);
export const KetoneSample = Type.Object(
  { timestamp, ketone_mg_per_dL: NullableNumber(), sample_type: Nullable(KetoneSampleTypeSchema) },
  { title: 'KetoneSample' },
);
export const HydrationMeasurementSample = Type.Object(
  { timestamp, hydration_kg: NullableNumber() },
  { title: 'HydrationMeasurementSample' },
);
export const HydrationLevelSample = Type.Object(
  { timestamp, hydration_level: NullableNumber() },
  { title: 'HydrationLevelSample' },
);
export const RrIntervalSample = Type.Object(
  { timestamp, rr_interval_ms: NullableNumber(), hr_bpm: NullableNumber() },
  { title: 'RRIntervalSample' },
);
export const PulseVelocitySample = Type.Object(
  { timestamp, pulse_wave_velocity_meters_per_second: NullableNumber() },
  { title: 'PulseVelocitySample' },
);
export const AFibClassificationSample = Type.Object(
  { timestamp, afib_classification: Nullable(AFibFlagSchema) },
  { title: 'AFibClassificationSample' },
);
export const RawEcgSample = Type.Object(
  { timestamp, potential_uV: NullableNumber() },
  { title: 'RawECGSample' },
);
export const EcgReading = Type.Object(
  {
    start_timestamp: NullableDateTime(),
    avg_hr_bpm: NullableNumber(),
    afib_classification: Nullable(AFibFlagSchema),
    raw_signal: Nullable(Type.Array(RawEcgSample)),
  },
  { title: 'ECGReading' },
);
export const MenstruationFlowSample = Type.Object(
  { timestamp, flow: Nullable(MenstruationFlowSchema) },
  { title: 'MenstruationFlowSample' },
);
/** Newer schema: one contiguous phase of the cycle. */
export const MenstruationIntervalSample = Type.Object(
  {
    start_timestamp: NullableDateTime(),
    end_timestamp: NullableDateTime(),
    phase: Nullable(MenstruationIntervalSchema),
  },
  { title: 'MenstruationIntervalSample' },
);
export const DrinkSample = Type.Object(
  {
    timestamp,
    drink_volume: NullableNumber(),
    /** A NutritionUnits code (older payloads' unit names are converted on the way in). */
    drink_unit: Nullable(NutritionUnitsSchema),
    drink_name: NullableString(),
  },
  { title: 'DrinkSample' },
);
/** All keys required (reference). */
export const TagEntry = Type.Object(
  { timestamp: DateTimeText(), tag_name: Type.String(), notes: Type.String() },
  { title: 'TagEntry' },
);

export type HeartRateDataSample = Static<typeof HeartRateDataSample>;
export type LapSample = Static<typeof LapSample>;
export type PositionSample = Static<typeof PositionSample>;
export type SleepHypnogramSample = Static<typeof SleepHypnogramSample>;
export type GlucoseDataSample = Static<typeof GlucoseDataSample>;
