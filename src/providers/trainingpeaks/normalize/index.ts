// TrainingPeaks normalizer table: provider data kind -> unified type, companions, normalize().
import { normalizer } from '../../../provider-kit/normalize/normalize.ts';
import { normalizeTpAthlete } from './athlete.ts';
import {
  normalizeMetricBody,
  normalizeMetricDaily,
  normalizeMetricSleep,
  type TpMetricDay,
} from './metrics.ts';
import type { TpAthlete } from './types.ts';
import { normalizeWorkout, type TpWorkoutPayload } from './workout.ts';

export type * from './types.ts';
export type { TpMetricDay } from './metrics.ts';
export type { TpWorkoutPayload } from './workout.ts';

export const trainingPeaksNormalizers = {
  workout: normalizer({
    unifiedType: 'activity',
    companions: [],
    normalize: (payload: TpWorkoutPayload, context) => [normalizeWorkout(payload, context)],
  }),
  metricsDaily: normalizer({
    unifiedType: 'daily',
    companions: ['metrics'],
    normalize: (day: TpMetricDay, context) => normalizeMetricDaily(day, context),
  }),
  metricsBody: normalizer({
    unifiedType: 'body',
    companions: ['metrics'],
    normalize: (day: TpMetricDay, context) => normalizeMetricBody(day, context),
  }),
  metricsSleep: normalizer({
    unifiedType: 'sleep',
    companions: ['metrics'],
    normalize: (day: TpMetricDay, context) => normalizeMetricSleep(day, context),
  }),
  athlete: normalizer({
    unifiedType: 'athlete',
    companions: [],
    normalize: (athlete: TpAthlete) => [normalizeTpAthlete(athlete)],
  }),
} as const;
