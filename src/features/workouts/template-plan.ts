// From a workout template to the body a provider receives: the template's blocks and steps in the
// planned-workout vocabulary (model/planned-workout*.ts, numeric form), its date, and the targets
// personalised with the athlete's metrics for this one plan (a percentage of threshold heart rate
// becomes beats per minute when the threshold is known). What the body cannot say exactly is
// written down as a coercion warning rather than silently dropped.
import { ActivityType } from '../../model/activity-type.ts';
import type { AthleteMetrics } from '../../model/planned-workout-current.ts';
import {
  exerciseCategories,
  plannedWorkoutDurationTypes,
  plannedWorkoutIntensities,
  plannedWorkoutTargetTypes,
  swimEquipmentTypes,
  swimStrokeTypes,
} from '../../model/planned-workout-enums.ts';
import type {
  CompletionCondition,
  IntensityTarget,
  StepBlock,
  WorkoutStep,
  WorkoutTemplate,
} from '../../model/workout-template.ts';

type Json = Record<string, unknown>;

const code = (names: readonly string[], name: string) => {
  const index = names.indexOf(name);
  if (index < 0) throw new Error(`unknown planned-workout name ${name}`);
  return index;
};
const duration = (name: (typeof plannedWorkoutDurationTypes)[number]) =>
  code(plannedWorkoutDurationTypes, name);
const target = (name: (typeof plannedWorkoutTargetTypes)[number]) => code(plannedWorkoutTargetTypes, name);

const SPORT_TYPES: Record<WorkoutTemplate['sport'], number> = {
  running: ActivityType.RUNNING,
  cycling: ActivityType.BIKING,
  swimming: ActivityType.SWIMMING,
  strength: ActivityType.STRENGTH_TRAINING,
  rowing: ActivityType.ROWING,
  yoga: ActivityType.YOGA,
  pilates: ActivityType.PILATES,
  cardio: ActivityType.CARDIO_TRAINING,
  trail_running: ActivityType.TRAIL_RUNNING,
  mountain_biking: ActivityType.MOUNTAIN_BIKING,
  backcountry_skiing: ActivityType.BACK_COUNTRY_SKIING,
  hiking: ActivityType.HIKING,
  walking: ActivityType.WALKING,
  elliptical: ActivityType.ELLIPTICAL,
  stair_climbing: ActivityType.STAIR_CLIMBING,
};

const INTENSITIES: Record<WorkoutStep['intensity_type'], number> = {
  rest: code(plannedWorkoutIntensities, 'REST'),
  warmup: code(plannedWorkoutIntensities, 'WARMUP'),
  cooldown: code(plannedWorkoutIntensities, 'COOLDOWN'),
  recovery: code(plannedWorkoutIntensities, 'RECOVERY'),
  active: code(plannedWorkoutIntensities, 'ACTIVE'),
};

const STROKES: Record<string, number> = {
  freestyle: code(swimStrokeTypes, 'FREESTYLE'),
  backstroke: code(swimStrokeTypes, 'BACKSTROKE'),
  breaststroke: code(swimStrokeTypes, 'BREASTSTROKE'),
  butterfly: code(swimStrokeTypes, 'BUTTERFLY'),
};

const EQUIPMENT: Record<string, number> = Object.fromEntries(
  swimEquipmentTypes.map((name, index) => [name.toLowerCase(), index]),
);

const LBS_TO_KG = 0.45359237;

/** What a plan adds to the template: its date and the athlete's metrics. */
export type PlanInput = { plannedDate: string; metrics: AthleteMetrics };

export type PlannedBody = { details: Json; warnings: string[] };

const pick = (condition: { value?: number | null; value_low?: number | null; value_high?: number | null }) =>
  condition.value ?? condition.value_high ?? condition.value_low ?? null;

