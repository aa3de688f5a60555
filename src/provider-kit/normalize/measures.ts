// What is a measurement and what is not. Real payloads carry placeholders where a sensor had
// nothing to say: heart rates of 0 or 255 (an unset byte) for naps without a heart-rate series
// or workouts recorded without a strap, zeros the user typed into a manual entry. Reading them
// as values puts a 0 bpm minimum or a 255 bpm maximum into a record, and builds zones from them.
// These helpers turn placeholders into null; the stream helpers take maxima from samples when a
// summary omits them, skipping the same placeholders.

/** Heart rates outside this range are no reading (0, 255 and the like), never a bpm. */
const MIN_BPM = 20;
const MAX_BPM = 250;

/** A heart rate that is a reading, else null (0, 255, negative, NaN, absent). */
export function heartRate(value: number | null | undefined): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= MIN_BPM && value <= MAX_BPM
    ? value
    : null;
}

/** A positive measurement, else null: for values where 0 means "not measured" (a typed 0 m). */
export function positiveOrNull(value: number | null | undefined): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : null;
}

/**
 * A number from a provider that may send numbers as strings (`"123.4"`) or null; null for
 * anything that is not a finite number.
 */
export function numeric(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && value.trim() !== '') {
    const parsed = Number(value);
    return Number.isFinite(parsed) ? parsed : null;
  }
  return null;
}

/** The largest value of `key` over samples; null when none has one. */
export function maxOf<S, K extends keyof S>(samples: readonly S[] | null | undefined, key: K): number | null {
  let max: number | null = null;
  for (const sample of samples ?? []) {
    const value = sample[key];
    if (typeof value === 'number' && Number.isFinite(value) && (max === null || value > max)) max = value;
  }
  return max;
}

/** The smallest value of `key` over samples; null when none has one. */
export function minOf<S, K extends keyof S>(samples: readonly S[] | null | undefined, key: K): number | null {
  let min: number | null = null;
  for (const sample of samples ?? []) {
    const value = sample[key];
    if (typeof value === 'number' && Number.isFinite(value) && (min === null || value < min)) min = value;
  }
  return min;
}

/** The summary's value when it has one, else the one computed from the samples. */
export function orFromSamples(summary: number | null | undefined, fromSamples: number | null): number | null {
  return typeof summary === 'number' && Number.isFinite(summary) ? summary : fromSamples;
}

/**
 * Whether a sensor channel of a recording read anything: some sample of `key` is a positive
 * number. A channel whose samples are absent, or all 0 (a device writing 0 for "no sensor"),
 * had no sensor.
 */
export function sensorRead<S, K extends keyof S>(samples: readonly S[] | null | undefined, key: K): boolean {
  for (const sample of samples ?? []) {
    const value = sample[key];
    if (typeof value === 'number' && Number.isFinite(value) && value > 0) return true;
  }
  return false;
}

/**
 * A summary figure that sources fill with 0 when the recording had no sensor for it: a ride
 * without a cadence sensor or power meter still carries `cadence_avg "0.0"`, normalized power,
 * TSS and work of 0 (Wahoo), `cadence {avg: 0, max: 0}` (Suunto). A non-zero value passes; a 0
 * is a measurement only when the recording's samples show the sensor read (`read`, from
 * `sensorRead`); without samples to check, a 0 is no measurement (a wrong value is worse than a
 * missing one).
 */
export function sensorFigure(value: number | null | undefined, read: boolean): number | null {
  if (typeof value !== 'number' || !Number.isFinite(value)) return null;
  return value !== 0 || read ? value : null;
}
