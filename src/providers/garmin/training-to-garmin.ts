// Garmin Training API, unified -> Garmin: a planned workout as Garmin's workout JSON (one segment,
// steps numbered through the whole workout, repeat groups included). Kinds of duration or target
// Garmin has no word for become OPEN or are dropped.
import { activityTypeName } from '../../model/activity-type.ts';
import type {
  PlannedWorkoutDetails,
  PlannedWorkoutStep,
  PlannedWorkoutSteps,
} from '../../model/planned-workout.ts';
import {
  exerciseCategories,
  plannedWorkoutDurationTypes,
  plannedWorkoutIntensities,
  plannedWorkoutStepKinds,
  plannedWorkoutTargetTypes,
  swimEquipmentTypes,
  swimStrokeTypes,
} from '../../model/planned-workout-enums.ts';
import { type Duration, type Json, nameOf, num, STROKES, type Target } from './training-values.ts';

/** Garmin's workout sports; everything else is GENERIC. */
export function garminSportOf(type: unknown): string {
  const name = typeof type === 'number' ? (activityTypeName(type) ?? '') : String(type ?? '').toUpperCase();
  if (/SWIM/.test(name)) return 'LAP_SWIMMING';
  if (/BIK|CYCL/.test(name)) return 'CYCLING';
  if (/RUN/.test(name)) return 'RUNNING';
  if (/STRENGTH/.test(name)) return 'STRENGTH_TRAINING';
  if (/YOGA/.test(name)) return 'YOGA';
  if (/PILATES/.test(name)) return 'PILATES';
  if (/CARDIO|HIIT|ELLIPTICAL|ROWING/.test(name)) return 'CARDIO_TRAINING';
  return 'GENERIC';
}
const EQUIPMENT: Readonly<Record<string, string>> = {
  NONE: 'NONE',
  SWIM_FINS: 'SWIM_FINS',
  SWIM_KICKBOARD: 'SWIM_KICKBOARD',
  SWIM_PADDLES: 'SWIM_PADDLES',
  SWIM_PULL_BUOY: 'SWIM_PULLBUOY',
  SWIM_SNORKEL: 'SWIM_SNORKEL',
};

/** How long a step lasts, as Garmin says it; a kind Garmin has no word for is OPEN (lap button). */
function garminDuration(duration: Duration | undefined): Json {
  if (!duration) return { durationType: 'OPEN' };
  const kind = nameOf(plannedWorkoutDurationTypes, duration.duration_type);
  const value = (type: string, amount: unknown, unit?: string) =>
    num(amount) === null
      ? { durationType: 'OPEN' }
      : { durationType: type, durationValue: num(amount), ...(unit ? { durationValueType: unit } : {}) };
  switch (kind) {
    case 'TIME':
      return value('TIME', duration.seconds);
    case 'DISTANCE_METERS':
      return value('DISTANCE', duration.distance_meters, 'METER');
    case 'HR_LESS_THAN':
      return value('HR_LESS_THAN', duration.hr_below_bpm);
    case 'HR_GREATER_THAN':
      return value('HR_GREATER_THAN', duration.hr_above_bpm);
    case 'CALORIES':
      return value('CALORIES', duration.calories);
    case 'POWER_LESS_THAN':
      return value('POWER_LESS_THAN', duration.power_below_watts);
    case 'POWER_GREATER_THAN':
      return value('POWER_GREATER_THAN', duration.power_above_watts);
    case 'REPS':
      return value('REPS', duration.reps);
    case 'FIXED_REST':
      return value('FIXED_REST', duration.rest_seconds);
    default:
      return { durationType: 'OPEN' };
  }
}

/** A range, or one value as a range of itself. */
const range = (low: unknown, high: unknown, one?: unknown) => {
  const lo = num(low) ?? num(one);
  const hi = num(high) ?? num(one);
  return lo === null && hi === null ? null : { low: lo ?? hi, high: hi ?? lo };
};

/** A step's target (`secondary` for the second one); targets Garmin has no word for are dropped. */
function garminTarget(target: Target | undefined, secondary = false): Json {
  const key = (name: string) => (secondary ? `secondary${name[0]!.toUpperCase()}${name.slice(1)}` : name);
  const out = (type: string, span: { low: number | null; high: number | null } | null, unit?: string) =>
    span === null
      ? {}
      : {
          [key('targetType')]: type,
          [key('targetValueLow')]: span.low,
          [key('targetValueHigh')]: span.high,
          ...(unit ? { [key('targetValueType')]: unit } : {}),
        };
  if (!target) return secondary ? {} : { targetType: 'OPEN' };
  const t = target;
  switch (nameOf(plannedWorkoutTargetTypes, t.target_type)) {
    case 'HEART_RATE':
      return (
        pick(out('HEART_RATE', range(t.hr_bpm_low, t.hr_bpm_high))) ??
        out('HEART_RATE', range(t.hr_percentage_low, t.hr_percentage_high, t.hr_percentage), 'PERCENT')
      );
    case 'HEART_RATE_MAX_PERCENTAGE':
    case 'HEART_RATE_THRESHOLD_PERCENTAGE':
      return out('HEART_RATE', range(t.hr_percentage_low, t.hr_percentage_high, t.hr_percentage), 'PERCENT');
    case 'POWER':
      return (
        pick(out('POWER', range(t.power_watt_low, t.power_watt_high, t.power_watt))) ??
        out('POWER', range(t.power_percentage_low, t.power_percentage_high, t.power_percentage), 'PERCENT')
      );
    case 'POWER_PERCENTAGE':
      return out(
        'POWER',
        range(t.power_percentage_low, t.power_percentage_high, t.power_percentage),
        'PERCENT',
      );
    case 'SPEED':
      return out('SPEED', range(null, null, t.speed_meters_per_second));
    case 'PACE': {
      // Garmin states a pace target as speed (m/s); minutes per km -> m/s.
      const pace = num(t.pace_minutes_per_kilometer);
      return pace && pace > 0 ? out('PACE', range(null, null, 1000 / (pace * 60))) : {};
    }
    case 'CADENCE':
      return out('CADENCE', range(t.cadence_low, t.cadence_high, t.cadence));
    default:
      return secondary ? {} : { targetType: 'OPEN' };
  }
}
const pick = (value: Json) => (Object.keys(value).length > 0 ? value : null);

