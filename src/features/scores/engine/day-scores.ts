// A person's scores for one day and for one sleep session, from the facts of the days around it
// (docs/scores.md). Pure: the caller loads the history (at least HISTORY_DAYS before the day).
import { addDays, dayNumberToIsoDate, isoDateToDayNumber } from '../../../model/time.ts';
import { BASELINE, baselineOf, type Deviation, deviationOf } from './baselines.ts';
import type { DayFacts, SessionFacts, SleepFacts } from './facts.ts';
import { recoveryScore } from './recovery.ts';
import { sleepScore } from './sleep-score.ts';
import { round } from './stats.ts';
import { banisterTrimp, type LoadSummary, loadSummary, type Sex, TRAINING_LOAD } from './training-load.ts';

/** Marks every computed object: which method, which version of it (docs/scores.md#versions). */
export const SCORES_METHOD = 'tributary';
export const SCORES_VERSION = '1.0';

/** Days of history a day's scores read before it: the longest window (chronic load, 28 days). */
export const HISTORY_DAYS = Math.max(BASELINE.windowDays, TRAINING_LOAD.chronicDays);
/** Days after a changed day whose scores can change with it (their windows include it). */
export const FORWARD_DAYS = HISTORY_DAYS;

export type History = {
  days: ReadonlyMap<string, DayFacts>;
  sleeps: readonly SleepFacts[];
  sessions: readonly SessionFacts[];
  /** Banister's coefficients need the sex; unknown uses the men's pair (docs/scores.md). */
  sex?: Sex;
};

export type SleepComputed = {
  method: string;
  version: string;
  sleep_score: number | null;
  sleep_contributors: Record<string, number>;
};

export type DailyComputed = {
  method: string;
  version: string;
  recovery_score: number | null;
  recovery_contributors: Record<string, number>;
  sleep_score: number | null;
  resting_hr: Deviation | null;
  hrv_rmssd: (Deviation & { ln_z: number }) | null;
  training_load: LoadSummary & { trimp_coefficients: string };
};

/** Numbers rounded for the wire, nulls dropped (contributor maps hold numbers only). */
function numbers(values: Record<string, number | null>, places = 1): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(values)) if (value !== null) out[key] = round(value, places);
  return out;
}

function roundDeviation<T extends Deviation>(deviation: T | null): T | null {
  if (!deviation) return null;
  const out = { ...deviation };
  for (const key of Object.keys(out) as (keyof T)[]) {
    const value = out[key];
    if (typeof value === 'number')
      (out as Record<keyof T, number>)[key] = round(value, key === 'days' ? 0 : 2);
  }
  return out;
}

// Sessions by the day they ended, built once per list (a day's scores look nights up 50 times).
const byEndDay = new WeakMap<readonly SleepFacts[], Map<string, SleepFacts[]>>();

function sessionsEnding(day: string, sleeps: readonly SleepFacts[]): readonly SleepFacts[] {
  let index = byEndDay.get(sleeps);
  if (!index) {
    index = new Map();
    for (const sleep of sleeps) {
      const list = index.get(sleep.endDay);
      if (list) list.push(sleep);
      else index.set(sleep.endDay, [sleep]);
    }
    byEndDay.set(sleeps, index);
  }
  return index.get(day) ?? [];
}

const byDay = new WeakMap<readonly SessionFacts[], Map<string, SessionFacts[]>>();

function sessionsOn(day: string, sessions: readonly SessionFacts[]): readonly SessionFacts[] {
  let index = byDay.get(sessions);
  if (!index) {
    index = new Map();
    for (const session of sessions) {
      const list = index.get(session.day);
      if (list) list.push(session);
      else index.set(session.day, [session]);
    }
    byDay.set(sessions, index);
  }
  return index.get(day) ?? [];
}

/** The night that ended on `day`: the longest non-nap session ending that day. */
export function mainSleepOf(day: string, sleeps: readonly SleepFacts[]): SleepFacts | null {
  let best: SleepFacts | null = null;
  for (const sleep of sessionsEnding(day, sleeps)) {
    if (sleep.isNap) continue;
    if (!best || (sleep.asleepSeconds ?? 0) > (best.asleepSeconds ?? 0)) best = sleep;
  }
  return best;
}

function sleepComputedFor(sleep: SleepFacts, sleeps: readonly SleepFacts[]): SleepComputed {
  const base = { method: SCORES_METHOD, version: SCORES_VERSION };
  if (sleep.isNap || sleep.asleepSeconds === null)
    return { ...base, sleep_score: null, sleep_contributors: {} };
  // Earlier nights: main sessions that ended in the 14 days before this one ended, oldest first.
  const earliest = addDays(sleep.endDay, -14);
  const earlier = sleeps
    .filter((other) => !other.isNap && other.endDay < sleep.endDay && other.endDay >= earliest)
    .sort((a, b) => (a.endDay < b.endDay ? -1 : a.endDay > b.endDay ? 1 : 0));
  // One bedtime per night: the main session of each earlier day.
  const nights = [...new Set(earlier.map((other) => other.endDay))]
    .map((day) => mainSleepOf(day, earlier))
    .filter((night): night is SleepFacts => night !== null);
  const result = sleepScore({
    asleepSeconds: sleep.asleepSeconds,
    deepSeconds: sleep.deepSeconds,
    remSeconds: sleep.remSeconds,
    awakeSeconds: sleep.awakeSeconds,
    awakenings: sleep.awakenings,
    bedtime: sleep.bedtime,
    earlierBedtimes: nights.map((night) => night.bedtime),
  });
  return { ...base, sleep_score: result.score, sleep_contributors: numbers(result.pillars) };
}

