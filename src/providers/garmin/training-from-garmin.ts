// Garmin Training API, Garmin -> unified: a workout this app scheduled, read back as the unified
// planned-workout body (the provider's planned workouts in data reads).
import type {
  PlannedWorkoutDetails,
  PlannedWorkoutStep,
  PlannedWorkoutSteps,
} from '../../model/planned-workout.ts';
import { plannedWorkoutIntensities } from '../../model/planned-workout-enums.ts';
import { type Duration, type Json, nameOf, num, STROKES, type Target } from './training-values.ts';

const SPORT_TYPE: Readonly<Record<string, string>> = {
  RUNNING: 'RUNNING',
  CYCLING: 'BIKING',
  LAP_SWIMMING: 'SWIMMING',
  STRENGTH_TRAINING: 'STRENGTH_TRAINING',
  CARDIO_TRAINING: 'CARDIO_TRAINING',
  YOGA: 'YOGA',
  PILATES: 'PILATES',
};
const UNIFIED_DURATION: Readonly<Record<string, [string, string, keyof Duration]>> = {
  TIME: ['TimePlannedWorkoutStepDuration', 'TIME', 'seconds'],
  DISTANCE: ['DistancePlannedWorkoutStepDuration', 'DISTANCE_METERS', 'distance_meters'],
  HR_LESS_THAN: ['HRBelowPlannedWorkoutStepDuration', 'HR_LESS_THAN', 'hr_below_bpm'],
  HR_GREATER_THAN: ['HRAbovePlannedWorkoutStepDuration', 'HR_GREATER_THAN', 'hr_above_bpm'],
  CALORIES: ['CaloriesPlannedWorkoutStepDuration', 'CALORIES', 'calories'],
  POWER_LESS_THAN: ['PowerBelowPlannedWorkoutStepDuration', 'POWER_LESS_THAN', 'power_below_watts'],
  POWER_GREATER_THAN: ['PowerAbovePlannedWorkoutStepDuration', 'POWER_GREATER_THAN', 'power_above_watts'],
  REPS: ['RepsPlannedWorkoutStepDuration', 'REPS', 'reps'],
  FIXED_REST: ['FixedRestPlannedWorkoutStepDuration', 'FIXED_REST', 'rest_seconds'],
};

function unifiedDuration(step: Json): Duration {
  const known = UNIFIED_DURATION[String(step.durationType)];
  const value = num(step.durationValue);
  if (!known || value === null) return { type: 'PlannedWorkoutStepDuration', duration_type: 'OPEN' };
  return { type: known[0], duration_type: known[1], [known[2]]: value } as Duration;
}

function unifiedTarget(step: Json, prefix: '' | 'secondary'): Target | null {
  const field = (name: string) => step[prefix ? `secondary${name[0]!.toUpperCase()}${name.slice(1)}` : name];
  const type = field('targetType');
  const low = num(field('targetValueLow'));
  const high = num(field('targetValueHigh'));
  const percent = field('targetValueType') === 'PERCENT';
  switch (type) {
    case 'HEART_RATE':
      return percent
        ? {
            type: 'HRPlannedWorkoutStepTarget',
            target_type: 'HEART_RATE',
            hr_percentage_low: low,
            hr_percentage_high: high,
          }
        : {
            type: 'HRPlannedWorkoutStepTarget',
            target_type: 'HEART_RATE',
            hr_bpm_low: low,
            hr_bpm_high: high,
          };
    case 'POWER':
      return percent
        ? {
            type: 'PowerPlannedWorkoutStepTarget',
            target_type: 'POWER',
            power_percentage_low: low,
            power_percentage_high: high,
          }
        : {
            type: 'PowerPlannedWorkoutStepTarget',
            target_type: 'POWER',
            power_watt_low: low,
            power_watt_high: high,
          };
    case 'SPEED':
      return {
        type: 'SpeedPlannedWorkoutStepTarget',
        target_type: 'SPEED',
        speed_meters_per_second: low ?? high,
      };
    case 'PACE': {
      const speed = low ?? high;
      return speed && speed > 0
        ? {
            type: 'PacePlannedWorkoutStepTarget',
            target_type: 'PACE',
            pace_minutes_per_kilometer: Math.round((1000 / speed / 60) * 100) / 100,
          }
        : null;
    }
    case 'CADENCE':
      return {
        type: 'CadencePlannedWorkoutStepTarget',
        target_type: 'CADENCE',
        cadence_low: low,
        cadence_high: high,
      };
    default:
      return prefix ? null : { type: 'PlannedWorkoutStepTarget', target_type: 'OPEN' };
  }
}

function unifiedStep(step: Json, order: number): PlannedWorkoutStep {
  const targets = [unifiedTarget(step, ''), unifiedTarget(step, 'secondary')].filter(
    (target): target is Target => target !== null,
  );
  const stroke = Object.entries(STROKES).find(([, garmin]) => garmin === step.strokeType)?.[0];
  return {
    type: 'PlannedWorkoutStep',
    order,
    description: typeof step.description === 'string' ? step.description : null,
    intensity: nameOf(plannedWorkoutIntensities, step.intensity) ?? 'ACTIVE',
    durations: [unifiedDuration(step)],
    targets,
    ...(stroke ? { stroke_type: stroke as PlannedWorkoutStep['stroke_type'] } : {}),
    ...(typeof step.exerciseName === 'string' ? { exercise_name: step.exerciseName } : {}),
    ...(num(step.weightValue) !== null ? { weight_kg: num(step.weightValue) } : {}),
  };
}

/** A Garmin workout scheduled on `date`, as the unified body (provider id = Garmin's workoutId). */
export function fromGarminWorkout(workout: Json, date: string): PlannedWorkoutDetails {
  const segments = Array.isArray(workout.segments) ? (workout.segments as Json[]) : [];
  const steps: PlannedWorkoutSteps[] = [];
  let order = 0;
  for (const segment of segments) {
    for (const raw of Array.isArray(segment.steps) ? (segment.steps as Json[]) : []) {
      if (raw.type === 'WorkoutRepeatStep') {
        const children = Array.isArray(raw.steps) ? (raw.steps as Json[]) : [];
        steps.push({
          type: 'PlannedWorkoutRepeatStep',
          order: order++,
          durations: [
            {
              type: 'RepsPlannedWorkoutStepDuration',
              duration_type: 'REPS',
              reps: num(raw.repeatValue) ?? 1,
            },
          ],
          steps: children.map((child, index) => unifiedStep(child, index)),
        });
      } else steps.push(unifiedStep(raw, order++));
    }
  }
  return {
    metadata: {
      id: String(workout.workoutId),
      name: typeof workout.workoutName === 'string' ? workout.workoutName : null,
      description: typeof workout.description === 'string' ? workout.description : null,
      provider: 'GARMIN',
      type: (SPORT_TYPE[String(workout.sport)] ?? 'OTHER') as never,
      planned_date: `${date}T00:00:00.000000+00:00`,
      estimated_duration_seconds: num(workout.estimatedDurationInSecs),
      estimated_distance_meters: num(workout.estimatedDistanceInMeters),
      pool_length_meters: num(workout.poolLength),
    },
    steps,
  };
}