const isRepeat = (step: PlannedWorkoutSteps) =>
  nameOf(plannedWorkoutStepKinds, step.type) === 'PlannedWorkoutRepeatStep' ||
  nameOf(plannedWorkoutStepKinds, step.type) === 'REPEAT_STEP';

/** The steps in their `order`, then as posted. */
const ordered = <S extends { order?: number | null }>(steps: readonly S[]) =>
  steps
    .map((step, index) => ({ step, index }))
    .sort((a, b) => (a.step.order ?? a.index) - (b.step.order ?? b.index) || a.index - b.index)
    .map(({ step }) => step);

function garminStep(step: PlannedWorkoutStep, stepOrder: number): Json {
  const [first, second] = step.targets ?? [];
  const stroke = nameOf(swimStrokeTypes, step.stroke_type);
  const equipmentList = Array.isArray(step.equipment_type) ? step.equipment_type : [step.equipment_type];
  const equipment = nameOf(swimEquipmentTypes, equipmentList[0] ?? step.equipement_type);
  const category = nameOf(exerciseCategories, step.exercise_category ?? step.exercice_category);
  const exercise = step.exercise_name ?? step.exercice_name ?? null;
  return {
    type: 'WorkoutStep',
    stepOrder,
    intensity: nameOf(plannedWorkoutIntensities, step.intensity) ?? 'ACTIVE',
    ...(step.name || step.description ? { description: step.description ?? step.name } : {}),
    ...garminDuration(step.durations?.[0]),
    ...garminTarget(first),
    ...garminTarget(second, true),
    ...(stroke && STROKES[stroke] ? { strokeType: STROKES[stroke] } : {}),
    ...(equipment ? { equipmentType: EQUIPMENT[equipment] } : {}),
    ...(category && category !== 'UNKNOWN' ? { exerciseCategory: category } : {}),
    ...(exercise ? { exerciseName: exercise.toUpperCase().replace(/\W+/g, '_') } : {}),
    ...(num(step.weight_kg) !== null ? { weightValue: step.weight_kg, weightDisplayUnit: 'KILOGRAM' } : {}),
  };
}

/** The steps as Garmin's list: stepOrder runs through the whole workout, repeat groups included. */
function garminSteps(steps: readonly PlannedWorkoutSteps[]): Json[] {
  let next = 1;
  return ordered(steps).map((step) => {
    if (!isRepeat(step)) return garminStep(step, next++);
    const repeat = step.durations?.find(
      (d) => nameOf(plannedWorkoutDurationTypes, d.duration_type) === 'REPS',
    );
    const group: Json = {
      type: 'WorkoutRepeatStep',
      stepOrder: next++,
      repeatType: 'REPEAT_UNTIL_STEPS_CMPLT',
      repeatValue: Math.max(1, Math.round(num(repeat?.reps) ?? 1)),
    };
    group.steps = ordered(step.steps ?? []).map((child) => garminStep(child, next++));
    return group;
  });
}

/** The unified planned workout as Garmin's workout JSON (one segment). */
export function toGarminWorkout(details: PlannedWorkoutDetails): Json {
  const metadata = details.metadata ?? {};
  const sport = garminSportOf(metadata.type);
  const pool = num(metadata.pool_length_meters);
  const poolFields = sport === 'LAP_SWIMMING' && pool ? { poolLength: pool, poolLengthUnit: 'METER' } : {};
  return {
    workoutName: (metadata.name ?? 'Workout').slice(0, 80),
    ...(metadata.description ? { description: metadata.description.slice(0, 1024) } : {}),
    sport,
    workoutProvider: 'Tributary',
    workoutSourceId: 'Tributary',
    ...(num(metadata.estimated_duration_seconds) !== null
      ? { estimatedDurationInSecs: Math.round(metadata.estimated_duration_seconds!) }
      : {}),
    ...(num(metadata.estimated_distance_meters) !== null
      ? { estimatedDistanceInMeters: metadata.estimated_distance_meters }
      : {}),
    ...poolFields,
    isSessionTransitionEnabled: false,
    segments: [{ segmentOrder: 1, sport, ...poolFields, steps: garminSteps(details.steps ?? []) }],
  };
}
