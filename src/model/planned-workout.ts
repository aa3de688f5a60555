// PlannedWorkoutDetails: the body of a structured workout to be done on a date, as a provider holds
// it and as the older contract (SDK/V5 `/plannedWorkout`) posts it: `{metadata, steps}`
// (docs/wire-contract.md#data-model). It is the record of the `plannedWorkout` data type, identity
// `metadata.id`. The current wire object that wraps it, `PlannedWorkout`, is planned-workout-current.ts.
//
// Upstream describes steps, durations and targets as unions discriminated by `type`, but every
// member has only optional keys, so a `oneOf` would match several members at once and reject
// valid input. Each union is therefore one open object carrying the keys of all its members;
// `type` (and `duration_type` / `target_type`) say which keys are meaningful.
import Type, { type Static } from 'typebox';
import { ActivityTypeSchema, activityTypeNames } from './activity-type.ts';
import {
  ExerciseCategorySchema,
  PlannedWorkoutDurationKindSchema,
  PlannedWorkoutDurationTypeSchema,
  PlannedWorkoutIntensitySchema,
  PlannedWorkoutStepKindSchema,
  PlannedWorkoutTargetKindSchema,
  PlannedWorkoutTargetTypeSchema,
  SwimEquipmentTypeSchema,
  SwimStrokeTypeSchema,
} from './planned-workout-enums.ts';
import {
  Nullable,
  NullableArray,
  NullableDateTime,
  NullableInteger,
  NullableNumber,
  NullableString,
  stringSchema,
} from './schema-helpers.ts';

export const PlannedWorkoutStepDuration = Type.Object(
  {
    type: Nullable(PlannedWorkoutDurationKindSchema),
    duration_type: Nullable(PlannedWorkoutDurationTypeSchema),
    seconds: NullableNumber({ description: 'TIME' }),
    distance_meters: NullableNumber({ description: 'DISTANCE_METERS' }),
    hr_below_bpm: NullableNumber({ description: 'HR_LESS_THAN' }),
    hr_above_bpm: NullableNumber({ description: 'HR_GREATER_THAN' }),
    calories: NullableNumber({ description: 'CALORIES' }),
    power_below_watts: NullableNumber({ description: 'POWER_LESS_THAN' }),
    power_above_watts: NullableNumber({ description: 'POWER_GREATER_THAN' }),
    reps: NullableNumber({ description: 'REPS' }),
    rest_seconds: NullableNumber({ description: 'FIXED_REST' }),
    steps: NullableNumber({ description: 'STEPS' }),
  },
  { title: 'PlannedWorkoutStepDuration' },
);

export const PlannedWorkoutStepTarget = Type.Object(
  {
    type: Nullable(PlannedWorkoutTargetKindSchema),
    target_type: Nullable(PlannedWorkoutTargetTypeSchema),
    speed_meters_per_second: NullableNumber(),
    speed_percentage: NullableNumber(),
    speed_percentage_low: NullableNumber(),
    speed_percentage_high: NullableNumber(),
    hr_bpm_low: NullableNumber(),
    hr_bpm_high: NullableNumber(),
    hr_percentage: NullableNumber(),
    hr_percentage_low: NullableNumber(),
    hr_percentage_high: NullableNumber(),
    cadence: NullableNumber(),
    cadence_low: NullableNumber(),
    cadence_high: NullableNumber(),
    power_watt: NullableNumber(),
    power_watt_low: NullableNumber(),
    power_watt_high: NullableNumber(),
    power_percentage: NullableNumber(),
    power_percentage_low: NullableNumber(),
    power_percentage_high: NullableNumber(),
    swim_strokes: NullableNumber(),
    pace_minutes_per_kilometer: NullableNumber(),
    repetitions: NullableNumber(),
    tss: NullableNumber(),
    if_low: NullableNumber(),
    if_high: NullableNumber(),
  },
  { title: 'PlannedWorkoutStepTarget' },
);

/** Keys of every non-repeat step kind. The docs' misspellings are accepted alongside. */
const stepFields = {
  type: Nullable(PlannedWorkoutStepKindSchema),
  order: NullableInteger(),
  name: NullableString(),
  description: NullableString(),
  intensity: Nullable(PlannedWorkoutIntensitySchema),
  durations: NullableArray(PlannedWorkoutStepDuration),
  targets: NullableArray(PlannedWorkoutStepTarget),
  stroke_type: Nullable(SwimStrokeTypeSchema),
  /** One piece (SDK) or a list (current schema). */
  equipment_type: Nullable(Type.Union([SwimEquipmentTypeSchema, Type.Array(SwimEquipmentTypeSchema)])),
  equipement_type: Nullable(SwimEquipmentTypeSchema),
  exercise_name: NullableString(),
  exercise_category: Nullable(ExerciseCategorySchema),
  exercice_name: NullableString(),
  exercice_category: Nullable(ExerciseCategorySchema),
  weight_kg: NullableNumber(),
};

export const PlannedWorkoutStep = Type.Object(stepFields, { title: 'PlannedWorkoutStep' });

/** A step, or a repeat step whose `steps` are repeated (repeat count in a REPS duration). */
export const PlannedWorkoutSteps = Type.Object(
  { ...stepFields, steps: NullableArray(PlannedWorkoutStep) },
  { title: 'PlannedWorkoutSteps' },
);

export const PlannedWorkoutMetadata = Type.Object(
  {
    id: NullableString({ description: 'Identity of the planned workout' }),
    name: NullableString(),
    description: NullableString(),
    provider: NullableString(),
    /** The activity type by name (SDK) or by ActivityType code (docs). */
    type: Nullable(Type.Union([stringSchema(activityTypeNames), ActivityTypeSchema])),
    created_date: NullableDateTime(),
    planned_date: NullableDateTime(),
    estimated_duration_seconds: NullableNumber(),
    estimated_distance_meters: NullableNumber(),
    estimated_calories: NullableNumber(),
    estimated_energy_kj: NullableNumber(),
    estimated_elevation_gain_meters: NullableNumber(),
    estimated_speed_meters_per_second: NullableNumber(),
    estimated_pace_minutes_per_kilometer: NullableNumber(),
    estimated_tss: NullableNumber(),
    estimated_tscore: NullableNumber(),
    estimated_if: NullableNumber(),
    pool_length_meters: NullableNumber(),
  },
  { title: 'PlannedWorkoutMetadata' },
);

const detailsFields = {
  metadata: Nullable(PlannedWorkoutMetadata),
  steps: NullableArray(PlannedWorkoutSteps),
};
const detailsDescription =
  'The body of a planned workout: metadata (name, type, planned date, estimates) and structured steps. ' +
  'Enumerations by name (SDK) or number (docs); the current schema answers numbers. Identity: metadata.id.';

export const PlannedWorkoutDetails = Type.Object(detailsFields, {
  $id: 'PlannedWorkoutDetails',
  title: 'PlannedWorkoutDetails',
  description: detailsDescription,
});

/** The same schema without an `$id`, for embedding inside other schemas. */
export const PlannedWorkoutDetailsShape = Type.Object(detailsFields, {
  title: 'PlannedWorkoutDetails',
  description: detailsDescription,
});

export type PlannedWorkoutDetails = Static<typeof PlannedWorkoutDetails>;
export type PlannedWorkoutSteps = Static<typeof PlannedWorkoutSteps>;
export type PlannedWorkoutStep = Static<typeof PlannedWorkoutStep>;
