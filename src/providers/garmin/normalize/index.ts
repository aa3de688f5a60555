// Garmin normalizer table: the notification / pull names of Garmin's summary types -> unified
// type, companions, normalize(). A payload holds each kind's summaries keyed by that name, as
// Garmin's own ping and push bodies do (`{"dailies":[…], "epochs":[…]}`).
import type { Athlete } from '../../../model/athlete.ts';
import type { Menstruation } from '../../../model/menstruation.ts';
import { type NormalizeContext, normalizer } from '../../../provider-kit/normalize/normalize.ts';
import { type GarminActivityPayload, normalizeActivities } from './activity.ts';
import { type GarminBodyPayload, normalizeBody } from './body.ts';
import { type GarminDailyPayload, normalizeDailies } from './daily.ts';
import { type GarminMenstruationPayload, normalizeMenstruation } from './menstruation.ts';
import { type GarminSleepPayload, normalizeSleeps } from './sleep.ts';

export type { GarminActivityPayload } from './activity.ts';
export type { GarminBodyPayload } from './body.ts';
export type { GarminDailyPayload } from './daily.ts';
export type { GarminMenstruationPayload } from './menstruation.ts';
export type { GarminSleepPayload } from './sleep.ts';
export type * from './types.ts';

export const garminNormalizers = {
  dailies: normalizer({
    unifiedType: 'daily',
    companions: ['epochs', 'stressDetails', 'pulseox'],
    normalize: (payload: GarminDailyPayload, context) => normalizeDailies(payload, context),
  }),
  sleeps: normalizer({
    unifiedType: 'sleep',
    companions: ['hrv', 'allDayRespiration'],
    normalize: (payload: GarminSleepPayload, context) => normalizeSleeps(payload, context),
  }),
  bodyComps: normalizer({
    unifiedType: 'body',
    companions: ['userMetrics'],
    normalize: (payload: GarminBodyPayload, context) => normalizeBody(payload, context),
  }),
  activities: normalizer({
    unifiedType: 'activity',
    companions: ['activityDetails', 'manuallyUpdatedActivities'],
    normalize: (payload: GarminActivityPayload, context) => normalizeActivities(payload, context),
  }),
  // Written out rather than through normalizer(): the kit's UnifiedRecords table (shared, edited
  // in another branch) does not list menstruation yet; the row has the same shape.
  mct: {
    unifiedType: 'menstruation' as const,
    companions: [] as readonly string[],
    normalize: (payload: GarminMenstruationPayload, context: NormalizeContext): Menstruation[] =>
      normalizeMenstruation(payload, context),
  },
  user: normalizer({
    unifiedType: 'athlete',
    companions: [],
    normalize: (payload: { userId: string }): Athlete[] => [{ provider_user_id: payload.userId }],
  }),
} as const;

export type GarminDataKind = keyof typeof garminNormalizers;
