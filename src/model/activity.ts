// Activity: one workout (docs/wire-contract.md#data-model). Identity: `metadata.summary_id`.
import Type, { type Static } from 'typebox';
import { ActivityTypeSchema } from './activity-type.ts';
import { UploadTypeSchema } from './enums.ts';
import {
  CadenceSample,
  LapSample,
  PositionSample,
  PowerSample,
  SpeedSample,
  TorqueSample,
  TssSample,
} from './samples.ts';
import {
  DateTimeText,
  LatLng,
  Nullable,
  NullableArray,
  NullableInteger,
  NullableNumber,
  NullableString,
} from './schema-helpers.ts';
import {
  ActiveDurationsData,
  CaloriesData,
  ContributorMap,
  DeviceData,
  DistanceDataDetailed,
  ElevationData,
  HeartRateData,
  MetData,
  OxygenData,
  StrainData,
  SwimmingData,
  timestampLocalization,
} from './shared.ts';

export const ActivityMetadata = Type.Object(
  {
    summary_id: Type.String({
      description: 'Identity of the workout; records with the same id replace each other',
    }),
    start_time: DateTimeText(),
    end_time: DateTimeText(),
    type: ActivityTypeSchema,
    upload_type: UploadTypeSchema,
    name: NullableString(),
    city: NullableString(),
    state: NullableString(),
    country: NullableString(),
    timestamp_localization: timestampLocalization,
  },
  { title: 'ActivityMetadata' },
);

export const ActivityDataEnrichment = Type.Object(
  {
    stress_score: NullableNumber(),
    efficiency_score: NullableNumber(),
    efficiency_contributors: ContributorMap(),
    rcrs_score: NullableNumber(),
    rcrs_contributors: ContributorMap(),
    strain_score: NullableNumber(),
    strain_contributors: ContributorMap(),
    trimp_score: NullableNumber(),
    trimp_contributors: ContributorMap(),
  },
  { title: 'ActivityDataEnrichment' },
);

export const DistanceDataSummary = Type.Object(
  {
    distance_meters: NullableNumber(),
    steps: NullableNumber(),
    floors_climbed: NullableNumber(),
    elevation: Nullable(ElevationData),
    swimming: Nullable(SwimmingData),
  },
  { title: 'DistanceDataSummary' },
);

export const ActivityDistanceData = Type.Object(
  { summary: Nullable(DistanceDataSummary), detailed: Nullable(DistanceDataDetailed) },
  { title: 'DistanceData' },
);

export const MovementData = Type.Object(
  {
    avg_cadence_rpm: NullableNumber(),
    max_cadence_rpm: NullableNumber(),
    avg_pace_minutes_per_kilometer: NullableNumber(),
    max_pace_minutes_per_kilometer: NullableNumber(),
    avg_speed_meters_per_second: NullableNumber(),
    max_speed_meters_per_second: NullableNumber(),
    adjusted_max_speed_meters_per_second: NullableNumber(),
    normalized_speed_meters_per_second: NullableNumber(),
    avg_velocity_meters_per_second: NullableNumber(),
    max_velocity_meters_per_second: NullableNumber(),
    avg_torque_newton_meters: NullableNumber(),
    max_torque_newton_meters: NullableNumber(),
    cadence_samples: NullableArray(CadenceSample),
    speed_samples: NullableArray(SpeedSample),
    torque_samples: NullableArray(TorqueSample),
  },
  { title: 'MovementData' },
);

export const PositionData = Type.Object(
  {
    start_pos_lat_lng_deg: Nullable(LatLng()),
    center_pos_lat_lng_deg: Nullable(LatLng()),
    end_pos_lat_lng_deg: Nullable(LatLng()),
    position_samples: NullableArray(PositionSample),
  },
  { title: 'PositionData' },
);

/**
 * One performed set of a strength exercise (a Tributary extension: the vendor's documents hold
 * strength only for planned steps, docs/vendor-spec-deviations.md). Named the vendor's way:
 * `_kg`, `_meters`, `_seconds` units in the name, snake_case, null when not logged.
 */
export const StrengthSet = Type.Object(
  {
    set_index: NullableInteger({ minimum: 0 }),
    /** `normal`, `warmup`, `dropset` or `failure`; null when the source does not say. */
    set_type: NullableString(),
    reps: NullableInteger({ minimum: 0 }),
    weight_kg: NullableNumber({ minimum: 0 }),
    duration_seconds: NullableNumber({ minimum: 0 }),
    distance_meters: NullableNumber({ minimum: 0 }),
    /** Rating of perceived exertion, as logged (usually 6 to 10). */
    rpe: NullableNumber({ minimum: 0 }),
  },
  { title: 'StrengthSet' },
);

export const StrengthExercise = Type.Object(
  {
    exercise_index: NullableInteger({ minimum: 0 }),
    exercise_name: NullableString(),
    /** As the vendor's planned `StrengthData` names it (a muscle group or movement family). */
    exercise_category: NullableString(),
    /** The source's own id of the exercise (a template or catalogue id). */
    exercise_id: NullableString(),
    /** Exercises sharing a superset id were done as a superset. */
    superset_id: NullableString(),
    notes: NullableString(),
    sets: NullableArray(StrengthSet),
  },
  { title: 'StrengthExercise' },
);

/** Exercises and their sets of a strength workout (optional; absent on other activities). */
export const ActivityStrengthData = Type.Object(
  { exercises: NullableArray(StrengthExercise) },
  { title: 'ActivityStrengthData' },
);

export const Activity = Type.Object(
  {
    metadata: ActivityMetadata,
    active_durations_data: Nullable(ActiveDurationsData),
    calories_data: Nullable(CaloriesData),
    cheat_detection: NullableNumber(),
    data_enrichment: Nullable(ActivityDataEnrichment),
    device_data: Nullable(DeviceData),
    distance_data: Nullable(ActivityDistanceData),
    energy_data: Nullable(
      Type.Object(
        { energy_kilojoules: NullableNumber(), energy_planned_kilojoules: NullableNumber() },
        { title: 'EnergyData' },
      ),
    ),
    heart_rate_data: Nullable(HeartRateData),
    lap_data: Nullable(Type.Object({ laps: NullableArray(LapSample) }, { title: 'LapData' })),
    MET_data: Nullable(MetData),
    movement_data: Nullable(MovementData),
    oxygen_data: Nullable(OxygenData),
    polyline_map_data: Nullable(
      Type.Object({ summary_polyline: NullableString() }, { title: 'PolylineMapData' }),
    ),
    position_data: Nullable(PositionData),
    power_data: Nullable(
      Type.Object(
        {
          avg_watts: NullableNumber(),
          max_watts: NullableNumber(),
          power_samples: NullableArray(PowerSample),
        },
        { title: 'PowerData' },
      ),
    ),
    strain_data: Nullable(StrainData),
    strength_data: Nullable(ActivityStrengthData),
    TSS_data: Nullable(Type.Object({ TSS_samples: NullableArray(TssSample) }, { title: 'TSSData' })),
    work_data: Nullable(Type.Object({ work_kilojoules: NullableNumber() }, { title: 'WorkData' })),
  },
  { $id: 'Activity', title: 'Activity', description: 'One workout. Identity: metadata.summary_id.' },
);

export type Activity = Static<typeof Activity>;
