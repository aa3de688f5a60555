// PlannedWorkout as the vendor's current schema defines it: a workout scheduled onto a user's
// calendar, `{planned_workout_id, workout_id, planned_date, provider_workout_id, coercion_warnings,
// created_at, last_updated_at, is_external, athlete_metrics, details}`, where `details` is the
// provider-side body (planned-workout.ts) with every enumeration as its number. Workouts planned
// through Tributary carry ids of their own; workouts created at the provider (is_external) carry
// only the provider's id and their body.
import Type, { type Static } from 'typebox';
import { ActivityType, type ActivityTypeName } from './activity-type.ts';
import type { plannedWorkoutDurationKinds, plannedWorkoutTargetKinds } from './planned-workout-enums.ts';
import {
  exerciseCategories,
  plannedWorkoutDurationTypes,
  plannedWorkoutIntensities,
  plannedWorkoutTargetTypes,
  swimEquipmentTypes,
  swimStrokeTypes,
} from './planned-workout-enums.ts';
import { type PlannedWorkoutDetails, PlannedWorkoutDetailsShape } from './planned-workout.ts';
import { Nullable, NullableBoolean, NullableNumber, NullableString } from './schema-helpers.ts';

export const AthleteMetrics = Type.Object(
  {
    threshold_heart_rate: NullableNumber({ description: 'Threshold heart rate in BPM' }),
    max_heart_rate: NullableNumber({ description: 'Maximum heart rate in BPM' }),
    threshold_speed: NullableNumber({ description: 'Threshold speed in m/s' }),
    ftp: NullableNumber({ description: 'Functional Threshold Power in watts' }),
    pool_length_meters: NullableNumber({ description: 'Pool length in meters (overrides the template)' }),
  },
  { title: 'AthleteMetrics', description: 'Metrics that personalised one planned workout’s targets' },
);
export type AthleteMetrics = Static<typeof AthleteMetrics>;

export const PlannedWorkout = Type.Object(
  {
    planned_workout_id: NullableString({ description: 'Tributary’s id; null for external workouts' }),
    workout_id: NullableString({ description: 'The template it was planned from; null when none' }),
    planned_date: NullableString({ description: 'YYYY-MM-DD' }),
    provider_workout_id: NullableString({ description: 'The provider’s id, once pushed' }),
    coercion_warnings: NullableString({
      description: 'What the provider could not represent exactly, when anything',
    }),
    created_at: NullableString({ description: 'RFC 3339' }),
    last_updated_at: NullableString({ description: 'RFC 3339' }),
    is_external: NullableBoolean({ description: 'True when created on the provider side' }),
    athlete_metrics: Nullable(AthleteMetrics),
    details: Nullable(PlannedWorkoutDetailsShape),
  },
  {
    $id: 'PlannedWorkout',
    title: 'PlannedWorkout',
    description: 'A workout scheduled onto a user’s calendar; details is its body with numeric enumerations.',
  },
);
export type PlannedWorkout = Static<typeof PlannedWorkout>;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** A name from `names` as its position (the numbering), a valid number as itself; otherwise null. */
function codeOf(names: readonly string[], value: unknown): number | null {
  if (typeof value === 'number')
    return Number.isInteger(value) && value >= 0 && value < names.length ? value : null;
  if (typeof value !== 'string') return null;
  const index = names.indexOf(value.toUpperCase());
  return index >= 0 ? index : null;
}

/** The SDK's duration and target union names, by the type they imply when `*_type` is missing. */
const DURATION_OF_KIND: Record<(typeof plannedWorkoutDurationKinds)[number], string> = {
  TimePlannedWorkoutStepDuration: 'TIME',
  DistancePlannedWorkoutStepDuration: 'DISTANCE_METERS',
  HRAbovePlannedWorkoutStepDuration: 'HR_GREATER_THAN',
  HRBelowPlannedWorkoutStepDuration: 'HR_LESS_THAN',
  PowerAbovePlannedWorkoutStepDuration: 'POWER_GREATER_THAN',
  PowerBelowPlannedWorkoutStepDuration: 'POWER_LESS_THAN',
  CaloriesPlannedWorkoutStepDuration: 'CALORIES',
  RepsPlannedWorkoutStepDuration: 'REPS',
  FixedRestPlannedWorkoutStepDuration: 'FIXED_REST',
  StepsPlannedWorkoutStepDuration: 'STEPS',
  PlannedWorkoutStepDuration: 'OPEN',
};
const TARGET_OF_KIND: Record<(typeof plannedWorkoutTargetKinds)[number], string> = {
  HRPlannedWorkoutStepTarget: 'HEART_RATE',
  PowerPlannedWorkoutStepTarget: 'POWER',
  SpeedPlannedWorkoutStepTarget: 'SPEED',
  PacePlannedWorkoutStepTarget: 'PACE',
  CadencePlannedWorkoutStepTarget: 'CADENCE',
  TSSPlannedWorkoutStepTarget: 'TSS',
  IFPlannedWorkoutStepTarget: 'IF',
  RepetitionPlannedWorkoutStepTarget: 'REPETITION',
  SwimStrokePlannedWorkoutStepTarget: 'SWIM_STROKE',
  PlannedWorkoutStepTarget: 'OPEN',
};
const REPEAT_KINDS = new Set<unknown>(['PlannedWorkoutRepeatStep', 'REPEAT_STEP', 1]);

