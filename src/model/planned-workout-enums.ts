// Enumerations of planned workouts (docs/wire-contract.md#data-model). The SDK sends names ("WARMUP"),
// the docs send the numbers (1); tuple order is the numbering, so `indexOf(name)` is the code.
import Type from 'typebox';
import { stringSchema } from './schema-helpers.ts';

export const plannedWorkoutIntensities = [
  'REST',
  'WARMUP',
  'COOLDOWN',
  'RECOVERY',
  'INTERVAL',
  'ACTIVE',
] as const;

export const plannedWorkoutDurationTypes = [
  'TIME',
  'DISTANCE_METERS',
  'HR_LESS_THAN',
  'HR_GREATER_THAN',
  'CALORIES',
  'OPEN',
  'POWER_LESS_THAN',
  'POWER_GREATER_THAN',
  'REPETITION_TIME',
  'REPS',
  'FIXED_REST',
  'TIME_AT_VALID_CDA',
  'STEPS',
] as const;

export const plannedWorkoutTargetTypes = [
  'SPEED',
  'HEART_RATE',
  'OPEN',
  'CADENCE',
  'POWER',
  'GRADE',
  'RESISTANCE',
  'POWER_LAP',
  'SWIM_STROKE',
  'SPEED_LAP',
  'HEART_RATE_LAP',
  'PACE',
  'HEART_RATE_THRESHOLD_PERCENTAGE',
  'HEART_RATE_MAX_PERCENTAGE',
  'SPEED_PERCENTAGE',
  'POWER_PERCENTAGE',
  'REPETITION',
  'TSS',
  'IF',
] as const;

/** Step discriminator `type`: SDK (Fern) union names, the V5 spec's STEP/REPEAT_STEP. */
export const plannedWorkoutStepKinds = [
  'PlannedWorkoutStep',
  'PlannedWorkoutRepeatStep',
  'SwimmingPlannedWorkoutStep',
  'CardioPlannedWorkoutStep',
  'StrengthPlannedWorkoutStep',
  'YogaPlannedWorkoutStep',
  'PilatesPlannedWorkoutStep',
  'RunningPlannedWorkoutStep',
  'CyclingPlannedWorkoutStep',
  'STEP',
  'REPEAT_STEP',
] as const;

export const plannedWorkoutDurationKinds = [
  'TimePlannedWorkoutStepDuration',
  'DistancePlannedWorkoutStepDuration',
  'HRAbovePlannedWorkoutStepDuration',
  'HRBelowPlannedWorkoutStepDuration',
  'PowerAbovePlannedWorkoutStepDuration',
  'PowerBelowPlannedWorkoutStepDuration',
  'CaloriesPlannedWorkoutStepDuration',
  'RepsPlannedWorkoutStepDuration',
  'FixedRestPlannedWorkoutStepDuration',
  'StepsPlannedWorkoutStepDuration',
  'PlannedWorkoutStepDuration',
] as const;

export const plannedWorkoutTargetKinds = [
  'HRPlannedWorkoutStepTarget',
  'PowerPlannedWorkoutStepTarget',
  'SpeedPlannedWorkoutStepTarget',
  'PacePlannedWorkoutStepTarget',
  'CadencePlannedWorkoutStepTarget',
  'TSSPlannedWorkoutStepTarget',
  'IFPlannedWorkoutStepTarget',
  'RepetitionPlannedWorkoutStepTarget',
  'SwimStrokePlannedWorkoutStepTarget',
  'PlannedWorkoutStepTarget',
] as const;

export const swimStrokeTypes = [
  'OTHER',
  'FREESTYLE',
  'BACKSTROKE',
  'BREASTSTROKE',
  'BUTTERFLY',
  'REST',
] as const;

export const swimEquipmentTypes = [
  'NONE',
  'SWIM_FINS',
  'SWIM_KICKBOARD',
  'SWIM_PADDLES',
  'SWIM_PULL_BUOY',
  'SWIM_SNORKEL',
] as const;

/** 36 values, numbered 0-35 in the docs. */
export const exerciseCategories = [
  'UNKNOWN',
  'BENCH_PRESS',
  'CALF_RAISE',
  'CARDIO',
  'CARRY',
  'CHOP',
  'CORE',
  'CRUNCH',
  'CURL',
  'DEADLIFT',
  'FLYE',
  'HIP_RAISE',
  'HIP_STABILITY',
  'HIP_SWING',
  'HYPEREXTENSION',
  'LATERAL_RAISE',
  'LEG_CURL',
  'LEG_RAISE',
  'LUNGE',
  'OLYMPIC_LIFT',
  'PLANK',
  'PLYO',
  'PULL_UP',
  'PUSH_UP',
  'ROW',
  'SHOULDER_PRESS',
  'SHOULDER_STABILITY',
  'SHRUG',
  'SIT_UP',
  'SQUAT',
  'TOTAL_BODY',
  'TRICEPS_EXTENSION',
  'WARM_UP',
  'RUN',
  'BIKE',
  'CARDIO_SENSORS',
] as const;

/** Accepts a name from `names` or its position as an integer code (docs form). */
function nameOrCode(names: readonly string[], description: string) {
  return Type.Union(
    [
      stringSchema(names),
      Type.Integer({ minimum: 0, maximum: names.length - 1, description: 'numeric form (docs)' }),
    ],
    { description },
  );
}

export const PlannedWorkoutIntensitySchema = nameOrCode(plannedWorkoutIntensities, 'Step intensity');
export const PlannedWorkoutDurationTypeSchema = nameOrCode(plannedWorkoutDurationTypes, 'Duration type');
export const PlannedWorkoutTargetTypeSchema = nameOrCode(plannedWorkoutTargetTypes, 'Target type');
export const SwimStrokeTypeSchema = nameOrCode(swimStrokeTypes, 'Swim stroke type');
export const SwimEquipmentTypeSchema = nameOrCode(swimEquipmentTypes, 'Swim equipment type');
export const ExerciseCategorySchema = nameOrCode(exerciseCategories, 'Exercise category');
/** Steps: a union name (SDK), STEP/REPEAT_STEP (V5), or 0 = step / 1 = repeat (docs). */
export const PlannedWorkoutStepKindSchema = Type.Union([
  stringSchema(plannedWorkoutStepKinds),
  Type.Integer({ minimum: 0, maximum: 1 }),
]);
export const PlannedWorkoutDurationKindSchema = stringSchema(plannedWorkoutDurationKinds);
export const PlannedWorkoutTargetKindSchema = stringSchema(plannedWorkoutTargetKinds);