function durationOf(
  condition: CompletionCondition,
  metrics: AthleteMetrics,
  warn: (text: string) => void,
): Json {
  const value = pick(condition);
  switch (condition.type) {
    case 'time':
      return { duration_type: duration('TIME'), seconds: value };
    case 'distance':
      return { duration_type: duration('DISTANCE_METERS'), distance_meters: value };
    case 'calories':
      return { duration_type: duration('CALORIES'), calories: value };
    case 'reps':
      return { duration_type: duration('REPS'), reps: value };
    case 'hr_less_than':
      return { duration_type: duration('HR_LESS_THAN'), hr_below_bpm: value };
    case 'hr':
    case 'hr_greater_than':
      return { duration_type: duration('HR_GREATER_THAN'), hr_above_bpm: value };
    case 'power':
      return { duration_type: duration('POWER_GREATER_THAN'), power_above_watts: value };
    case 'hr_percentage': {
      const reference = metrics.threshold_heart_rate ?? metrics.max_heart_rate ?? null;
      if (reference !== null && value !== null)
        return {
          duration_type: duration('HR_GREATER_THAN'),
          hr_above_bpm: Math.round((value * reference) / 100),
        };
      warn('an hr_percentage completion without threshold_heart_rate or max_heart_rate became open');
      return { duration_type: duration('OPEN') };
    }
    case 'power_percentage': {
      if (metrics.ftp != null && value !== null)
        return {
          duration_type: duration('POWER_GREATER_THAN'),
          power_above_watts: Math.round((value * metrics.ftp) / 100),
        };
      warn('a power_percentage completion without ftp became open');
      return { duration_type: duration('OPEN') };
    }
    case 'open':
      return { duration_type: duration('OPEN') };
  }
}

const range = (low: number | null | undefined, high: number | null | undefined, scale = 1) => ({
  low: low == null ? null : Math.round(low * scale * 100) / 100,
  high: high == null ? null : Math.round(high * scale * 100) / 100,
});

function targetOf(input: IntensityTarget, metrics: AthleteMetrics, warn: (text: string) => void): Json {
  const low = input.value_low ?? input.value ?? null;
  const high = input.value_high ?? input.value ?? null;
  switch (input.target_type) {
    case 'heart_rate':
      return { target_type: target('HEART_RATE'), hr_bpm_low: low, hr_bpm_high: high };
    case 'heart_rate_lap':
      return { target_type: target('HEART_RATE_LAP'), hr_bpm_low: low, hr_bpm_high: high };
    case 'heart_rate_threshold_percentage':
    case 'heart_rate_max_percentage': {
      const reference =
        input.target_type === 'heart_rate_threshold_percentage'
          ? metrics.threshold_heart_rate
          : metrics.max_heart_rate;
      if (reference != null) {
        const bpm = range(low, high, reference / 100);
        return { target_type: target('HEART_RATE'), hr_bpm_low: bpm.low, hr_bpm_high: bpm.high };
      }
      const type =
        input.target_type === 'heart_rate_threshold_percentage'
          ? 'HEART_RATE_THRESHOLD_PERCENTAGE'
          : 'HEART_RATE_MAX_PERCENTAGE';
      return { target_type: target(type), hr_percentage_low: low, hr_percentage_high: high };
    }
    case 'speed':
      return {
        target_type: target('SPEED'),
        speed_meters_per_second_low: low,
        speed_meters_per_second_high: high,
      };
    case 'speed_lap':
      return {
        target_type: target('SPEED_LAP'),
        speed_meters_per_second_low: low,
        speed_meters_per_second_high: high,
      };
    case 'pace':
      // The template gives pace as speed (m/s) bounds; the body's pace is minutes per kilometre.
      return {
        target_type: target('PACE'),
        speed_meters_per_second_low: low,
        speed_meters_per_second_high: high,
        pace_minutes_per_kilometer: high ? Math.round((1000 / 60 / high) * 100) / 100 : null,
      };
    case 'cadence':
      return { target_type: target('CADENCE'), cadence_low: low, cadence_high: high };
    case 'power':
      return { target_type: target('POWER'), power_watt_low: low, power_watt_high: high };
    case 'swim_stroke':
      return { target_type: target('SWIM_STROKE'), swim_strokes: input.value ?? null };
    case 'open':
      return { target_type: target('OPEN') };
  }
  warn(`an intensity target of type ${String(input.target_type)} became open`);
  return { target_type: target('OPEN') };
}

