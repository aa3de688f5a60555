// Polar physical info (GET /v3/users/physical-info) -> Body, and user (GET /v3/users/{id})
// plus physical info -> Athlete.
//
// Cannot map: `aerobic_threshold`/`anaerobic_threshold` (bpm thresholds have no field),
// `training_background`, `typical_day`, `sleep_goal`, `weight_source`; user `member-id` (our own
// id echoed back), `extra-info`, `registration-date` (when the user linked this app, not when
// they joined Polar, so neither joined_provider nor account_creation_date). Athlete has no
// weight/height: they go to Body. A `SOURCE_DEFAULT` weight is Polar's placeholder, not a
// measurement, so it is left out. Physical info is one undated document: it is placed on the
// day of `modified` (else `created`, else the fetch time) in the user's offset.
import type { Athlete } from '../../../model/athlete.ts';
import type { Body } from '../../../model/body.ts';
import { formatDateTime, localIsoDate } from '../../../model/time.ts';
import {
  dayBoundsOf,
  instantOf,
  localizationOf,
  type NormalizeContext,
} from '../../../provider-kit/normalize/normalize.ts';
import type { PolarPhysicalInfo, PolarUser } from './types.ts';

export function normalizePhysicalInfo(info: PolarPhysicalInfo, context: NormalizeContext): Body[] {
  const offset = context.userOffsetMinutes ?? 0;
  const stamp = info.modified ?? info.created;
  const atMs = stamp ? instantOf(stamp, 0) : context.now;
  if (atMs === undefined) return [];
  const timestamp = formatDateTime(atMs, offset);
  const weight = info.weight_source === 'SOURCE_DEFAULT' ? null : (info.weight ?? null);
  const height = info.height ?? null;
  const vo2max = info.vo2_max ?? null;
  return [
    {
      metadata: {
        ...dayBoundsOf(localIsoDate(atMs, offset), offset),
        timestamp_localization: localizationOf(offset),
      },
      measurements_data:
        weight !== null || height !== null
          ? { measurements: [{ measurement_time: timestamp, weight_kg: weight, height_cm: height }] }
          : null,
      heart_data: {
        heart_rate_data: {
          summary: {
            resting_hr_bpm: info.resting_heart_rate ?? null,
            user_max_hr_bpm: info.maximum_heart_rate ?? null,
          },
        },
      },
      oxygen_data:
        vo2max === null
          ? null
          : {
              vo2max_ml_per_min_per_kg: vo2max,
              vo2_samples: [{ timestamp, vo2max_ml_per_min_per_kg: vo2max }],
            },
    },
  ];
}

/** Whole years between a `YYYY-MM-DD` birth date and the local date of `nowMs`. */
function ageAt(birthDate: string, nowMs: number, offset: number): number | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(birthDate)) return null;
  const today = localIsoDate(nowMs, offset);
  const years = Number(today.slice(0, 4)) - Number(birthDate.slice(0, 4));
  return today.slice(5) < birthDate.slice(5) ? years - 1 : years;
}

export type PolarAthletePayload = { user: PolarUser; physical_information?: PolarPhysicalInfo };

export function normalizeUser(payload: PolarAthletePayload, context: NormalizeContext): Athlete {
  const { user } = payload;
  const info = payload.physical_information;
  const birthDate = user.birthdate ?? info?.birthday ?? null;
  // Polar asks for "sex" (MALE/FEMALE) and calls the field gender; both model fields get it.
  const sex = (user.gender ?? info?.gender)?.toLowerCase() ?? null;
  return {
    first_name: user['first-name'] ?? null,
    last_name: user['last-name'] ?? null,
    date_of_birth: birthDate,
    sex,
    gender: sex,
    age:
      birthDate && context.now !== undefined
        ? ageAt(birthDate, context.now, context.userOffsetMinutes ?? 0)
        : null,
    provider_user_id: String(user['polar-user-id']),
  };
}
