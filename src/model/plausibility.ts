// What a health record may say and still be believed: its dates inside a documented window and
// its values inside physical ranges. One check for every source: a provider's normalized records
// on the ingestion write path (features/data), and the mobile samples of SDK uploads and export
// imports (provider-kit/mobile/plausible.ts maps their kinds to these metrics). A record outside
// is refused with the reason; a wrong health value is worse than a missing one.
//
// Why a window narrower than the calendar's (model/calendar.ts accepts up to 9999-12-31): a record
// dated 9999-12-31 overflowed day arithmetic (the next day is year 10000), PostgreSQL refused the
// timestamp, and the job that carried it failed for good, taking every later upload of the user
// with it. Nothing measured a human before 1900, and nothing is measured more than a year ahead
// (predictions and plans included).
import { readDateTime } from './calendar.ts';

export const PLAUSIBLE_EARLIEST_DATE = '1900-01-01';
const EARLIEST_MS = Date.parse(`${PLAUSIBLE_EARLIEST_DATE}T00:00:00Z`);
/** How far ahead of now a record may reach: one year (a leap year's days). */
export const PLAUSIBLE_AHEAD_DAYS = 366;
const AHEAD_MS = PLAUSIBLE_AHEAD_DAYS * 86_400_000;

/** Why the instant `ms` cannot be a record's time, or null when it can. */
export function instantProblem(ms: number, nowMs: number, field: string): string | null {
  if (!Number.isFinite(ms)) return `${field} is not a time`;
  if (ms < EARLIEST_MS) return `${field} is before ${PLAUSIBLE_EARLIEST_DATE}`;
  if (ms > nowMs + AHEAD_MS)
    return `${field} ${new Date(ms).toISOString().slice(0, 10)} is more than ${PLAUSIBLE_AHEAD_DAYS} days ahead`;
  return null;
}

/** The same for a wire datetime or date text; text the calendar cannot read is a problem too. */
export function dateTextProblem(text: string, nowMs: number, field: string): string | null {
  const reading = readDateTime(text.length === 10 ? `${text}T00:00:00Z` : text);
  if (!reading) return `${field} "${text.slice(0, 40)}" is not a supported datetime`;
  return instantProblem(reading.ms, nowMs, field);
}

/**
 * Physical ranges per metric, in the model's canonical units, wide enough for any real human or
 * device (an ultramarathon, a newborn, a bodybuilder's calorie day) and nothing beyond.
 */
export const PHYSICAL_RANGES = {
  heart_rate_bpm: { min: 20, max: 300 },
  hrv_ms: { min: 0, max: 3000 },
  oxygen_saturation_percent: { min: 0, max: 100 },
  respiratory_rate_per_min: { min: 1, max: 150 },
  vo2max: { min: 5, max: 100 },
  weight_kg: { min: 0.2, max: 650 },
  /** A weight lifted in one set (a bodyweight set lifts 0 kg more); beyond the records. */
  lifted_weight_kg: { min: 0, max: 1500 },
  /** Repetitions in one set. */
  reps: { min: 0, max: 10_000 },
  /** A rating of perceived exertion (scales of 0–10 and 6–20 are in use). */
  rpe: { min: 0, max: 20 },
  height_cm: { min: 20, max: 280 },
  bmi: { min: 5, max: 200 },
  body_fat_percent: { min: 0, max: 100 },
  systolic_mmhg: { min: 30, max: 320 },
  diastolic_mmhg: { min: 10, max: 250 },
  glucose_mg_dl: { min: 5, max: 2000 },
  /** Ambient, skin or body: the coldest and hottest air a device has recorded to a fever's top. */
  temperature_celsius: { min: -90, max: 70 },
  steps: { min: 0, max: 250_000 },
  distance_m: { min: 0, max: 2_000_000 },
  energy_kcal: { min: 0, max: 100_000 },
  floors: { min: 0, max: 10_000 },
  water_ml: { min: 0, max: 50_000 },
  grams: { min: 0, max: 10_000 },
  milligrams: { min: 0, max: 10_000_000 },
  minutes_of_day: { min: 0, max: 1440 },
  hours_of_day: { min: 0, max: 24 },
  /** A workout or a sleep: a week is beyond any real one. */
  duration_seconds: { min: 0, max: 7 * 86_400 },
} as const satisfies Record<string, { min: number; max: number }>;

export type Metric = keyof typeof PHYSICAL_RANGES;

/** Why `value` cannot be a `metric`, or null when it can (or is absent). */
export function valueProblem(metric: Metric, value: number | null | undefined, field: string): string | null {
  if (value === null || value === undefined) return null;
  const range = PHYSICAL_RANGES[metric];
  if (!Number.isFinite(value) || value < range.min || value > range.max)
    return `${field} ${value} is outside ${range.min}…${range.max} (${metric})`;
  return null;
}

