// Withings normalizer table: provider data kind -> unified type, companions, normalize().
// Every Withings answer is `{status, body}`; a kind's payload is the `body` (or the bodies of all
// its pages) keyed by kind: `measure` (measure?action=getmeas), `heart` (v2/heart?action=list),
// `heart_signal` (v2/heart?action=get bodies keyed by signalid), `activity` (v2/measure?
// action=getactivity), `intraday_activity` (getintradayactivity), `workouts` (getworkouts),
// `sleep_summary` (v2/sleep?action=getsummary) and `sleep` (v2/sleep?action=get). Kinds that only
// complete another kind's records have no row. Notify appli -> kind: 1 and 4 -> measure,
// 16 -> activity and workouts, 44 -> sleep_summary, 54 -> measure (its heart companion).
import { normalizer } from '../../../provider-kit/normalize/normalize.ts';
import { normalizeBody, type WithingsBodyPayload } from './body.ts';
import { normalizeDaily, type WithingsDailyPayload } from './daily.ts';
import { normalizeSleep, type WithingsSleepPayload } from './sleep.ts';
import { normalizeWorkouts, type WithingsWorkoutPayload } from './workout.ts';

export type { WithingsBodyPayload } from './body.ts';
export type { WithingsDailyPayload } from './daily.ts';
export type { WithingsSleepPayload } from './sleep.ts';
export type * from './types.ts';
export type { WithingsWorkoutPayload } from './workout.ts';

export const withingsNormalizers = {
  measure: normalizer({
    unifiedType: 'body',
    companions: ['heart', 'heart_signal'],
    normalize: (payload: WithingsBodyPayload, context) => normalizeBody(payload, context),
  }),
  activity: normalizer({
    unifiedType: 'daily',
    companions: ['intraday_activity'],
    normalize: (payload: WithingsDailyPayload, context) => normalizeDaily(payload, context),
  }),
  workouts: normalizer({
    unifiedType: 'activity',
    companions: [],
    normalize: (payload: WithingsWorkoutPayload, context) => normalizeWorkouts(payload, context),
  }),
  sleep_summary: normalizer({
    unifiedType: 'sleep',
    companions: ['sleep'],
    normalize: (payload: WithingsSleepPayload, context) => normalizeSleep(payload, context),
  }),
} as const;

export type WithingsDataKind = keyof typeof withingsNormalizers;
