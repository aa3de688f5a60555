// Oura personal_info -> Athlete.
//
// Cannot map: `weight` (kg) and `height` (m) — Athlete has no body fields; they go to Body
// (body.ts) as a measurement on the fetch day. Oura gives no name, birth date or location.
import type { Athlete } from '../../../model/athlete.ts';
import type { OuraPersonalInfo } from './types.ts';

export function normalizePersonalInfo(info: OuraPersonalInfo): Athlete {
  return {
    age: info.age ?? null,
    // Oura reports biological sex ("male"/"female"), which is what `sex` means; gender is not asked.
    sex: info.biological_sex ?? null,
    email: info.email ?? null,
    provider_user_id: info.id,
  };
}
