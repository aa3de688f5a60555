// Numeric helpers shared by the generators. Values are rounded once, when a series is built,
// and every summary is computed from the rounded series, so summaries and samples agree
// exactly (see the rules in generate.ts).

export function round(value: number, decimals = 2): number {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
}

export function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

export function sum(values: ArrayLike<number>, from = 0, to = values.length): number {
  let total = 0;
  for (let index = from; index < to; index++) total += values[index] ?? 0;
  return total;
}

export function mean(values: ArrayLike<number>, from = 0, to = values.length): number {
  return to > from ? sum(values, from, to) / (to - from) : 0;
}

export function max(values: ArrayLike<number>): number {
  let result = Number.NEGATIVE_INFINITY;
  for (let index = 0; index < values.length; index++) result = Math.max(result, values[index] ?? result);
  return result;
}

export function min(values: ArrayLike<number>): number {
  let result = Number.POSITIVE_INFINITY;
  for (let index = 0; index < values.length; index++) result = Math.min(result, values[index] ?? result);
  return result;
}

/** Linear-interpolated percentile (0-100) of an already sorted list. */
export function percentile(sorted: readonly number[], rank: number): number {
  if (sorted.length === 0) return 0;
  const position = (rank / 100) * (sorted.length - 1);
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  const low = sorted[lower] ?? 0;
  const high = sorted[upper] ?? low;
  return low + (high - low) * (position - lower);
}

/**
 * Splits an integer `total` into integer parts proportional to `weights` that add up to
 * `total` exactly (largest remainder method).
 */
export function apportion(total: number, weights: readonly number[]): number[] {
  const weightSum = weights.reduce((accumulated, weight) => accumulated + weight, 0);
  if (weightSum <= 0 || total <= 0) return weights.map(() => 0);
  const exact = weights.map((weight) => (total * weight) / weightSum);
  const parts = exact.map(Math.floor);
  let missing = total - parts.reduce((accumulated, part) => accumulated + part, 0);
  const byRemainder = exact.map((value, index) => [value - Math.floor(value), index] as const);
  byRemainder.sort((left, right) => right[0] - left[0] || left[1] - right[1]);
  for (const [, index] of byRemainder) {
    if (missing <= 0) break;
    parts[index] = (parts[index] ?? 0) + 1;
    missing--;
  }
  return parts;
}
