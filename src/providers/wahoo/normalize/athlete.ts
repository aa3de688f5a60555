// Wahoo user (GET /v1/user) -> Athlete.
//
// Cannot map: `height` and `weight` (strings of m and kg): Athlete has no body fields and Wahoo
// offers no Body type here. Gender codes 0/1 are male/female [C]; others are left as null.
import type { Athlete } from '../../../model/athlete.ts';
import { formatDateTime } from '../../../model/time.ts';
import { expectObject } from '../../../provider-kit/normalize/errors.ts';
import type { WahooUser } from './types.ts';

const genders: Readonly<Record<number, string>> = { 0: 'male', 1: 'female' };

function ageAt(birth: string, nowMs: number): number | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(birth);
  if (!match) return null;
  const now = new Date(nowMs);
  let age = now.getUTCFullYear() - Number(match[1]);
  const month = now.getUTCMonth() + 1;
  if (month < Number(match[2]) || (month === Number(match[2]) && now.getUTCDate() < Number(match[3]))) age--;
  return age >= 0 ? age : null;
}

export function normalizeUser(input: WahooUser, nowMs: number): Athlete {
  const user = expectObject('WAHOO user', input) as WahooUser;
  const createdMs = user.created_at ? Date.parse(user.created_at) : Number.NaN;
  const created = Number.isNaN(createdMs) ? null : formatDateTime(createdMs, 0);
  const gender = typeof user.gender === 'number' ? (genders[user.gender] ?? null) : null;
  const birth = typeof user.birth === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(user.birth) ? user.birth : null;
  return {
    first_name: user.first ?? null,
    last_name: user.last ?? null,
    email: user.email ?? null,
    sex: gender,
    gender,
    date_of_birth: birth,
    age: birth ? ageAt(birth, nowMs) : null,
    joined_provider: created,
    account_creation_date: created,
    provider_user_id: String(user.id),
  };
}
