// Unit conversions shared by the provider normalizers (docs/providers.md#units). Kept as
// plain functions over numbers so the per-sample loops stay monomorphic and allocation-free.

/** Thermochemical calorie: 1 kcal = 4.184 kJ (the factor every provider here documents). */
export const KJ_PER_KCAL = 4.184;

export function kilojoulesToKilocalories(kilojoules: number): number {
  return kilojoules / KJ_PER_KCAL;
}

export function kilocaloriesToKilojoules(kilocalories: number): number {
  return kilocalories * KJ_PER_KCAL;
}

export function millisecondsToSeconds(milliseconds: number): number {
  return milliseconds / 1000;
}

export function secondsToMinutes(seconds: number): number {
  return seconds / 60;
}

export function metersToCentimeters(meters: number): number {
  return meters * 100;
}

/** Pace for a speed; null for a standstill, where pace is undefined rather than infinite. */
export function paceMinutesPerKilometer(metersPerSecond: number): number | null {
  return metersPerSecond > 0 ? 1000 / metersPerSecond / 60 : null;
}

/** `value` when it is a finite number, else null: providers send null, omit, or (rarely) NaN-ish strings. */
export function finiteOrNull(value: number | null | undefined): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** Applies `convert` to a present number, passing absence through as null. */
export function convertOrNull(
  value: number | null | undefined,
  convert: (value: number) => number,
): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? convert(value) : null;
}

/** Sum of the present numbers; null when none is present (so "unknown" never reads as 0). */
export function sumOrNull(...values: (number | null | undefined)[]): number | null {
  let total = 0;
  let seen = false;
  for (const value of values) {
    if (typeof value === 'number' && Number.isFinite(value)) {
      total += value;
      seen = true;
    }
  }
  return seen ? total : null;
}
