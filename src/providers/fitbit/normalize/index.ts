// Google Health (Fitbit) normalizer table: Google's data types (kebab case, as in
// `users/{user}/dataTypes/{dataType}` and in notifications) -> unified type, companions,
// normalize(). A payload holds each data type's data points keyed by the data type.
import type { Athlete } from '../../../model/athlete.ts';
import { normalizer } from '../../../provider-kit/normalize/normalize.ts';
import { type FitbitBodyPayload, normalizeBody } from './body.ts';
import { type FitbitDailyPayload, normalizeDailies } from './daily.ts';
import { type FitbitActivityPayload, normalizeExercises } from './exercise.ts';
import { type FitbitNutritionPayload, normalizeNutrition } from './nutrition.ts';
import { type FitbitSleepPayload, normalizeSleeps } from './sleep.ts';
import { isoOf, isNumber, textOrNull } from './time.ts';
import type { Identity, Profile } from './types.ts';

export type { FitbitActivityPayload } from './exercise.ts';
export type { FitbitBodyPayload } from './body.ts';
export type { FitbitDailyPayload } from './daily.ts';
export type { FitbitNutritionPayload } from './nutrition.ts';
export type { FitbitSleepPayload } from './sleep.ts';
export type * from './types.ts';

export const fitbitNormalizers = {
  exercise: normalizer({
    unifiedType: 'activity',
    companions: ['heart-rate'],
    normalize: (payload: FitbitActivityPayload, context) => normalizeExercises(payload, context),
  }),
  sleep: normalizer({
    unifiedType: 'sleep',
    companions: [
      'daily-heart-rate-variability',
      'daily-respiratory-rate',
      'daily-sleep-temperature-derivations',
    ],
    normalize: (payload: FitbitSleepPayload, context) => normalizeSleeps(payload, context),
  }),
  steps: normalizer({
    unifiedType: 'daily',
    companions: [
      'distance',
      'floors',
      'active-energy-burned',
      'total-calories',
      'heart-rate',
      'daily-resting-heart-rate',
    ],
    normalize: (payload: FitbitDailyPayload, context) => normalizeDailies(payload, context),
  }),
  weight: normalizer({
    unifiedType: 'body',
    companions: [
      'body-fat',
      'daily-vo2-max',
      'daily-oxygen-saturation',
      'daily-sleep-temperature-derivations',
    ],
    normalize: (payload: FitbitBodyPayload, context) => normalizeBody(payload, context),
  }),
  profile: normalizer({
    unifiedType: 'athlete',
    companions: ['identity'],
    normalize: (payload: { profile: Profile | null; identity: Identity | null }): Athlete[] => {
      const since = payload.profile?.membershipStartDate;
      return [
        {
          provider_user_id: textOrNull(payload.identity?.healthUserId),
          age: isNumber(payload.profile?.age) ? payload.profile.age : null,
          joined_provider: typeof since === 'string' ? since : isoOf(since),
        },
      ];
    },
  }),
} as const;

/** Nutrition has no row of the shared table type (its records are not in `UnifiedRecords`). */
export const fitbitNutrition = {
  kinds: ['nutrition-log', 'hydration-log'] as const,
  normalize: (payload: FitbitNutritionPayload, context: Parameters<typeof normalizeNutrition>[1]) =>
    normalizeNutrition(payload, context),
};
