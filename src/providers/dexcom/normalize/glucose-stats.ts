// Glucose statistics the model's glucose_data carries, computed from CGM readings (mg/dL):
// day average, time in range, GMI and the hour-of-day percentile profile (an AGP's "daily
// patterns"). Rounded like the sandbox provider's, so both sources read alike.

/** The consensus target range, mg/dL, both ends inclusive. */
export const RANGE_LOW = 70;
export const RANGE_HIGH = 180;

export function round(value: number, decimals: number): number {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
}

/** Glucose management indicator, %: 3.31 + 0.02392 × mean glucose in mg/dL (Bergenstal 2018). */
export function gmiOf(meanMgPerDl: number): number {
  return 3.31 + 0.02392 * meanMgPerDl;
}

/** Linearly interpolated percentile (0-100) of an ascending list; the method of R's type 7. */
export function percentile(sorted: readonly number[], rank: number): number {
  if (sorted.length === 0) return Number.NaN;
  const position = (rank / 100) * (sorted.length - 1);
  const lower = Math.floor(position);
  const low = sorted[lower] as number;
  const high = sorted[Math.min(lower + 1, sorted.length - 1)] as number;
  return low + (high - low) * (position - lower);
}

export type DaySummary = {
  day_avg_blood_glucose_mg_per_dL: number | null;
  gmi: number | null;
  time_in_range: number | null;
  sensor_usage: number;
};

/**
 * A day's summary. `values` are the readings with a number; `outOfRangeHigh`/`outOfRangeLow`
 * count readings the sensor reported only as above/below its range (no number): they belong
 * outside the target range but cannot enter an average.
 */
export function daySummary(values: readonly number[], outOfRangeHigh = 0, outOfRangeLow = 0): DaySummary {
  const readings = values.length + outOfRangeHigh + outOfRangeLow;
  if (values.length === 0) {
    return {
      day_avg_blood_glucose_mg_per_dL: null,
      gmi: null,
      time_in_range: readings ? 0 : null,
      sensor_usage: readings,
    };
  }
  let total = 0;
  let inRange = 0;
  for (const value of values) {
    total += value;
    if (value >= RANGE_LOW && value <= RANGE_HIGH) inRange++;
  }
  const mean = total / values.length;
  return {
    day_avg_blood_glucose_mg_per_dL: round(mean, 2),
    gmi: round(gmiOf(mean), 2),
    time_in_range: round((inRange / readings) * 100, 2),
    sensor_usage: readings,
  };
}

export type DailyPattern = {
  time_from_midnight: number;
  percentile_5: number;
  percentile_25: number;
  percentile_50: number;
  percentile_75: number;
  percentile_95: number;
};

/** Percentiles per local hour of day across every day given; hours without readings are left out. */
export function dailyPatterns(byHour: readonly (readonly number[])[]): DailyPattern[] {
  const patterns: DailyPattern[] = [];
  for (let hour = 0; hour < 24; hour++) {
    const values = byHour[hour];
    if (!values || values.length === 0) continue;
    const sorted = [...values].sort((left, right) => left - right);
    patterns.push({
      time_from_midnight: hour,
      percentile_5: round(percentile(sorted, 5), 1),
      percentile_25: round(percentile(sorted, 25), 1),
      percentile_50: round(percentile(sorted, 50), 1),
      percentile_75: round(percentile(sorted, 75), 1),
      percentile_95: round(percentile(sorted, 95), 1),
    });
  }
  return patterns;
}
