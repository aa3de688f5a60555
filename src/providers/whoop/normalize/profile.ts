// WHOOP basic profile -> Athlete.
//
// Cannot map: nothing in the basic profile is lost. WHOOP offers no sex, birth date, age or
// location; height/weight/max HR come from the body measurement and go to Body.
import type { Athlete } from '../../../model/athlete.ts';
import type { WhoopProfile } from './types.ts';

export function normalizeProfile(profile: WhoopProfile): Athlete {
  return {
    first_name: profile.first_name,
    last_name: profile.last_name,
    email: profile.email,
    provider_user_id: String(profile.user_id),
  };
}
