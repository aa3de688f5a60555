import type { Provider } from '../../provider-kit/types.ts';

// Declared only. Facts: docs/providers.md#concept2 (Concept2 Logbook): comma-separated scopes,
// credentials in the body, user from /api/users/me.
export const concept2: Provider = {
  declaration: {
    id: 'CONCEPT2',
    name: 'Concept2 Logbook',
    icon: { initials: 'C2', background: '#003A70' },
    authKind: 'oauth2',
    credentials: 'deployment',
    oauth: {
      authorizeUrl: 'https://log.concept2.com/oauth/authorize',
      tokenUrl: 'https://log.concept2.com/oauth/access_token',
      scopes: ['user:read', 'results:read'],
      scopeSeparator: ',',
      clientAuth: 'body',
      accountId: { from: 'userinfo', url: 'https://log.concept2.com/api/users/me', path: 'data.id' },
    },
    dataTypes: ['activity'],
    writesPlannedWorkouts: false,
    historyDays: null,
    enabledByDefault: true,
  },
};
