import type { Provider } from '../../provider-kit/types.ts';

// Declared only. Facts: docs/providers.md#suunto (partner-gated): Basic client auth;
// the account (`user` claim of the JWT) is not read yet, so reconnections are not recognised.
export const suunto: Provider = {
  declaration: {
    id: 'SUUNTO',
    name: 'Suunto',
    icon: { initials: 'SU', background: '#1A1A1A' },
    authKind: 'oauth2',
    credentials: 'deployment',
    oauth: {
      authorizeUrl: 'https://cloudapi-oauth.suunto.com/oauth/authorize',
      tokenUrl: 'https://cloudapi-oauth.suunto.com/oauth/token',
      scopes: [],
      scopeSeparator: ' ',
      clientAuth: 'basic',
    },
    dataTypes: ['activity', 'daily', 'sleep', 'plannedWorkout'],
    writesPlannedWorkouts: true,
    historyDays: null,
    enabledByDefault: true,
  },
};
