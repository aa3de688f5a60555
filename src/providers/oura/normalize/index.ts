// Oura normalizer table: provider data kind -> unified type, companions, normalize().
// A kind's payload holds the `data` arrays of its own collection and of each companion,
// fetched for the same date range and keyed by the collection's name (`vO2_max` is keyed
// `vo2_max`, its webhook data_type). Kinds that only complete another kind's records
// (daily_sleep, daily_readiness, daily_spo2, daily_stress, vo2_max, tag, enhanced_tag) have no row.
import { normalizer } from '../../../provider-kit/normalize/normalize.ts';
import { normalizePersonalInfo } from './athlete.ts';
import { normalizeBody, type OuraBodyPayload } from './body.ts';
import { normalizeDaily, type OuraDailyPayload } from './daily.ts';
import { normalizeSleep, type OuraSleepPayload } from './sleep.ts';
import type { OuraPersonalInfo, OuraSession, OuraWorkout } from './types.ts';
import { normalizeSessions, normalizeWorkouts } from './workout.ts';

export type { OuraBodyPayload } from './body.ts';
export type { OuraDailyPayload } from './daily.ts';
export { normalizeHeartRateRows } from './heartrate.ts';
export type { OuraSleepPayload } from './sleep.ts';
export type * from './types.ts';

export const ouraNormalizers = {
  workout: normalizer({
    unifiedType: 'activity',
    companions: [],
    normalize: (payload: { workout: readonly OuraWorkout[] }, context) =>
      normalizeWorkouts(payload.workout, context),
  }),
  session: normalizer({
    unifiedType: 'activity',
    companions: [],
    normalize: (payload: { session: readonly OuraSession[] }, context) =>
      normalizeSessions(payload.session, context),
  }),
  sleep: normalizer({
    unifiedType: 'sleep',
    companions: ['daily_sleep', 'daily_readiness', 'daily_spo2'],
    normalize: (payload: OuraSleepPayload, context) => normalizeSleep(payload, context),
  }),
  daily_activity: normalizer({
    unifiedType: 'daily',
    companions: [
      'daily_stress',
      'heartrate',
      'vo2_max',
      'daily_readiness',
      'daily_sleep',
      'daily_spo2',
      'tag',
      'enhanced_tag',
    ],
    normalize: (payload: OuraDailyPayload, context) => normalizeDaily(payload, context),
  }),
  heartrate: normalizer({
    unifiedType: 'body',
    companions: ['daily_spo2', 'personal_info'],
    normalize: (payload: OuraBodyPayload, context) => normalizeBody(payload, context),
  }),
  personal_info: normalizer({
    unifiedType: 'athlete',
    companions: [],
    normalize: (payload: { personal_info: OuraPersonalInfo }) => [
      normalizePersonalInfo(payload.personal_info),
    ],
  }),
} as const;

export type OuraDataKind = keyof typeof ouraNormalizers;
