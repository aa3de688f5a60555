// Concept2 user (GET /api/users/me, `data`) -> Athlete.
//
// Cannot map: `weight` (Athlete has no body fields), `max_heart_rate` (no slot; it is the
// user's own setting), `profile_image`, `logbook_privacy`, `age_restricted`.
import type { Athlete } from '../../../model/athlete.ts';
import { expectObject } from '../../../provider-kit/normalize/errors.ts';
import type { Concept2User } from './types.ts';

const genders: Readonly<Record<string, string>> = { M: 'male', F: 'female' };

export function normalizeUser(input: Concept2User): Athlete {
  const user = expectObject('CONCEPT2 user', input) as Concept2User;
  const gender = user.gender ? (genders[user.gender] ?? null) : null;
  const dob = typeof user.dob === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(user.dob) ? user.dob : null;
  return {
    first_name: user.first_name ?? null,
    last_name: user.last_name ?? null,
    email: user.email ?? null,
    sex: gender,
    gender,
    date_of_birth: dob,
    country: user.country ?? null,
    provider_user_id: String(user.id),
  };
}
