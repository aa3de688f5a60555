// Concept2 normalizer table: provider data kind -> unified type, companions, normalize().
// A `result` payload is one logbook result with its strokes; `user` is the profile.
import { normalizer } from '../../../provider-kit/normalize/normalize.ts';
import { normalizeUser } from './athlete.ts';
import { type Concept2ResultPayload, normalizeResult } from './result.ts';
import type { Concept2User } from './types.ts';

export type * from './types.ts';
export type { Concept2ResultPayload } from './result.ts';

export const concept2Normalizers = {
  result: normalizer({
    unifiedType: 'activity',
    companions: ['strokes'],
    normalize: (payload: Concept2ResultPayload, context) => [normalizeResult(payload, context)],
  }),
  user: normalizer({
    unifiedType: 'athlete',
    companions: [],
    normalize: (payload: { user: Concept2User }) => [normalizeUser(payload.user)],
  }),
} as const;