function stepOf(
  step: WorkoutStep,
  order: number,
  metrics: AthleteMetrics,
  warn: (text: string) => void,
): Json {
  const result: Json = {
    type: 0,
    order,
    name: null,
    description: step.notes ?? null,
    intensity: INTENSITIES[step.intensity_type],
    durations: [durationOf(step.completion_condition, metrics, warn)],
    targets: (step.intensity_targets ?? []).map((entry) => targetOf(entry, metrics, warn)),
  };
  if (step.controls && step.controls.length > 0)
    warn('equipment controls (grade, resistance) are not part of the provider body and were left out');
  if (step.strength) {
    const {
      exercise_name: name,
      weight,
      weight_display_unit: unit,
      exercise_category: category,
    } = step.strength;
    result.exercise_name = name ?? null;
    result.weight_kg =
      weight == null ? null : unit === 'lbs' ? Math.round(weight * LBS_TO_KG * 100) / 100 : weight;
    if (category) {
      const index = exerciseCategories.indexOf(category.toUpperCase() as (typeof exerciseCategories)[number]);
      result.exercise_category = index >= 0 ? index : 0;
      if (index < 0)
        warn(`exercise category ${category} is not one the provider body knows; sent as UNKNOWN`);
    }
  }
  if (step.swimming) {
    const { stroke_type: stroke, drill_type: drill, equipment } = step.swimming;
    if (stroke) {
      result.stroke_type = STROKES[stroke] ?? code(swimStrokeTypes, 'OTHER');
      if (!(stroke in STROKES)) warn(`swim stroke ${stroke} was sent as OTHER`);
    }
    if (drill) warn(`swim drill ${drill} is not part of the provider body and was left out`);
    if (equipment) result.equipment_type = equipment.map((name) => EQUIPMENT[name] ?? 0);
  }
  return result;
}

/**
 * The provider-side body of a template planned on `plannedDate`: a block repeated more than once
 * becomes a repetition step (`type` 1) holding its steps; a block done once contributes its steps.
 */
export function planTemplate(template: WorkoutTemplate, input: PlanInput): PlannedBody {
  const warnings = new Set<string>();
  const warn = (text: string) => warnings.add(text);
  const metrics = input.metrics;
  let order = 0;
  const steps: Json[] = [];
  for (const block of template.step_blocks as StepBlock[]) {
    const repeats = block.completion_condition.type === 'reps' ? (pick(block.completion_condition) ?? 1) : 1;
    if (block.completion_condition.type !== 'reps')
      warn(`a block completing on ${block.completion_condition.type} was planned as done once`);
    if (repeats > 1) {
      order += 1;
      const repeatOrder = order;
      const children = block.steps.map((step) => {
        order += 1;
        return stepOf(step, order, metrics, warn);
      });
      steps.push({
        type: 1,
        order: repeatOrder,
        name: null,
        description: null,
        intensity: INTENSITIES.active,
        durations: [{ duration_type: duration('REPS'), reps: repeats }],
        targets: [],
        steps: children,
      });
    } else {
      for (const step of block.steps) {
        order += 1;
        steps.push(stepOf(step, order, metrics, warn));
      }
    }
  }
  const poolLength = metrics.pool_length_meters ?? template.pool_length_meters ?? null;
  return {
    details: {
      metadata: {
        id: null,
        provider: null,
        name: template.name,
        description: template.description ?? null,
        type: SPORT_TYPES[template.sport],
        planned_date: input.plannedDate,
        created_date: null,
        estimated_duration_seconds: template.estimated_duration_seconds ?? null,
        estimated_distance_meters: template.estimated_distance_meters ?? null,
        estimated_calories: template.estimated_calories ?? null,
        pool_length_meters: poolLength,
      },
      steps,
    },
    warnings: [...warnings],
  };
}
