// Intervals.icu normalizer table: provider data kind -> unified type, companions, normalize().
// `activity` is one completed activity; `wellness` is one local day of wellness figures, read
// three ways (daily, body, sleep); `athlete` is the profile.
import { normalizer } from '../../../provider-kit/normalize/normalize.ts';
import { isActivityStub, normalizeActivity } from './activity.ts';
import { normalizeAthlete } from './athlete.ts';
import type { IntervalsActivity, IntervalsAthlete } from './types.ts';
import {
  normalizeWellnessBody,
  normalizeWellnessDaily,
  normalizeWellnessSleep,
  type WellnessPayload,
} from './wellness.ts';

export type * from './types.ts';
export type { WellnessPayload } from './wellness.ts';

export const intervalsIcuNormalizers = {
  activity: normalizer({
    unifiedType: 'activity',
    companions: [],
    // A stub (an activity Intervals.icu may not pass on) has no length: nothing to record.
    normalize: (activity: IntervalsActivity, context) =>
      isActivityStub(activity) ? [] : [normalizeActivity(activity, context)],
  }),
  wellnessDaily: normalizer({
    unifiedType: 'daily',
    companions: ['wellness'],
    normalize: (payload: WellnessPayload, context) => normalizeWellnessDaily(payload, context),
  }),
  wellnessBody: normalizer({
    unifiedType: 'body',
    companions: ['wellness'],
    normalize: (payload: WellnessPayload, context) => normalizeWellnessBody(payload, context),
  }),
  wellnessSleep: normalizer({
    unifiedType: 'sleep',
    companions: ['wellness'],
    normalize: (payload: WellnessPayload, context) => normalizeWellnessSleep(payload, context),
  }),
  athlete: normalizer({
    unifiedType: 'athlete',
    companions: [],
    normalize: (athlete: IntervalsAthlete) => [normalizeAthlete(athlete)],
  }),
} as const;
