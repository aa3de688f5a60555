// Compact views of records for an AI assistant (docs/mcp.md): the handful of numbers a question
// about a day, a night, a workout or a measurement usually needs, nulls and samples left out, so
// a week fits easily in a model's context. The full records stay one data API call away.
type Json = Record<string, unknown>;

const at = (value: unknown, path: string): unknown => {
  let current = value;
  for (const key of path.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Json)[key];
  }
  return current;
};

/** Only the members that hold something (a number, a string, a boolean). */
function pick(record: Json, fields: Record<string, string>): Json {
  const out: Json = {};
  for (const [name, path] of Object.entries(fields)) {
    const value = at(record, path);
    if (typeof value === 'number') out[name] = Math.round(value * 100) / 100;
    else if (typeof value === 'string' || typeof value === 'boolean') out[name] = value;
  }
  return out;
}

const day = (record: Json) => String(at(record, 'metadata.start_time') ?? '').slice(0, 10);

const VIEWS: Record<string, (record: Json) => Json> = {
  daily: (record) => ({
    date: day(record),
    ...pick(record, {
      steps: 'distance_data.steps',
      distance_m: 'distance_data.distance_meters',
      calories_total: 'calories_data.total_burned_calories',
      calories_active: 'calories_data.net_activity_calories',
      active_seconds: 'active_durations_data.activity_seconds',
      resting_hr: 'heart_rate_data.summary.resting_hr_bpm',
      avg_hr: 'heart_rate_data.summary.avg_hr_bpm',
      hrv_rmssd: 'heart_rate_data.summary.avg_hrv_rmssd',
      stress_avg: 'stress_data.avg_stress_level',
      provider_recovery: 'scores.recovery',
      provider_sleep_score: 'scores.sleep',
      recovery: 'data_enrichment.tributary.recovery_score',
      sleep_score: 'data_enrichment.tributary.sleep_score',
      training_load: 'data_enrichment.tributary.training_load.load',
      acwr: 'data_enrichment.tributary.training_load.acwr',
    }),
  }),
  sleep: (record) =>
    pick(record, {
      start: 'metadata.start_time',
      end: 'metadata.end_time',
      nap: 'metadata.is_nap',
      asleep_seconds: 'sleep_durations_data.asleep.duration_asleep_state_seconds',
      deep_seconds: 'sleep_durations_data.asleep.duration_deep_sleep_state_seconds',
      rem_seconds: 'sleep_durations_data.asleep.duration_REM_sleep_state_seconds',
      light_seconds: 'sleep_durations_data.asleep.duration_light_sleep_state_seconds',
      awake_seconds: 'sleep_durations_data.awake.duration_awake_state_seconds',
      efficiency: 'sleep_durations_data.sleep_efficiency',
      avg_hr: 'heart_rate_data.summary.avg_hr_bpm',
      hrv_rmssd: 'heart_rate_data.summary.avg_hrv_rmssd',
      provider_score: 'scores.sleep',
      sleep_score: 'data_enrichment.tributary.sleep_score',
    }),
  activity: (record) =>
    pick(record, {
      start: 'metadata.start_time',
      end: 'metadata.end_time',
      name: 'metadata.name',
      type: 'metadata.type',
      active_seconds: 'active_durations_data.activity_seconds',
      distance_m: 'distance_data.summary.distance_meters',
      steps: 'distance_data.summary.steps',
      calories: 'calories_data.total_burned_calories',
      avg_hr: 'heart_rate_data.summary.avg_hr_bpm',
      max_hr: 'heart_rate_data.summary.max_hr_bpm',
    }),
  body: (record) => ({
    date: day(record),
    ...pick(record, {
      weight_kg: 'measurements_data.day_avg_weight_kg',
      bmi: 'measurements_data.day_avg_bmi',
      body_fat_percentage: 'measurements_data.day_avg_bodyfat_percentage',
      muscle_mass_g: 'measurements_data.day_avg_muscle_mass_g',
      systolic_bp: 'blood_pressure_data.day_avg_systolic_bp',
      diastolic_bp: 'blood_pressure_data.day_avg_diastolic_bp',
      glucose_mg_per_dl: 'glucose_data.day_avg_blood_glucose_mg_per_dL',
      temperature_c: 'temperature_data.body_temperature_samples.0.temperature_celsius',
    }),
  }),
};

export const COMPACT_TYPES = ['daily', 'sleep', 'activity', 'body'] as const;
export type CompactType = (typeof COMPACT_TYPES)[number];

export function compactRecord(type: CompactType, record: Json): Json {
  return VIEWS[type]!(record);
}

/** A lab result as a line: what was measured, the value, its unit and flag. */
export function compactLabResult(result: Json): Json {
  const measurement = at(result, 'measurement');
  const value =
    at(measurement, 'numeric') ??
    (at(measurement, 'bounded')
      ? `${at(measurement, 'bounded.operator') === 'lt' ? '<' : '>'}${String(at(measurement, 'bounded.value'))}`
      : (at(measurement, 'qualitative.text') ?? at(measurement, 'text') ?? at(result, 'source.value')));
  return {
    ...pick(result, {
      biomarker: 'biomarker.key',
      name: 'biomarker.display_name',
      loinc: 'biomarker.loinc_code',
      unit: 'measurement.units',
      flag: 'source.flag',
      reference: 'source.reference_text',
      needs_review: 'needs_review',
    }),
    ...(value === undefined ? {} : { value }),
    ...(at(result, 'biomarker.display_name') === undefined && typeof at(result, 'source.name') === 'string'
      ? { name: at(result, 'source.name') }
      : {}),
  };
}
