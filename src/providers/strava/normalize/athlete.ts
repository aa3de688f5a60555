// Strava athlete -> Athlete.
//
// Cannot map: `weight` (kg) and `ftp` (W) — Athlete has no body or fitness fields and Strava
// offers no Body data type; `username`, `premium`/`summit`, `measurement_preference`, profile
// pictures, `bikes`/`shoes` (gear, not devices), follower counts. Strava exposes no e-mail,
// birth date or age. `sex` "M"/"F" is written as "male"/"female", as other providers send it.
import type { Athlete } from '../../../model/athlete.ts';
import { formatDateTime } from '../../../model/time.ts';
import type { StravaAthlete } from './types.ts';

const sexes: Readonly<Record<string, string>> = { M: 'male', F: 'female' };

export function normalizeAthlete(athlete: StravaAthlete): Athlete {
  const sex = athlete.sex ? (sexes[athlete.sex] ?? athlete.sex) : null;
  const createdMs = athlete.created_at ? Date.parse(athlete.created_at) : Number.NaN;
  const joined = Number.isNaN(createdMs) ? null : formatDateTime(createdMs, 0);
  return {
    first_name: athlete.firstname ?? null,
    last_name: athlete.lastname ?? null,
    sex,
    city: athlete.city ?? null,
    state: athlete.state ?? null,
    country: athlete.country ?? null,
    joined_provider: joined,
    account_creation_date: joined,
    provider_user_id: String(athlete.id),
  };
}
