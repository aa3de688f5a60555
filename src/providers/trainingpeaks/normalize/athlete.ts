// TrainingPeaks athlete (GET /v1/athlete/profile; fields as "Coach Get Athletes" lists them) ->
// Athlete. Cannot map: `Weight` (Athlete has no body fields; not dated), `IsPremium`,
// `PreferredUnits`, `TimeZone` (used to place local times), `CoachedBy`. `BirthMonth` (`1980-10`)
// has no day, so `date_of_birth` is not filled.
import type { Athlete } from '../../../model/athlete.ts';
import { expectObject } from '../../../provider-kit/normalize/errors.ts';
import type { TpAthlete } from './types.ts';

const genders: Readonly<Record<string, string>> = { m: 'male', f: 'female' };

export function normalizeTpAthlete(input: TpAthlete): Athlete {
  const athlete = expectObject('TRAININGPEAKS athlete', input) as TpAthlete;
  const gender = athlete.Sex ? (genders[athlete.Sex.toLowerCase()] ?? null) : null;
  return {
    first_name: athlete.FirstName ?? null,
    last_name: athlete.LastName ?? null,
    email: athlete.Email ?? null,
    sex: gender,
    gender,
    provider_user_id: String(athlete.Id),
  };
}
