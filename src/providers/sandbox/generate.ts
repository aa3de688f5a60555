// Deterministic sandbox data for every historical data type.
//
// Determinism: a day's records are a pure function of (seed, date, timezone offset,
// withSamples). Nothing runs across days, so generating a sub-range yields exactly the
// corresponding slice of a larger range, and the same inputs give byte-identical JSON.
//
// Ranges: `startDate` is inclusive, `endDate` exclusive (`2024-01-01`..`2024-01-31` is 30 days,
// like the rate-limit cost). A record belongs to the local day of its anchor time (see
// `dataTypes[type].anchorTime`): activities and sleep by their start, day records by their
// day, hormone tests by their timestamp, planned workouts by their planned date.
//
// `withSamples: false` empties exactly the arrays listed in `samplePaths`; every summary value
// is the same either way (summaries are computed from the full series in both cases).
//
// Sample timing: workouts are sampled every WORKOUT_SAMPLE_SECONDS (30 s) from start to end
// inclusive, with `timer_duration_seconds` = time since the start; daily series use 15-minute
// bins (heart rate every 5 min). Amount samples (steps, calories) hold what happened in the
// interval starting at their timestamp; cumulative samples (distance, floors) hold the total up
// to their timestamp; readings (heart rate, speed, levels) hold the value at their timestamp.
//
// Consistency rules a caller (and test/unit/sandbox-generate.test.ts) can rely on:
// - Activity: avg/max/min of a sample series equal the summary (averages rounded to 2
//   decimals); distance samples are cumulative and the last one is `distance_meters`; lap
//   distances add up to it; heart-rate zone durations add up to the workout's duration.
// - Sleep: hypnogram stages (each lasting until the next sample, the last until end_time)
//   add up to the per-stage durations, and all of them to `duration_in_bed_seconds`.
// - Daily, for the same seed and date, with `activities` = that day's activity records and
//   `background` = backgroundActivity(seed, date):
//     steps            = Σ activities.distance_data.summary.steps + background.steps
//     distance_meters  = round2(Σ activities.distance_data.summary.distance_meters + background.distance_meters)
//     floors_climbed   = Σ activities.distance_data.summary.floors_climbed + background.floors_climbed
//     calories_data.net_activity_calories
//                      = round2(Σ activities.calories_data.net_activity_calories + background.net_activity_calories)
//     calories_data.total_burned_calories = round2(BMR_calories + net_activity_calories)
// - Nutrition: summary macros = round2(Σ meals' macros), micros = round4(Σ meals' micros).
import type { Athlete } from '../../model/athlete.ts';
import type { DataTypeName, DataTypeRecords } from '../../model/index.ts';
import { dayNumberToIsoDate, isoDateToDayNumber } from '../../model/time.ts';
import { generateActivities } from './activity.ts';
import { generateAthlete as athleteFor } from './athlete.ts';
import { generateBody } from './body.ts';
import { type DayContext, dayContext } from './context.ts';
import { generateDaily } from './daily.ts';
import { generateHormone } from './hormone.ts';
import { generateMenstruation } from './menstruation.ts';
import { generateNutrition } from './nutrition.ts';
import { generatePlannedWorkouts } from './planned-workouts.ts';
import { generateSleep } from './sleep.ts';

export { type BackgroundActivity, backgroundActivity } from './background.ts';
export { WORKOUT_SAMPLE_SECONDS } from './workouts.ts';

export interface GenerateOptions {
  /** Identifies the simulated person, e.g. the user id. */
  seed: string;
  /** First day, `YYYY-MM-DD`, inclusive. */
  startDate: string;
  /** Day after the last, `YYYY-MM-DD`, exclusive. */
  endDate: string;
  /** Include sample arrays (default false, like the API's `with_samples`). */
  withSamples?: boolean;
  /** The user's UTC offset in minutes east of UTC (default 0): days run local midnight to midnight. */
  timezoneOffsetMinutes?: number;
}

export interface GeneratedDay<T extends DataTypeName> {
  date: string;
  records: DataTypeRecords[T][];
}

type DayGenerators = { [T in DataTypeName]: (context: DayContext) => DataTypeRecords[T][] };

const dayGenerators: DayGenerators = {
  activity: generateActivities,
  body: generateBody,
  daily: generateDaily,
  menstruation: generateMenstruation,
  nutrition: generateNutrition,
  sleep: generateSleep,
  hormone: generateHormone,
  plannedWorkout: generatePlannedWorkouts,
};

/** The records of one local day. */
export function generateDay<T extends DataTypeName>(
  type: T,
  options: { seed: string; date: string; withSamples?: boolean; timezoneOffsetMinutes?: number },
): DataTypeRecords[T][] {
  const context = dayContext(
    options.seed,
    options.date,
    options.withSamples ?? false,
    options.timezoneOffsetMinutes ?? 0,
  );
  return dayGenerators[type](context);
}

/** Day by day, so a caller can stream a long range without holding it all in memory. */
export function* generateDays<T extends DataTypeName>(
  type: T,
  options: GenerateOptions,
): Generator<GeneratedDay<T>> {
  const first = isoDateToDayNumber(options.startDate);
  const end = isoDateToDayNumber(options.endDate);
  for (let dayNumber = first; dayNumber < end; dayNumber++) {
    const date = dayNumberToIsoDate(dayNumber);
    yield { date, records: generateDay(type, { ...options, date }) };
  }
}

/** All records of the range, in time order. */
export function generate<T extends DataTypeName>(type: T, options: GenerateOptions): DataTypeRecords[T][] {
  const records: DataTypeRecords[T][] = [];
  for (const day of generateDays(type, options)) records.push(...day.records);
  return records;
}

/** The athlete profile for `seed` as of `asOfDate` (`YYYY-MM-DD`, fixes the age). */
export function generateAthlete(seed: string, asOfDate: string, timezoneOffsetMinutes = 0): Athlete {
  return athleteFor(seed, asOfDate, timezoneOffsetMinutes);
}