function currentDuration(duration: Json): Json {
  const { type: kind, ...rest } = duration;
  const named = rest.duration_type ?? DURATION_OF_KIND[kind as keyof typeof DURATION_OF_KIND] ?? 'OPEN';
  return {
    ...rest,
    duration_type: codeOf(plannedWorkoutDurationTypes, named) ?? codeOf(plannedWorkoutDurationTypes, 'OPEN'),
  };
}

function currentTarget(target: Json): Json {
  const { type: kind, ...rest } = target;
  const named = rest.target_type ?? TARGET_OF_KIND[kind as keyof typeof TARGET_OF_KIND] ?? 'OPEN';
  return {
    ...rest,
    target_type: codeOf(plannedWorkoutTargetTypes, named) ?? codeOf(plannedWorkoutTargetTypes, 'OPEN'),
  };
}

function currentStep(step: Json): Json {
  const {
    type: kind,
    equipement_type: misspeltEquipment,
    exercice_name: misspeltName,
    exercice_category: misspeltCategory,
    ...rest
  } = step;
  const equipment = rest.equipment_type ?? misspeltEquipment;
  const equipmentList =
    equipment === undefined || equipment === null
      ? equipment
      : Array.isArray(equipment)
        ? equipment
        : [equipment];
  const result: Json = {
    ...rest,
    type: REPEAT_KINDS.has(kind) ? 1 : 0,
    ...('intensity' in rest ? { intensity: codeOf(plannedWorkoutIntensities, rest.intensity) } : {}),
    ...('stroke_type' in rest ? { stroke_type: codeOf(swimStrokeTypes, rest.stroke_type) } : {}),
    ...(equipmentList !== undefined
      ? {
          equipment_type:
            equipmentList === null
              ? null
              : (equipmentList as unknown[])
                  .map((item) => codeOf(swimEquipmentTypes, item))
                  .filter((code): code is number => code !== null),
        }
      : {}),
    ...(rest.exercise_name !== undefined || misspeltName !== undefined
      ? { exercise_name: rest.exercise_name ?? misspeltName ?? null }
      : {}),
    ...(rest.exercise_category !== undefined || misspeltCategory !== undefined
      ? { exercise_category: codeOf(exerciseCategories, rest.exercise_category ?? misspeltCategory) }
      : {}),
  };
  if (Array.isArray(rest.durations)) result.durations = rest.durations.filter(isObject).map(currentDuration);
  if (Array.isArray(rest.targets)) result.targets = rest.targets.filter(isObject).map(currentTarget);
  if (Array.isArray(rest.steps)) result.steps = rest.steps.filter(isObject).map(currentStep);
  return result;
}

/** `YYYY-MM-DD` of a date or datetime text, as written (its local date); null when unreadable. */
export function dayOf(text: unknown): string | null {
  return typeof text === 'string' && /^\d{4}-\d{2}-\d{2}/.test(text) ? text.slice(0, 10) : null;
}

/**
 * The body in the current schema's form: every enumeration as its number (names of the SDK and the
 * docs' numbers both come in), `type` 0 for a step and 1 for a repetition block, equipment as a
 * list, the docs' misspelt keys under their right names, the planned date as `YYYY-MM-DD`, and
 * the SDK's union discriminators on durations and targets dropped (their `*_type` says it).
 */
export function toCurrentDetails(details: PlannedWorkoutDetails | Json): Json {
  const input = details as Json;
  const result: Json = { ...input };
  if (isObject(input.metadata)) {
    const metadata: Json = { ...input.metadata };
    if ('type' in metadata) {
      const type = metadata.type;
      metadata.type =
        typeof type === 'string' ? (ActivityType[type as ActivityTypeName] ?? ActivityType.OTHER) : type;
    }
    if ('planned_date' in metadata) metadata.planned_date = dayOf(metadata.planned_date);
    result.metadata = metadata;
  }
  if (Array.isArray(input.steps)) result.steps = input.steps.filter(isObject).map(currentStep);
  return result;
}

/** A workout the provider holds that was not planned through Tributary, as the current wire object. */
export function externalPlannedWorkout(details: PlannedWorkoutDetails | Json): PlannedWorkout {
  const current = toCurrentDetails(details);
  const metadata = (isObject(current.metadata) ? current.metadata : {}) as Json;
  return {
    planned_workout_id: null,
    workout_id: null,
    planned_date: dayOf(metadata.planned_date),
    provider_workout_id: typeof metadata.id === 'string' ? metadata.id : null,
    coercion_warnings: null,
    created_at: typeof metadata.created_date === 'string' ? metadata.created_date : null,
    last_updated_at: null,
    is_external: true,
    athlete_metrics: null,
    details: current as PlannedWorkout['details'],
  };
}

/**
 * The older contract's view of a planned workout (`GET /v2/plannedWorkout`): its body, with
 * `metadata.id` the id `DELETE /v2/plannedWorkout` takes (Tributary's id when it has one, else the
 * provider's) and `metadata.planned_date` the scheduled date.
 */
export function legacyPlannedWorkout(workout: PlannedWorkout): Json {
  const details = (workout.details ?? {}) as Json;
  const metadata = (isObject(details.metadata) ? details.metadata : {}) as Json;
  return {
    ...details,
    metadata: {
      ...metadata,
      id: workout.planned_workout_id ?? workout.provider_workout_id ?? metadata.id ?? null,
      planned_date: workout.planned_date ?? metadata.planned_date ?? null,
    },
  };
}
