// Hevy normalizer table: provider data kind -> unified type, companions, normalize().
// `workout` is one logged strength workout (exercises and sets).
import { normalizer } from '../../../provider-kit/normalize/normalize.ts';
import { type HevyWorkout, normalizeWorkout } from './workout.ts';

export type { HevyExercise, HevySet, HevyWorkout } from './workout.ts';
export { hevyInstant } from './workout.ts';

export const hevyNormalizers = {
  workout: normalizer({
    unifiedType: 'activity',
    companions: [],
    normalize: (workout: HevyWorkout, context) => [normalizeWorkout(workout, context)],
  }),
};
