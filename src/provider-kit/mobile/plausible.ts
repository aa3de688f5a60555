// The plausibility check (model/plausibility.ts) for mobile samples: every kind in its canonical
// unit mapped to a metric, the times to the date window. Run on every record of an SDK upload and
// every element of an export (readRecords, and an export reader's elements), so one bad record is
// refused with its reason while the rest of its batch is kept.
import { instantProblem, type Metric, valueProblem } from '../../model/plausibility.ts';

/** A workout's totals the check reads (samples.ts's MobileWorkout has them). */
type WorkoutTotals = Record<
  'durationSeconds' | 'distanceMeters' | 'energyKcal' | 'avgHr' | 'minHr' | 'maxHr',
  number | null
>;

/** What the check reads of a sample (samples.ts's MobileSample, which imports this module). */
export type CheckedSample = {
  kind: string;
  startMs: number;
  endMs: number;
  value: number | null;
  parts?: Record<string, number>;
  workout?: WorkoutTotals;
};

/** Kinds (samples.ts MOBILE_KINDS) in their canonical unit, and the metric each is. */
const KIND_METRICS: Record<string, Metric> = {
  steps: 'steps',
  distance: 'distance_m',
  active_energy: 'energy_kcal',
  basal_energy: 'energy_kcal',
  floors: 'floors',
  heart_rate: 'heart_rate_bpm',
  resting_heart_rate: 'heart_rate_bpm',
  hrv_sdnn: 'hrv_ms',
  hrv_rmssd: 'hrv_ms',
  oxygen_saturation: 'oxygen_saturation_percent',
  respiratory_rate: 'respiratory_rate_per_min',
  vo2max: 'vo2max',
  weight: 'weight_kg',
  lean_mass: 'weight_kg',
  body_fat: 'body_fat_percent',
  height: 'height_cm',
  bmi: 'bmi',
  bp_systolic: 'systolic_mmhg',
  bp_diastolic: 'diastolic_mmhg',
  glucose: 'glucose_mg_dl',
  body_temperature: 'temperature_celsius',
  water: 'water_ml',
};

/** Parts (nutrition by model key, activity-summary fields) by their unit suffix or name. */
function partMetric(key: string): Metric {
  if (key === 'calories' || key.endsWith('_kcal')) return 'energy_kcal';
  if (key.endsWith('_mg')) return 'milligrams';
  if (key === 'exercise_minutes') return 'minutes_of_day';
  if (key === 'stand_hours') return 'hours_of_day';
  if (key.endsWith('_ml')) return 'water_ml';
  return 'grams';
}

/** Why a sample cannot be believed (its times or a value), or null. */
export function sampleProblem(sample: CheckedSample, nowMs: number): string | null {
  const time =
    instantProblem(sample.startMs, nowMs, 'start') ??
    (sample.endMs === sample.startMs ? null : instantProblem(sample.endMs, nowMs, 'end'));
  if (time) return time;
  const metric = KIND_METRICS[sample.kind];
  if (metric) {
    const problem = valueProblem(metric, sample.value, sample.kind);
    if (problem) return problem;
  }
  for (const [key, value] of Object.entries(sample.parts ?? {})) {
    const problem = valueProblem(partMetric(key), value, key);
    if (problem) return problem;
  }
  const workout = sample.workout;
  if (workout) {
    return (
      valueProblem('duration_seconds', workout.durationSeconds, 'workout duration') ??
      valueProblem('distance_m', workout.distanceMeters, 'workout distance') ??
      valueProblem('energy_kcal', workout.energyKcal, 'workout energy') ??
      valueProblem('heart_rate_bpm', workout.avgHr, 'workout average heart rate') ??
      valueProblem('heart_rate_bpm', workout.minHr, 'workout minimum heart rate') ??
      valueProblem('heart_rate_bpm', workout.maxHr, 'workout maximum heart rate')
    );
  }
  return null;
}
