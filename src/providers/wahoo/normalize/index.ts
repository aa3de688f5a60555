// Wahoo normalizer table: provider data kind -> unified type, companions, normalize().
// A `workout` payload is one workout with its summary and the summary's FIT file; `user` is
// the profile. Wahoo has workouts and the user only (no daily, sleep or body data).
import { normalizer } from '../../../provider-kit/normalize/normalize.ts';
import { normalizeUser } from './athlete.ts';
import type { WahooUser } from './types.ts';
import { normalizeWorkout, type WahooWorkoutPayload } from './workout.ts';

export type * from './types.ts';
export { fileUrlOf, type WahooWorkoutPayload } from './workout.ts';
export { wahooActivityType, wahooWorkoutTypes } from './workout-types.ts';

export const wahooNormalizers = {
  workout: normalizer({
    unifiedType: 'activity',
    companions: ['workout_summary', 'fit'],
    normalize: (payload: WahooWorkoutPayload, context) => [normalizeWorkout(payload, context)],
  }),
  user: normalizer({
    unifiedType: 'athlete',
    companions: [],
    normalize: (payload: { user: WahooUser }, context) => [
      normalizeUser(payload.user, context.now ?? Date.now()),
    ],
  }),
} as const;
