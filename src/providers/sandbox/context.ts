// Everything a per-day generator needs to know about the day it is building. A day is
// generated from (seed, date) alone; nothing is carried over from the previous day.
import {
  dayNumberToIsoDate,
  formatDateTime,
  isoDateToDayNumber,
  localMidnightMs,
  MS_PER_DAY,
} from '../../model/time.ts';
import { type AthleteProfile, athleteProfile } from './profile.ts';

export interface DayContext {
  seed: string;
  /** Local calendar date, `YYYY-MM-DD`. */
  date: string;
  /** Days since 1970-01-01 of `date`. */
  dayNumber: number;
  /** Instant of local midnight starting the day, and of the next one. */
  startMs: number;
  endMs: number;
  offsetMinutes: number;
  withSamples: boolean;
  profile: AthleteProfile;
  /** Formats an instant as a wire datetime in the user's offset. */
  time(epochMs: number): string;
  /** 0 (UTC) when the user's offset is zero, else 1 (local). */
  timestampLocalization: 0 | 1;
}

export function dayContext(seed: string, date: string, withSamples: boolean, offsetMinutes = 0): DayContext {
  const startMs = localMidnightMs(date, offsetMinutes);
  return {
    seed,
    date,
    dayNumber: isoDateToDayNumber(date),
    startMs,
    endMs: startMs + MS_PER_DAY,
    offsetMinutes,
    withSamples,
    profile: athleteProfile(seed),
    time: (epochMs) => formatDateTime(epochMs, offsetMinutes),
    timestampLocalization: offsetMinutes === 0 ? 0 : 1,
  };
}

/** The same day for another date (e.g. the night before): generators call across days this way. */
export function shiftedContext(context: DayContext, days: number): DayContext {
  const dayNumber = context.dayNumber + days;
  return dayContext(context.seed, dayNumberToIsoDate(dayNumber), context.withSamples, context.offsetMinutes);
}

export const MINUTE_MS = 60_000;
