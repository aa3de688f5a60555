// Intervals.icu athlete (GET /api/v1/athlete/{id}, schema `WithSportSettings`) -> Athlete.
//
// Cannot map: weight and resting HR (icu_weight, icu_resting_hr: the wellness records carry them
// by day), sport settings (FTP, LTHR, zones), measurement preferences, bikes and shoes.
import type { Athlete } from '../../../model/athlete.ts';
import { expectObject } from '../../../provider-kit/normalize/errors.ts';
import type { IntervalsAthlete } from './types.ts';

const genders: Readonly<Record<string, string>> = { M: 'male', F: 'female' };
const isoDate = (text: string | null | undefined) =>
  typeof text === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(text) ? text : null;

export function normalizeAthlete(input: IntervalsAthlete): Athlete {
  const athlete = expectObject('INTERVALS_ICU athlete', input) as IntervalsAthlete;
  const gender = athlete.sex ? (genders[athlete.sex] ?? null) : null;
  return {
    first_name: athlete.firstname ?? null,
    last_name: athlete.lastname ?? null,
    email: athlete.email ?? null,
    sex: gender,
    gender,
    date_of_birth: isoDate(athlete.icu_date_of_birth),
    city: athlete.city ?? null,
    state: athlete.state ?? null,
    country: athlete.country ?? null,
    joined_provider: typeof athlete.icu_activated === 'string' ? athlete.icu_activated : null,
    provider_user_id: String(athlete.id),
  };
}
