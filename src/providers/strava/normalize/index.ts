// Strava normalizer table: provider data kind -> unified type, companions, normalize().
// An `activity` payload is one activity with its sub-resources (streams, laps, zones) fetched by
// id; `athlete_zones` is the athlete-level companion used for time-in-zone. Strava has no daily,
// sleep or body data.
import { normalizer } from '../../../provider-kit/normalize/normalize.ts';
import { normalizeActivity, type StravaActivityPayload } from './activity.ts';
import { normalizeAthlete } from './athlete.ts';
import type { StravaAthlete } from './types.ts';

export type { StravaActivityPayload } from './activity.ts';
export { parseStravaJson } from './json.ts';
export { activityTypeOf, stravaSportTypes } from './sport-types.ts';
export type * from './types.ts';

export const stravaNormalizers = {
  activity: normalizer({
    unifiedType: 'activity',
    companions: ['streams', 'laps', 'activity_zones', 'athlete_zones'],
    normalize: (payload: StravaActivityPayload, context) => [normalizeActivity(payload, context)],
  }),
  athlete: normalizer({
    unifiedType: 'athlete',
    companions: [],
    normalize: (payload: { athlete: StravaAthlete }) => [normalizeAthlete(payload.athlete)],
  }),
} as const;

export type StravaDataKind = keyof typeof stravaNormalizers;
