// A day of continuous glucose readings that respond to the day's meals and workouts.
import { GlucoseFlag, TrendArrow } from '../../model/enums.ts';
import type { DayContext } from './context.ts';
import { mealsOfDay } from './nutrition.ts';
import { Random } from './random.ts';
import { clamp, mean, percentile, round } from './series.ts';
import type { WorkoutSeries } from './workouts.ts';

/** CGM cadence; `blood_glucose_samples` take every third reading (15 min). */
export const GLUCOSE_INTERVAL_MS = 300_000;
const READINGS_PER_DAY = 288;

export interface GlucoseDay {
  times: number[];
  values: number[];
}

export function glucoseDay(context: DayContext, workouts: readonly WorkoutSeries[]): GlucoseDay {
  const random = new Random(context.seed, context.date, 'glucose');
  const meals = mealsOfDay(context).map((meal) => ({
    atMs: meal.atMs,
    carbohydrates: meal.foods.reduce((sum, { food, portion }) => sum + food.carbohydrates * portion, 0),
  }));
  const times: number[] = [];
  const values: number[] = [];
  let noise = 0;
  for (let index = 0; index < READINGS_PER_DAY; index++) {
    const at = context.startMs + index * GLUCOSE_INTERVAL_MS;
    let value = context.profile.fastingGlucose;
    for (const meal of meals) {
      const minutes = (at - meal.atMs) / 60_000;
      // Gamma-like curve: peaks about 45 min after eating, gone after ~3 h.
      if (minutes > 0) value += 0.45 * meal.carbohydrates * (minutes / 45) * Math.exp(1 - minutes / 45);
    }
    for (const series of workouts) {
      const minutes = (at - series.plan.startMs) / 60_000;
      if (minutes > 0 && minutes < series.plan.durationSeconds / 60 + 60) value -= 12 * series.plan.intensity;
    }
    noise = 0.8 * noise + random.normal(0, 2);
    times.push(at);
    values.push(Math.round(clamp(value + noise, 55, 260)));
  }
  return { times, values };
}

export function glucoseFlag(value: number) {
  if (value > 180) return GlucoseFlag.HIGH;
  if (value < 70) return GlucoseFlag.LOW;
  return GlucoseFlag.NORMAL;
}

/** Trend from the change over the last 15 minutes, in mg/dL per minute. */
export function trendArrow(values: readonly number[], index: number) {
  if (index < 3) return TrendArrow.UNKNOWN;
  const slope = ((values[index] ?? 0) - (values[index - 3] ?? 0)) / 15;
  if (slope < -2) return TrendArrow.FALLING_QUICKLY;
  if (slope < -1) return TrendArrow.FALLING;
  if (slope <= 1) return TrendArrow.FLAT;
  if (slope <= 2) return TrendArrow.RISING;
  return TrendArrow.RISING_QUICKLY;
}

export function glucoseSummary(day: GlucoseDay) {
  const average = mean(day.values);
  const inRange = day.values.filter((value) => value >= 70 && value <= 180).length;
  const daily_patterns = Array.from({ length: 24 }, (_, hour) => {
    const sorted = day.values.slice(hour * 12, hour * 12 + 12).sort((left, right) => left - right);
    return {
      time_from_midnight: hour,
      percentile_5: round(percentile(sorted, 5), 1),
      percentile_25: round(percentile(sorted, 25), 1),
      percentile_50: round(percentile(sorted, 50), 1),
      percentile_75: round(percentile(sorted, 75), 1),
      percentile_95: round(percentile(sorted, 95), 1),
    };
  });
  return {
    day_avg_blood_glucose_mg_per_dL: round(average, 2),
    gmi: round(3.31 + 0.02392 * average, 2),
    time_in_range: round((inRange / day.values.length) * 100, 2),
    sensor_usage: day.values.length,
    daily_patterns,
  };
}
