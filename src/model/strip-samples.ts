// What `with_samples=false` drops, as data: per record type, the dotted paths of its sample /
// time-series arrays (laps included). Summaries, meals, body measurements, tags and other
// discrete entries stay. A test walks the schemas to check that every array named like a sample list is here.
//
// Stripping empties the array rather than deleting the key, so the record keeps its shape and
// clients that iterate `hr_samples` need no null checks.

const heartRateDetail = (prefix: string) =>
  ['hr_samples', 'hrv_samples_rmssd', 'hrv_samples_sdnn'].map((key) => `${prefix}.detailed.${key}`);

const distanceDetail = (prefix: string) =>
  ['distance_samples', 'elevation_samples', 'floors_climbed_samples', 'step_samples'].map(
    (key) => `${prefix}.${key}`,
  );

const oxygen = ['oxygen_data.saturation_samples', 'oxygen_data.vo2_samples'];

export const samplePaths = {
  activity: [
    'active_durations_data.activity_levels_samples',
    'calories_data.calorie_samples',
    ...distanceDetail('distance_data.detailed'),
    ...heartRateDetail('heart_rate_data'),
    'lap_data.laps',
    'MET_data.MET_samples',
    'movement_data.cadence_samples',
    'movement_data.speed_samples',
    'movement_data.torque_samples',
    ...oxygen,
    'position_data.position_samples',
    'power_data.power_samples',
    'TSS_data.TSS_samples',
  ],
  sleep: [
    'sleep_durations_data.hypnogram_samples',
    ...heartRateDetail('heart_rate_data'),
    'respiration_data.breaths_data.samples',
    'respiration_data.oxygen_saturation_data.samples',
    'respiration_data.snoring_data.samples',
  ],
  body: [
    'blood_pressure_data.blood_pressure_samples',
    ...heartRateDetail('heart_data.heart_rate_data'),
    'heart_data.afib_classification_samples',
    'heart_data.ecg_signal',
    'heart_data.pulse_wave_velocity_samples',
    'heart_data.rr_interval_samples',
    'hydration_data.hydration_amount_samples',
    'hydration_data.hydration_level_samples',
    'ketone_data.ketone_samples',
    ...oxygen,
    'temperature_data.ambient_temperature_samples',
    'temperature_data.body_temperature_samples',
    'temperature_data.skin_temperature_samples',
    'glucose_data.blood_glucose_samples',
    'glucose_data.detailed_blood_glucose_samples',
  ],
  daily: [
    'active_durations_data.activity_levels_samples',
    'calories_data.calorie_samples',
    ...distanceDetail('distance_data.detailed'),
    ...heartRateDetail('heart_rate_data'),
    'MET_data.MET_samples',
    ...oxygen,
    'stress_data.samples',
    'stress_data.body_battery_samples',
  ],
  nutrition: ['drink_samples'],
  menstruation: ['menstruation_data.menstruation_flow'],
  hormone: [],
  plannedWorkout: [],
} as const satisfies Record<string, readonly string[]>;

export type SampledTypeName = keyof typeof samplePaths;

/**
 * Returns a copy of `record` with the array at each path emptied. Objects along a changed path
 * are shallow-copied (key order kept); everything else is shared with the input, which is
 * never mutated. Missing, null and already-empty arrays are left as they are.
 */
export function stripPaths<T>(record: T, paths: readonly string[]): T {
  let result: unknown = record;
  for (const path of paths) result = emptyArrayAt(result, path.split('.'), 0);
  return result as T;
}

function emptyArrayAt(node: unknown, keys: readonly string[], depth: number): unknown {
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return node;
  const key = keys[depth];
  if (key === undefined || !Object.hasOwn(node, key)) return node;
  const parent = node as Record<string, unknown>;
  const child = parent[key];
  if (depth === keys.length - 1) {
    if (!Array.isArray(child) || child.length === 0) return node;
    return { ...parent, [key]: [] };
  }
  const replaced = emptyArrayAt(child, keys, depth + 1);
  return replaced === child ? node : { ...parent, [key]: replaced };
}
