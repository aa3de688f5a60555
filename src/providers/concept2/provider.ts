import { remoteProvider } from '../../provider-kit/define.ts';
import { concept2Api, concept2Notifications } from './connector.ts';
import { concept2Fetchers } from './data-source.ts';

// Facts: docs/providers.md#concept2 and ../shared/reference/providers-3.md §6 (Concept2
// Logbook): comma-separated scopes, credentials in the body, the user from /api/users/me
// (wrapped in `data`). No revocation endpoint is documented.
export const concept2 = remoteProvider({
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
    dataTypes: ['activity', 'athlete'],
    writesPlannedWorkouts: false,
    historyDays: null,
    enabledByDefault: true,
    deviceKind: 'sensor',
  },
  api: concept2Api,
  fetchers: concept2Fetchers,
  notifications: concept2Notifications,
});
