// Movement outside recorded workouts: walking around the house, commuting, errands.
//
// Daily totals are the day's workouts plus this amount (the rule is spelled out in
// generate.ts); it is exported so callers and tests can check that arithmetic.

import { isoDateToDayNumber } from '../../model/time.ts';
import { athleteProfile } from './profile.ts';
import { Random } from './random.ts';
import { round } from './series.ts';

export interface BackgroundActivity {
  steps: number;
  distance_meters: number;
  floors_climbed: number;
  /** Active energy above resting, kcal. */
  net_activity_calories: number;
}

/**
 * The background amount of `date` for the user seeded by `seed`. Independent of the time zone:
 * it is a function of the calendar day.
 */
export function backgroundActivity(seed: string, date: string): BackgroundActivity {
  const random = new Random(seed, date, 'background');
  const profile = athleteProfile(seed);
  // 1970-01-01 was a Thursday: day numbers 2 and 3 (mod 7) are Saturday and Sunday.
  const weekday = ((isoDateToDayNumber(date) % 7) + 7) % 7;
  const weekend = weekday === 2 || weekday === 3;
  const steps = random.int(weekend ? 2500 : 3500, weekend ? 9000 : 7500);
  return {
    steps,
    distance_meters: round(steps * profile.strideMeters, 2),
    floors_climbed: random.int(2, 14),
    net_activity_calories: round(steps * 0.00055 * profile.baseWeightKg, 2),
  };
}
