// Suunto normalizer table: provider data kind -> unified type, companions, normalize().
// A `workout` payload is one workout document with its FIT export. Suunto's 24/7 data (sleep,
// activity, recovery samples) is not read yet (see MAPPING.md).
import { normalizer } from '../../../provider-kit/normalize/normalize.ts';
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
} as const;