/** The scores of one sleep session. */
export function computeSleep(key: string, history: History): SleepComputed | null {
  const sleep = history.sleeps.find((candidate) => candidate.key === key);
  return sleep ? sleepComputedFor(sleep, history.sleeps) : null;
}

/** A day's HRV: the night's (nocturnal RMSSD) when a main sleep reports one, else the day record's. */
function hrvOf(day: string, history: History): number | null {
  return mainSleepOf(day, history.sleeps)?.hrv ?? history.days.get(day)?.hrv ?? null;
}

/**
 * The days a day's windows read, oldest first, the day itself last: the longest window and the
 * day (named once per day scored, not once per window that reads them).
 */
const WINDOW_SPAN = Math.max(BASELINE.windowDays, TRAINING_LOAD.chronicDays - 1) + 1;

function windowDaysOf(day: string): string[] {
  const last = isoDateToDayNumber(day);
  const days: string[] = [];
  for (let number = last - WINDOW_SPAN + 1; number <= last; number++) days.push(dayNumberToIsoDate(number));
  return days;
}

/** The baseline window's values: the BASELINE.windowDays days before the day, oldest first. */
function windowValues(windowDays: readonly string[], read: (day: string) => number | null): number[] {
  const values: number[] = [];
  for (const day of windowDays.slice(-BASELINE.windowDays - 1, -1)) {
    const value = read(day);
    if (value !== null) values.push(value);
  }
  return values;
}

/** The day's training load (sum of its sessions' TRIMP), 0 on a day with a daily record and none. */
function loadOf(day: string, history: History, restingHr: number | null): number | null {
  const sessions = sessionsOn(day, history.sessions);
  if (sessions.length === 0) return history.days.has(day) ? 0 : null;
  let total = 0;
  for (const session of sessions) {
    if (session.minutes === null || session.avgHr === null || session.maxHr === null || restingHr === null)
      return null;
    const trimp = banisterTrimp({
      minutes: session.minutes,
      avgHr: session.avgHr,
      maxHr: session.maxHr,
      restingHr,
      sex: history.sex ?? 'male',
    });
    if (trimp === null) return null;
    total += trimp;
  }
  return total;
}

/** The scores of one day. */
export function computeDay(day: string, history: History): DailyComputed {
  const restingOf = (d: string) => history.days.get(d)?.restingHr ?? null;
  const windowDays = windowDaysOf(day);
  const rhrBaseline = baselineOf(windowValues(windowDays, restingOf));
  const hrvWindow = windowValues(windowDays, (d) => hrvOf(d, history));
  const hrvBaseline = baselineOf(hrvWindow);
  const lnBaseline = baselineOf(hrvWindow.map(Math.log));
  const rhrToday = restingOf(day);
  const hrvToday = hrvOf(day, history);
  const restingHr = rhrToday !== null && rhrBaseline ? deviationOf(rhrToday, rhrBaseline, 1) : null;
  const hrv =
    hrvToday !== null && hrvBaseline && lnBaseline
      ? {
          ...deviationOf(hrvToday, hrvBaseline, 1),
          ln_z: deviationOf(Math.log(hrvToday), lnBaseline, 0.05).z,
        }
      : null;
  const night = mainSleepOf(day, history.sleeps);
  const recovery =
    restingHr && hrv && night?.asleepSeconds != null
      ? recoveryScore({ hrvZ: hrv.ln_z, restingHrZ: restingHr.z, asleepSeconds: night.asleepSeconds })
      : null;
  const loads: (number | null)[] = [];
  for (const d of windowDays.slice(-TRAINING_LOAD.chronicDays)) {
    loads.push(loadOf(d, history, restingOf(d) ?? (rhrBaseline ? rhrBaseline.mean : null)));
  }
  const load = loadSummary(loads);
  return {
    method: SCORES_METHOD,
    version: SCORES_VERSION,
    recovery_score: recovery?.score ?? null,
    recovery_contributors: recovery ? numbers(recovery.contributors, 2) : {},
    sleep_score: night ? sleepComputedFor(night, history.sleeps).sleep_score : null,
    resting_hr: roundDeviation(restingHr),
    hrv_rmssd: roundDeviation(hrv),
    training_load: {
      ...(Object.fromEntries(
        Object.entries(load).map(([key, value]) => [key, value === null ? null : round(value, 2)]),
      ) as LoadSummary),
      // Which of Banister's pairs weighed the sessions: the athlete profile's sex, else the men's.
      trimp_coefficients: history.sex ?? 'male (sex unknown)',
    },
  };
}
