// WorkoutTemplate: a reusable workout, stored once per developer and planned onto users' calendars
// (the vendor's current schema, `POST /workouts`). Unlike the provider-side body of a planned
// workout, its vocabulary is lower-case names: sport, environment, completion conditions,
// intensity targets. Blocks of steps repeat until their own completion condition (reps) is met.
import Type, { type Static } from 'typebox';
import { Nullable, NullableNumber, NullableString, stringSchema } from './schema-helpers.ts';

export const workoutSports = [
  'running',
  'cycling',
  'swimming',
  'strength',
  'rowing',
  'yoga',
  'pilates',
  'cardio',
  'trail_running',
  'mountain_biking',
  'backcountry_skiing',
  'hiking',
  'walking',
  'elliptical',
  'stair_climbing',
] as const;
export const environmentTypes = ['indoor', 'outdoor', 'pool'] as const;
export const completionConditionTypes = [
  'time',
  'distance',
  'hr',
  'calories',
  'open',
  'power',
  'reps',
  'hr_percentage',
  'power_percentage',
  'hr_less_than',
  'hr_greater_than',
] as const;
export const stepTargetTypes = [
  'speed',
  'heart_rate',
  'open',
  'cadence',
  'power',
  'swim_stroke',
  'speed_lap',
  'heart_rate_lap',
  'pace',
  'heart_rate_threshold_percentage',
  'heart_rate_max_percentage',
] as const;
export const stepIntensities = ['rest', 'warmup', 'cooldown', 'recovery', 'active'] as const;
export const stepControlTypes = ['grade', 'resistance'] as const;
export const weightUnits = ['kg', 'lbs'] as const;
export const templateSwimStrokes = [
  'backstroke',
  'breaststroke',
  'drill',
  'butterfly',
  'freestyle',
  'mixed',
  'im',
] as const;
export const drillTypes = ['kick', 'pull', 'drill'] as const;
export const templateSwimEquipment = [
  'none',
  'swim_fins',
  'swim_kickboard',
  'swim_paddles',
  'swim_pull_buoy',
  'swim_snorkel',
] as const;

const Bound = () => NullableNumber();

export const CompletionCondition = Type.Object(
  {
    type: stringSchema(completionConditionTypes, 'How the step or block completes'),
    value: Bound(),
    value_low: Bound(),
    value_high: Bound(),
  },
  { title: 'CompletionCondition' },
);

export const IntensityTarget = Type.Object(
  {
    target_type: stringSchema(stepTargetTypes, 'The quantity the target constrains'),
    value: Bound(),
    value_low: Bound(),
    value_high: Bound(),
  },
  { title: 'IntensityTarget' },
);

export const WorkoutStep = Type.Object(
  {
    completion_condition: CompletionCondition,
    intensity_targets: Nullable(Type.Array(IntensityTarget, { maxItems: 10 })),
    intensity_type: stringSchema(stepIntensities),
    notes: NullableString({ maxLength: 2000 }),
    controls: Nullable(
      Type.Array(
        Type.Object({ type: stringSchema(stepControlTypes), value: Type.Number() }, { title: 'StepControl' }),
        { maxItems: 10 },
      ),
    ),
    strength: Nullable(
      Type.Object(
        {
          exercise_name: NullableString({ maxLength: 200 }),
          weight: NullableNumber(),
          weight_display_unit: Nullable(stringSchema(weightUnits)),
          exercise_category: NullableString({ maxLength: 100 }),
        },
        { title: 'StrengthData' },
      ),
    ),
    swimming: Nullable(
      Type.Object(
        {
          stroke_type: Nullable(stringSchema(templateSwimStrokes)),
          drill_type: Nullable(stringSchema(drillTypes)),
          equipment: Nullable(Type.Array(stringSchema(templateSwimEquipment), { maxItems: 6 })),
        },
        { title: 'SwimStepData' },
      ),
    ),
  },
  { title: 'WorkoutStep' },
);

export const StepBlock = Type.Object(
  {
    completion_condition: CompletionCondition,
    steps: Type.Array(WorkoutStep, { maxItems: 100 }),
  },
  { title: 'StepBlock' },
);

export const WorkoutTemplate = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: NullableString({ maxLength: 4000 }),
    sport: stringSchema(workoutSports, 'Sport the template targets'),
    environment: Nullable(stringSchema(environmentTypes)),
    pool_length_meters: NullableNumber({ minimum: 0 }),
    step_blocks: Type.Array(StepBlock, { maxItems: 100 }),
    estimated_duration_seconds: NullableNumber({ minimum: 0 }),
    estimated_distance_meters: NullableNumber({ minimum: 0 }),
    estimated_calories: NullableNumber({ minimum: 0 }),
    workout_id: NullableString({ description: 'Set by Tributary in answers; ignored on create' }),
  },
  {
    title: 'WorkoutTemplate',
    description: 'A reusable workout template, created once and planned onto user calendars',
  },
);

export type WorkoutTemplate = Static<typeof WorkoutTemplate>;
export type WorkoutStep = Static<typeof WorkoutStep>;
export type StepBlock = Static<typeof StepBlock>;
export type IntensityTarget = Static<typeof IntensityTarget>;
export type CompletionCondition = Static<typeof CompletionCondition>;
