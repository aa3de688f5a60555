// When the sandbox athlete sleeps. Cheap on purpose: workouts, daily heart rate and the sleep
// records all ask for these windows, for the day itself and for the day before.
import { localMidnightMs } from '../../model/time.ts';
import { athleteProfile } from './profile.ts';
import { Random } from './random.ts';

export interface TimeWindow {
  startMs: number;
  endMs: number;
}

const MINUTE_MS = 60_000;

/**
 * The main sleep that starts on the evening of `date` (local) and ends the next morning.
 * It always starts between 21:45 and 23:40, after the latest evening workout has ended, so a
 * night belongs to the day it starts on.
 */
export function sleepWindow(seed: string, date: string, offsetMinutes: number): TimeWindow {
  const random = new Random(seed, date, 'sleep-window');
  const bedtimeMinutes = 21 * 60 + athleteProfile(seed).bedtimeOffsetMinutes + random.int(-15, 40);
  // Durations are whole minutes so every stage boundary can sit on a 30 s grid.
  const minutesInBed = random.int(6 * 60 + 30, 9 * 60);
  const startMs = localMidnightMs(date, offsetMinutes) + bedtimeMinutes * MINUTE_MS;
  return { startMs, endMs: startMs + minutesInBed * MINUTE_MS };
}

/** An afternoon nap on some days (about one in eight), between 13:30 and 16:15. */
export function napWindow(seed: string, date: string, offsetMinutes: number): TimeWindow | null {
  const random = new Random(seed, date, 'nap-window');
  if (!random.chance(0.12)) return null;
  const startMs = localMidnightMs(date, offsetMinutes) + random.int(13 * 60 + 30, 15 * 60 + 30) * MINUTE_MS;
  return { startMs, endMs: startMs + random.int(20, 45) * MINUTE_MS };
}
