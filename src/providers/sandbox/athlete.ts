// The sandbox athlete's profile (the `/athlete` payload).
import type { Athlete } from '../../model/athlete.ts';
import { isIsoDate, localMidnightMs } from '../../model/time.ts';
import { dayContext } from './context.ts';
import { deviceData } from './device.ts';
import { athleteProfile, type WorkoutKindKey } from './profile.ts';
import { hashString } from './random.ts';

const SPORT_NAMES: Record<WorkoutKindKey, string> = {
  run: 'running',
  ride: 'cycling',
  walk: 'walking',
  swim: 'swimming',
  strength: 'strength training',
  yoga: 'yoga',
};

/** Whole years from `birthDate` to `onDate` (both `YYYY-MM-DD`). */
function ageOn(birthDate: string, onDate: string): number {
  const years = Number(onDate.slice(0, 4)) - Number(birthDate.slice(0, 4));
  return onDate.slice(5) < birthDate.slice(5) ? years - 1 : years;
}

/**
 * The profile for `seed`. `asOfDate` (`YYYY-MM-DD`) fixes the age and the devices' upload
 * dates; pass today's date to describe the athlete now. Same arguments, same output.
 */
export function generateAthlete(seed: string, asOfDate: string, timezoneOffsetMinutes = 0): Athlete {
  if (!isIsoDate(asOfDate)) throw new RangeError(`invalid date: ${asOfDate} (expected YYYY-MM-DD)`);
  const profile = athleteProfile(seed);
  const context = dayContext(seed, asOfDate, false, timezoneOffsetMinutes);
  const joinedYear = 2018 + (hashString(`${seed}|joined`) % 5);
  const joined = `${joinedYear}-0${1 + (hashString(`${seed}|joined-month`) % 9)}-15`;
  const handle = `${profile.firstName}.${profile.lastName}`.toLowerCase();
  const favourite = profile.sportWeights.toSorted((left, right) => right[1] - left[1])[0]?.[0] ?? 'run';
  return {
    first_name: profile.firstName,
    last_name: profile.lastName,
    email: `${handle}+${hashString(seed).toString(36)}@sandbox.example.com`,
    sex: 'female',
    gender: 'female',
    date_of_birth: profile.birthDate,
    bio: `Sandbox athlete, mostly ${SPORT_NAMES[favourite]}.`,
    city: profile.home.city,
    state: profile.home.state,
    country: profile.home.country,
    joined_provider: joined,
    age: ageOn(profile.birthDate, asOfDate),
    devices: [
      deviceData(context, 'watch', context.startMs),
      deviceData(context, 'ring', context.startMs),
      deviceData(context, 'scale', context.startMs),
    ],
    account_creation_date: context.time(localMidnightMs(joined, timezoneOffsetMinutes)),
    provider_user_id: `sandbox-${hashString(seed).toString(16).padStart(8, '0')}`,
  };
}
