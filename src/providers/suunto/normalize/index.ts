// Suunto normalizer table: provider data kind -> unified type, companions, normalize().
// A `workout` payload is one workout document with its FIT export; a `sleep` payload one 24/7
// sleep sample. The other 24/7 data (activity, recovery samples) is not read yet (MAPPING.md).
import { normalizer } from '../../../provider-kit/normalize/normalize.ts';
import { normalizeSleep } from './sleep.ts';
import type { SuuntoSleepSample } from './types.ts';
import { normalizeWorkout, type SuuntoWorkoutPayload } from './workout.ts';

export type * from './types.ts';
export { suuntoActivityType, suuntoSports } from './sports.ts';
export type { SuuntoWorkoutPayload } from './workout.ts';

export const suuntoNormalizers = {
  workout: normalizer({
    unifiedType: 'activity',
    companions: ['fit'],
    normalize: (payload: SuuntoWorkoutPayload, context) => [normalizeWorkout(payload, context)],
  }),
  sleep: normalizer({
    unifiedType: 'sleep',
    companions: [],
    normalize: (payload: { sleep: SuuntoSleepSample }, context) => {
      const sleep = normalizeSleep(payload.sleep, context);
      return sleep ? [sleep] : [];
    },
  }),
} as const;