/** Fields of the unified model and the metric each holds (wherever they sit in a record). */
const MODEL_FIELDS: Record<string, Metric> = {
  bpm: 'heart_rate_bpm',
  hr_bpm: 'heart_rate_bpm',
  avg_hr_bpm: 'heart_rate_bpm',
  max_hr_bpm: 'heart_rate_bpm',
  min_hr_bpm: 'heart_rate_bpm',
  resting_hr_bpm: 'heart_rate_bpm',
  weight_kg: 'weight_kg',
  day_avg_weight_kg: 'weight_kg',
  height_cm: 'height_cm',
  day_avg_height_cm: 'height_cm',
  bmi: 'bmi',
  day_avg_bmi: 'bmi',
  bodyfat_percentage: 'body_fat_percent',
  day_avg_bodyfat_percentage: 'body_fat_percent',
  avg_saturation_percentage: 'oxygen_saturation_percent',
  systolic_bp: 'systolic_mmhg',
  diastolic_bp: 'diastolic_mmhg',
  day_avg_systolic_bp: 'systolic_mmhg',
  day_avg_diastolic_bp: 'diastolic_mmhg',
  blood_glucose_mg_per_dL: 'glucose_mg_dl',
  day_avg_blood_glucose_mg_per_dL: 'glucose_mg_dl',
  temperature_celsius: 'temperature_celsius',
  breaths_per_min: 'respiratory_rate_per_min',
  avg_breaths_per_min: 'respiratory_rate_per_min',
  vo2max_ml_per_min_per_kg: 'vo2max',
};

/** Fields of an activity's `strength_data` (exercises and sets), which mean other things there. */
const STRENGTH_FIELDS: Record<string, Metric> = {
  weight_kg: 'lifted_weight_kg',
  reps: 'reps',
  rpe: 'rpe',
  duration_seconds: 'duration_seconds',
  distance_meters: 'distance_m',
};

/** Record-level times checked against the window (sample timestamps sit inside them). */
const RECORD_TIMES = ['start_time', 'end_time'] as const;
/** A record nests a few levels; samples add one array. Deeper than this is not walked. */
const MAX_WALK_DEPTH = 12;

/** Where the walk stands in a record's `strength_data` (whose fields mean other things there). */
const NOT_STRENGTH = 0;
/** At the path `strength_data` itself. */
const IS_STRENGTH = 1;
/** Under `strength_data.` (a path through its keys). */
const UNDER_STRENGTH = 2;

/**
 * A value the walk is to look at, and how it was reached: its path (`samples[3].bpm`) is written
 * out only for a problem's message, not built as a string for every value of every sample.
 */
type Step = {
  value: unknown;
  up: Step | null;
  key: string | number;
  depth: number;
  strength: typeof NOT_STRENGTH | typeof IS_STRENGTH | typeof UNDER_STRENGTH;
};

function pathOf(step: Step): string {
  if (step.up === null) return '';
  const above = pathOf(step.up);
  if (typeof step.key === 'number') return `${above}[${step.key}]`;
  return above === '' ? step.key : `${above}.${step.key}`;
}

const fieldOf = (step: Step, key: string) => {
  const path = pathOf(step);
  return path === '' ? key : `${path}.${key}`;
};

/**
 * Why a normalized record of the unified model cannot be believed, or null: its metadata times
 * outside the window, or a known field (anywhere in it, samples included) outside its range.
 */
export function recordProblem(record: unknown, nowMs: number): string | null {
  if (typeof record !== 'object' || record === null) return null;
  const metadata = (record as { metadata?: Record<string, unknown> }).metadata;
  if (metadata && typeof metadata === 'object') {
    for (const field of RECORD_TIMES) {
      const text = metadata[field];
      if (typeof text !== 'string') continue;
      const problem = dateTextProblem(text, nowMs, `metadata.${field}`);
      if (problem) return problem;
    }
  }
  const stack: Step[] = [{ value: record, up: null, key: '', depth: 0, strength: NOT_STRENGTH }];
  while (stack.length > 0) {
    const step = stack.pop()!;
    const { value, depth } = step;
    if (depth > MAX_WALK_DEPTH || typeof value !== 'object' || value === null) continue;
    if (Array.isArray(value)) {
      // `strength_data[0]` is not under `strength_data.`: only a path through its keys is.
      const strength = step.strength === UNDER_STRENGTH ? UNDER_STRENGTH : NOT_STRENGTH;
      for (let index = 0; index < value.length; index++)
        stack.push({ value: value[index], up: step, key: index, depth: depth + 1, strength });
      continue;
    }
    const root = step.up === null;
    // Own enumerable keys, as Object.entries gives them, without an array of pairs per object.
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      const item = (value as Record<string, unknown>)[key];
      // At the top the field is the key itself (a key `strength_data.x` is under it too).
      const under = step.strength !== NOT_STRENGTH || (root && key.startsWith('strength_data.'));
      const metric = (under ? STRENGTH_FIELDS : MODEL_FIELDS)[key];
      if (metric && typeof item === 'number') {
        // The field's path is written only for a value found outside its range.
        if (valueProblem(metric, item, '') !== null) return valueProblem(metric, item, fieldOf(step, key));
      } else if (typeof item === 'object' && item !== null) {
        const strength = under
          ? UNDER_STRENGTH
          : root && key === 'strength_data'
            ? IS_STRENGTH
            : NOT_STRENGTH;
        stack.push({ value: item, up: step, key, depth: depth + 1, strength });
      }
    }
  }
  return null;
}
