// Summaries of a simulated workout, each computed from the same rounded series that become
// its samples (see generate.ts for the rules a test checks).
import type { Static } from 'typebox';
import { ActivityLevel } from '../../model/enums.ts';
import type { LapSample } from '../../model/samples.ts';
import type { DayContext } from './context.ts';
import { max, mean, min, round, sum } from './series.ts';
import { WORKOUT_SAMPLE_SECONDS, type WorkoutSeries } from './workouts.ts';

type Lap = Static<typeof LapSample>;

/** Upper bounds (percent of max HR) of zones 0-5; zone 5 takes everything above 90 %. */
const ZONE_BOUNDS = [50, 60, 70, 80, 90, Number.POSITIVE_INFINITY] as const;

export interface ZoneDuration {
  zone: 0 | 1 | 2 | 3 | 4 | 5;
  start_percentage: number;
  end_percentage: number;
  name: string;
  duration_seconds: number;
}

/**
 * Time in each heart-rate zone. Sample i (i >= 1) stands for the interval ending at it, so the
 * zone durations add up to the workout's duration.
 */
export function zoneDurations(series: WorkoutSeries, maxHr: number): ZoneDuration[] {
  const seconds = [0, 0, 0, 0, 0, 0];
  for (let i = 1; i <= series.intervals; i++) {
    const percent = ((series.heartRate[i] ?? 0) / maxHr) * 100;
    const zone = ZONE_BOUNDS.findIndex((bound) => percent < bound);
    seconds[zone] = (seconds[zone] ?? 0) + WORKOUT_SAMPLE_SECONDS;
  }
  return seconds.map((duration, zone) => ({
    zone: zone as ZoneDuration['zone'],
    start_percentage: zone === 0 ? 0 : (ZONE_BOUNDS[zone - 1] ?? 0),
    end_percentage: zone === 5 ? 100 : (ZONE_BOUNDS[zone] ?? 100),
    name: `Zone ${zone}`,
    duration_seconds: duration,
  }));
}

/** Sample indices where laps end: every `lapMeters` of distance, the last lap at the finish. */
export function lapBoundaries(series: WorkoutSeries): number[] {
  const { distance } = series;
  const lapMeters = series.plan.kind.lapMeters;
  const ends: number[] = [];
  if (distance && lapMeters) {
    let next = lapMeters;
    for (let i = 1; i < series.intervals; i++) {
      if ((distance[i] ?? 0) >= next) {
        ends.push(i);
        next += lapMeters;
      }
    }
  }
  ends.push(series.intervals);
  return ends;
}

export function laps(context: DayContext, series: WorkoutSeries): Lap[] {
  const { plan, distance, heartRate, calories, power, strokes } = series;
  const result: Lap[] = [];
  let start = 0;
  for (const end of lapBoundaries(series)) {
    const lapSeconds = (end - start) * WORKOUT_SAMPLE_SECONDS;
    const lapDistance = distance ? round((distance[end] ?? 0) - (distance[start] ?? 0), 2) : 0;
    const isLast = end === series.intervals;
    result.push({
      calories: round(sum(calories, start + 1, end + 1), 2),
      avg_hr_bpm: round(mean(heartRate, start + 1, end + 1), 2),
      start_time: context.time(plan.startMs + start * WORKOUT_SAMPLE_SECONDS * 1000),
      end_time: context.time(plan.startMs + end * WORKOUT_SAMPLE_SECONDS * 1000),
      avg_speed_meters_per_second: round(lapDistance / lapSeconds, 2),
      distance_meters: lapDistance,
      total_strokes: strokes ? sum(strokes, start + 1, end + 1) : null,
      stroke_type: plan.kind.key === 'swim' ? 'freestyle' : null,
      active_duration_seconds: lapSeconds,
      avg_watts: power ? round(mean(power, start + 1, end + 1), 2) : null,
      trigger_method: isLast || !plan.kind.lapMeters ? 'SESSION_END' : 'DISTANCE',
    });
    start = end;
  }
  return result;
}

export function elevationSummary(elevation: Float64Array) {
  let gain = 0;
  let loss = 0;
  for (let i = 1; i < elevation.length; i++) {
    const change = (elevation[i] ?? 0) - (elevation[i - 1] ?? 0);
    if (change > 0) gain += change;
    else loss -= change;
  }
  return {
    avg_meters: round(mean(elevation), 2),
    gain_actual_meters: round(gain, 2),
    gain_planned_meters: null,
    loss_actual_meters: round(loss, 2),
    max_meters: max(elevation),
    min_meters: min(elevation),
  };
}

/** Per-minute MET bands, as the model's MET and active-duration summaries count them. */
export function metBands(minuteMet: ArrayLike<number>) {
  let high = 0;
  let moderate = 0;
  let low = 0;
  let inactive = 0;
  for (let i = 0; i < minuteMet.length; i++) {
    const met = minuteMet[i] ?? 0;
    if (met >= 6) high++;
    else if (met >= 3) moderate++;
    else if (met >= 1.5) low++;
    else inactive++;
  }
  return { high, moderate, low, inactive };
}

export function activityLevelForMet(met: number) {
  if (met >= 6) return ActivityLevel.HIGH;
  if (met >= 3) return ActivityLevel.MEDIUM;
  if (met >= 1.5) return ActivityLevel.LOW;
  return ActivityLevel.INACTIVE;
}

/** Banister TRIMP from heart-rate reserve (women's weighting), per interval. */
export function trimp(series: WorkoutSeries, restingHr: number, maxHr: number): number {
  let total = 0;
  for (let i = 1; i <= series.intervals; i++) {
    const reserve = ((series.heartRate[i] ?? restingHr) - restingHr) / (maxHr - restingHr);
    total += (WORKOUT_SAMPLE_SECONDS / 60) * reserve * 0.86 * Math.exp(1.67 * reserve);
  }
  return round(total, 2);
}

/** Strain on a 0-21 scale that saturates like the wearables that popularised it. */
export function strainFromTrimp(trimpScore: number): number {
  return round(21 * (1 - Math.exp(-trimpScore / 150)), 2);
}

/** Training stress: power-based for rides, heart-rate-based otherwise. */
export function trainingStress(series: WorkoutSeries, ftpWatts: number, restingHr: number, maxHr: number) {
  const hours = series.plan.durationSeconds / 3600;
  if (series.power) {
    let fourth = 0;
    for (let i = 1; i <= series.intervals; i++) fourth += (series.power[i] ?? 0) ** 4;
    const normalizedPower = round((fourth / series.intervals) ** 0.25, 2);
    const intensityFactor = round(normalizedPower / ftpWatts, 3);
    return {
      planned: null,
      actual: round(hours * intensityFactor * intensityFactor * 100, 2),
      method: 'power',
      intensity_factor_planned: null,
      intensity_factor_actual: intensityFactor,
      normalized_power_watts: normalizedPower,
    };
  }
  const averageReserve = (mean(series.heartRate, 1) - restingHr) / (maxHr - restingHr);
  const intensityFactor = round(averageReserve / 0.85, 3);
  return {
    planned: null,
    actual: round(hours * intensityFactor * intensityFactor * 100, 2),
    method: 'heart_rate',
    intensity_factor_planned: null,
    intensity_factor_actual: intensityFactor,
    normalized_power_watts: null,
  };
}
