// Polar AccessLink normalizer table: provider data kind -> unified type, companions,
// normalize(). Kinds are named after Polar's webhook events (EXERCISE, ACTIVITY_SUMMARY,
// CONTINUOUS_HEART_RATE, SLEEP, PHYSICAL_INFORMATION) plus `nightly_recharge` and `user`, which
// have no event. A payload holds each kind's documents keyed by kind: the exercise list,
// `activities` array, continuous-heart-rate day documents, `nights` and `recharges` arrays,
// the physical-info and user objects. Kinds that only complete another kind's records
// (continuous_heart_rate, nightly_recharge) have no row of their own.
import { normalizer } from '../../../provider-kit/normalize/normalize.ts';
import { normalizeDaily, type PolarDailyPayload } from './daily.ts';
import { normalizeExercises } from './exercise.ts';
import { normalizePhysicalInfo, normalizeUser, type PolarAthletePayload } from './profile.ts';
import { normalizeSleep, type PolarSleepPayload } from './sleep.ts';
import type { PolarExercise, PolarPhysicalInfo } from './types.ts';

export type { PolarDailyPayload } from './daily.ts';
export type { PolarAthletePayload } from './profile.ts';
export type { PolarSleepPayload } from './sleep.ts';
export type * from './types.ts';

export const polarNormalizers = {
  exercise: normalizer({
    unifiedType: 'activity',
    companions: [],
    normalize: (payload: { exercise: readonly PolarExercise[] }, context) =>
      normalizeExercises(payload.exercise, context),
  }),
  activity_summary: normalizer({
    unifiedType: 'daily',
    companions: ['continuous_heart_rate'],
    normalize: (payload: PolarDailyPayload, context) => normalizeDaily(payload, context),
  }),
  sleep: normalizer({
    unifiedType: 'sleep',
    companions: ['nightly_recharge'],
    normalize: (payload: PolarSleepPayload, context) => normalizeSleep(payload, context),
  }),
  physical_information: normalizer({
    unifiedType: 'body',
    companions: [],
    normalize: (payload: { physical_information: PolarPhysicalInfo }, context) =>
      normalizePhysicalInfo(payload.physical_information, context),
  }),
  user: normalizer({
    unifiedType: 'athlete',
    companions: ['physical_information'],
    normalize: (payload: PolarAthletePayload, context) => [normalizeUser(payload, context)],
  }),
} as const;

export type PolarDataKind = keyof typeof polarNormalizers;
