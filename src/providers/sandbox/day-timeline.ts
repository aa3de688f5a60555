// A day cut into 15-minute bins: what the athlete was doing in each (asleep, in a workout, or
// moving about), and how much of the day's movement falls into it. Daily records are built
// from these bins, so their samples add up to their totals.

import { workoutsOfDay } from './activity.ts';
import { type BackgroundActivity, backgroundActivity } from './background.ts';
import { type DayContext, shiftedContext } from './context.ts';
import { apportion } from './series.ts';
import { type SleepSession, sleepSessions } from './sleep.ts';
import { napWindow, sleepWindow, type TimeWindow } from './sleep-window.ts';
import { WORKOUT_SAMPLE_SECONDS, type WorkoutSeries } from './workouts.ts';

export const BIN_MINUTES = 15;
export const BIN_COUNT = (24 * 60) / BIN_MINUTES;
const BIN_MS = BIN_MINUTES * 60_000;

export interface DayTimeline {
  workouts: WorkoutSeries[];
  background: BackgroundActivity;
  /** The night that ended this morning (started the evening before). */
  previousNight: SleepSession;
  sleepWindows: TimeWindow[];
  asleep: boolean[];
  /** Bin has at least part of a workout. */
  inWorkout: boolean[];
  steps: number[];
  distance: number[];
  floors: number[];
  /** Active kcal above resting, per bin. */
  activeCalories: number[];
  /** Mean MET of the bin. */
  met: number[];
}

export function binStartMs(context: DayContext, bin: number): number {
  return context.startMs + bin * BIN_MS;
}

function overlaps(startMs: number, endMs: number, window: TimeWindow): boolean {
  return startMs < window.endMs && endMs > window.startMs;
}

/** Daytime movement is concentrated around the commute, lunch and the evening. */
function diurnalWeight(hour: number): number {
  const bump = (center: number, width: number) => Math.exp(-(((hour - center) / width) ** 2));
  return 0.3 + bump(8, 1) + 0.8 * bump(12.5, 0.8) + bump(17.5, 1.2) + 0.4 * bump(20, 1);
}

export function dayTimeline(context: DayContext): DayTimeline {
  const workouts = workoutsOfDay(context);
  const background = backgroundActivity(context.seed, context.date);
  const previous = shiftedContext(context, -1);
  const previousNight = sleepSessions(previous)[0];
  if (!previousNight) throw new Error('no night before');
  const nap = napWindow(context.seed, context.date, context.offsetMinutes);
  const sleepWindows = [
    previousNight.window,
    sleepWindow(context.seed, context.date, context.offsetMinutes),
    ...(nap ? [nap] : []),
  ];
  const asleep: boolean[] = [];
  const inWorkout: boolean[] = [];
  const weights: number[] = [];
  for (let bin = 0; bin < BIN_COUNT; bin++) {
    const start = binStartMs(context, bin);
    const sleeping = sleepWindows.some((window) => overlaps(start, start + BIN_MS, window));
    const training = workouts.some((series) =>
      overlaps(start, start + BIN_MS, {
        startMs: series.plan.startMs,
        endMs: series.plan.startMs + series.plan.durationSeconds * 1000,
      }),
    );
    asleep.push(sleeping);
    inWorkout.push(training);
    weights.push(sleeping || training ? 0 : diurnalWeight((bin * BIN_MINUTES) / 60));
  }
  const steps = apportion(background.steps, weights);
  const floors = apportion(background.floors_climbed, weights);
  const distance = steps.map((count) => (background.distance_meters * count) / background.steps);
  const activeCalories = steps.map((count) => (background.net_activity_calories * count) / background.steps);
  const workoutMetMinutes = new Array<number>(BIN_COUNT).fill(0);
  const workoutMinutes = new Array<number>(BIN_COUNT).fill(0);
  for (const series of workouts)
    addWorkout(context, series, { steps, distance, activeCalories, workoutMetMinutes, workoutMinutes });
  const met = steps.map((count, bin) => {
    const restingMinutes = BIN_MINUTES - (workoutMinutes[bin] ?? 0);
    // Light activity (1.5 MET) from ~120 steps in a bin, moderate (3 MET) from ~720.
    const restingMet = asleep[bin] ? 0.95 : 1.2 + count / 400;
    return ((workoutMetMinutes[bin] ?? 0) + restingMet * restingMinutes) / BIN_MINUTES;
  });
  return {
    workouts,
    background,
    previousNight,
    sleepWindows,
    asleep,
    inWorkout,
    steps,
    distance,
    floors,
    activeCalories,
    met,
  };
}

interface BinTotals {
  steps: number[];
  distance: number[];
  activeCalories: number[];
  workoutMetMinutes: number[];
  workoutMinutes: number[];
}

/** Adds each workout interval to the bin its end falls in; minute METs likewise. */
function addWorkout(context: DayContext, series: WorkoutSeries, totals: BinTotals): void {
  const { plan, distance, calories } = series;
  const restingPerInterval = (context.profile.bmrKcalPerDay * WORKOUT_SAMPLE_SECONDS) / 86_400;
  const binOf = (endMs: number) =>
    Math.min(BIN_COUNT - 1, Math.floor((endMs - 1 - context.startMs) / BIN_MS));
  for (let i = 1; i <= series.intervals; i++) {
    const bin = binOf(plan.startMs + i * WORKOUT_SAMPLE_SECONDS * 1000);
    totals.steps[bin] = (totals.steps[bin] ?? 0) + (series.steps[i] ?? 0);
    totals.distance[bin] =
      (totals.distance[bin] ?? 0) + (distance ? (distance[i] ?? 0) - (distance[i - 1] ?? 0) : 0);
    totals.activeCalories[bin] = (totals.activeCalories[bin] ?? 0) + (calories[i] ?? 0) - restingPerInterval;
  }
  series.minuteMet.forEach((met, minute) => {
    const bin = binOf(plan.startMs + (minute + 1) * 60_000);
    totals.workoutMetMinutes[bin] = (totals.workoutMetMinutes[bin] ?? 0) + met;
    totals.workoutMinutes[bin] = (totals.workoutMinutes[bin] ?? 0) + 1;
  });
}
