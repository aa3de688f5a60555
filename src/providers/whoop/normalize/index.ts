// WHOOP normalizer table: provider data kind -> unified type, companions, normalize().
// A kind's payload holds the `records` of its own collection and of each companion for the same
// range, keyed by kind; `body_measurement` and `profile` are single documents. Recovery appears
// in three rows because it completes the day (Daily), the night (Sleep) and the body readings.
import { normalizer } from '../../../provider-kit/normalize/normalize.ts';
import { normalizeBody, type WhoopBodyPayload } from './body.ts';
import { normalizeCycles, type WhoopCyclePayload } from './cycle.ts';
import { normalizeProfile } from './profile.ts';
import { normalizeSleeps, type WhoopSleepPayload } from './sleep.ts';
import type { WhoopProfile } from './types.ts';
import { normalizeWorkouts, type WhoopWorkoutPayload } from './workout.ts';

export type { WhoopBodyPayload } from './body.ts';
export { cycleDay, type WhoopCyclePayload } from './cycle.ts';
export type { WhoopSleepPayload } from './sleep.ts';
export { whoopActivityType } from './sports.ts';
export type * from './types.ts';
export type { WhoopWorkoutPayload } from './workout.ts';

export const whoopNormalizers = {
  cycle: normalizer({
    unifiedType: 'daily',
    companions: ['recovery', 'sleep'],
    normalize: (payload: WhoopCyclePayload, context) => normalizeCycles(payload, context),
  }),
  sleep: normalizer({
    unifiedType: 'sleep',
    companions: ['recovery'],
    normalize: (payload: WhoopSleepPayload, context) => normalizeSleeps(payload, context),
  }),
  workout: normalizer({
    unifiedType: 'activity',
    companions: ['body_measurement'],
    normalize: (payload: WhoopWorkoutPayload, context) => normalizeWorkouts(payload, context),
  }),
  recovery: normalizer({
    unifiedType: 'body',
    companions: ['body_measurement', 'sleep', 'cycle'],
    normalize: (payload: WhoopBodyPayload, context) => normalizeBody(payload, context),
  }),
  profile: normalizer({
    unifiedType: 'athlete',
    companions: [],
    normalize: (payload: { profile: WhoopProfile }) => [normalizeProfile(payload.profile)],
  }),
} as const;

export type WhoopDataKind = keyof typeof whoopNormalizers;
