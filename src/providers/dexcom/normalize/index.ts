// Dexcom normalizer table: provider data kind -> unified type, companions, normalize().
// Dexcom has no push; the framework polls dataRange and fetches `egvs` (with its companions
// `devices` and `events`) for the new window. A kind's payload is the `records` array of every
// window fetched for it, keyed by kind (legacy v2 `egvs` arrays are accepted as they are).
import { normalizer } from '../../../provider-kit/normalize/normalize.ts';
import { type DexcomBodyPayload, normalizeGlucose } from './glucose.ts';

export type { DexcomBodyPayload } from './glucose.ts';
export { dailyPatterns, daySummary, gmiOf } from './glucose-stats.ts';
export type * from './types.ts';

export const dexcomNormalizers = {
  egvs: normalizer({
    unifiedType: 'body',
    companions: ['devices', 'events'],
    normalize: (payload: DexcomBodyPayload, context) => normalizeGlucose(payload, context),
  }),
} as const;

export type DexcomDataKind = keyof typeof dexcomNormalizers;
