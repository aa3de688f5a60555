// What the score formulas read from stored records: a few summary numbers per day, per sleep
// session and per activity. Anything absent or not a finite number is null; nothing is estimated.
import { hoursPastNoon } from './sleep-score.ts';
import { isNumber } from './stats.ts';

type Json = Record<string, unknown>;

export type DayFacts = { day: string; restingHr: number | null; hrv: number | null };

export type SleepFacts = {
  key: string;
  /** Local day the session started on (its anchor) and ended on (the day it recovers). */
  startDay: string;
  endDay: string;
  isNap: boolean;
  /** Bedtime as hours past noon (local clock time of `start_time`). */
  bedtime: number;
  asleepSeconds: number | null;
  deepSeconds: number | null;
  remSeconds: number | null;
  awakeSeconds: number | null;
  awakenings: number | null;
  hrv: number | null;
};

export type SessionFacts = {
  day: string;
  minutes: number | null;
  avgHr: number | null;
  maxHr: number | null;
};

const object = (value: unknown): Json | null =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : null;
const at = (value: unknown, ...path: string[]): unknown => {
  let current: unknown = value;
  for (const key of path) current = object(current)?.[key];
  return current;
};
const num = (value: unknown): number | null => (isNumber(value) ? value : null);
const positive = (value: unknown): number | null => (isNumber(value) && value > 0 ? value : null);
const dayOf = (text: unknown): string | null =>
  typeof text === 'string' && /^\d{4}-\d{2}-\d{2}/.test(text) ? text.slice(0, 10) : null;

/** The local clock time a wire datetime names (its written hours and minutes), as hours past noon. */
export function bedtimeOf(text: string): number | null {
  const match = /T(\d{2}):(\d{2})/.exec(text);
  if (!match) return null;
  return hoursPastNoon(Number(match[1]), Number(match[2]));
}

export function dayFacts(record: Json): DayFacts | null {
  const day = dayOf(at(record, 'metadata', 'start_time'));
  if (!day) return null;
  const summary = at(record, 'heart_rate_data', 'summary');
  return {
    day,
    restingHr: positive(at(summary, 'resting_hr_bpm')),
    hrv: positive(at(summary, 'avg_hrv_rmssd')),
  };
}

export function sleepFacts(key: string, record: Json): SleepFacts | null {
  const start = at(record, 'metadata', 'start_time');
  const startDay = dayOf(start);
  const endDay = dayOf(at(record, 'metadata', 'end_time'));
  const bedtime = typeof start === 'string' ? bedtimeOf(start) : null;
  if (!startDay || !endDay || bedtime === null) return null;
  const asleep = at(record, 'sleep_durations_data', 'asleep');
  const awake = at(record, 'sleep_durations_data', 'awake');
  const deep = num(at(asleep, 'duration_deep_sleep_state_seconds'));
  const rem = num(at(asleep, 'duration_REM_sleep_state_seconds'));
  const light = num(at(asleep, 'duration_light_sleep_state_seconds'));
  const stageSum =
    deep !== null || rem !== null || light !== null ? (deep ?? 0) + (rem ?? 0) + (light ?? 0) : null;
  const asleepSeconds = positive(at(asleep, 'duration_asleep_state_seconds')) ?? positive(stageSum);
  return {
    key,
    startDay,
    endDay,
    isNap: at(record, 'metadata', 'is_nap') === true,
    bedtime,
    asleepSeconds,
    deepSeconds: deep,
    remSeconds: rem,
    awakeSeconds: num(at(awake, 'duration_awake_state_seconds')),
    awakenings: num(at(awake, 'num_wakeup_events')),
    hrv: positive(at(record, 'heart_rate_data', 'summary', 'avg_hrv_rmssd')),
  };
}

export function sessionFacts(record: Json): SessionFacts | null {
  const start = at(record, 'metadata', 'start_time');
  const end = at(record, 'metadata', 'end_time');
  const day = dayOf(start);
  if (!day) return null;
  const activeSeconds = positive(at(record, 'active_durations_data', 'activity_seconds'));
  let minutes = activeSeconds !== null ? activeSeconds / 60 : null;
  if (minutes === null && typeof start === 'string' && typeof end === 'string') {
    const span = (Date.parse(end) - Date.parse(start)) / 60_000;
    minutes = Number.isFinite(span) && span > 0 ? span : null;
  }
  const summary = at(record, 'heart_rate_data', 'summary');
  return {
    day,
    minutes,
    avgHr: positive(at(summary, 'avg_hr_bpm')),
    maxHr: positive(at(summary, 'user_max_hr_bpm')),
  };
}
