// Intraday signals of a daily record: heart rate, stress and body battery.
import type { DayContext } from './context.ts';
import { BIN_COUNT, BIN_MINUTES, type DayTimeline } from './day-timeline.ts';
import type { Random } from './random.ts';
import { clamp, round, sum } from './series.ts';
import { WORKOUT_SAMPLE_SECONDS } from './workouts.ts';

const BIN_SECONDS = BIN_MINUTES * 60;
export const FIVE_MINUTES_MS = 300_000;

/** Heart rate every five minutes (workout values where a workout runs) and hourly HRV. */
export function heartRateSeries(context: DayContext, timeline: DayTimeline, random: Random) {
  const { profile } = context;
  const bpm: number[] = [];
  const active: boolean[] = [];
  for (let at = context.startMs; at < context.endMs; at += FIVE_MINUTES_MS) {
    const bin = Math.floor((at - context.startMs) / (BIN_SECONDS * 1000));
    const workout = timeline.workouts.find(
      (series) => at >= series.plan.startMs && at <= series.plan.startMs + series.plan.durationSeconds * 1000,
    );
    if (workout) {
      const index = Math.round((at - workout.plan.startMs) / (WORKOUT_SAMPLE_SECONDS * 1000));
      bpm.push(workout.heartRate[index] ?? profile.restingHr);
      active.push(true);
    } else if (timeline.asleep[bin]) {
      bpm.push(Math.round(profile.restingHr - 1 + random.normal(0, 1.5)));
      active.push(false);
    } else {
      bpm.push(
        Math.round(profile.restingHr + 14 + 9 * ((timeline.met[bin] ?? 1.2) - 1.2) + random.normal(0, 3)),
      );
      active.push(false);
    }
  }
  const hrv = Array.from({ length: 24 }, (_, hour) =>
    round(profile.baselineHrvMs * (timeline.asleep[hour * 4] ? 1.15 : 0.85) + random.normal(0, 4), 1),
  );
  return { bpm, active, hrv };
}

/** Stress (0-100) for awake bins outside workouts; workouts count as activity stress. */
export function stressSeries(timeline: DayTimeline, random: Random) {
  const bins: number[] = [];
  const levels: number[] = [];
  let activityBins = 0;
  let drift = 0;
  for (let bin = 0; bin < BIN_COUNT; bin++) {
    if (timeline.inWorkout[bin]) activityBins++;
    if (timeline.asleep[bin] || timeline.inWorkout[bin]) continue;
    drift = 0.7 * drift + random.normal(0, 8);
    bins.push(bin);
    levels.push(Math.round(clamp(30 + drift + 8 * Math.sin((bin / BIN_COUNT) * 2 * Math.PI), 1, 100)));
  }
  if (levels.length === 0) levels.push(25);
  return { bins, levels, activityBins };
}

/** Body battery: charges while asleep, drains with time awake, stress and training. */
export function bodyBattery(timeline: DayTimeline, stressLevels: readonly number[]): number[] {
  const levels: number[] = [];
  let level = 20 + timeline.previousNight.readiness * 0.3;
  const averageStress = sum(stressLevels) / Math.max(1, stressLevels.length);
  for (let bin = 0; bin < BIN_COUNT; bin++) {
    if (timeline.asleep[bin]) level += 1.8;
    else if (timeline.inWorkout[bin]) level -= 2.5;
    else level -= 0.35 + averageStress / 150;
    level = clamp(level, 5, 100);
    levels.push(Math.round(level));
  }
  return levels;
}
