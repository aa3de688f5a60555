import { remoteProvider } from '../../provider-kit/define.ts';
import { stravaApi, stravaNotifications } from './connector.ts';
import { stravaFetchers } from './data-source.ts';

// Facts: docs/providers.md#strava (Strava API v3): no PKCE, comma-separated scopes, the
// athlete comes with the code exchange.
export const strava = remoteProvider({
  declaration: {
    id: 'STRAVA',
    name: 'Strava',
    icon: { initials: 'ST', background: '#FC4C02' },
    authKind: 'oauth2',
    credentials: 'deployment',
    oauth: {
      authorizeUrl: 'https://www.strava.com/oauth/authorize',
      tokenUrl: 'https://www.strava.com/oauth/token',
      scopes: ['read', 'profile:read_all', 'activity:read_all'],
      scopeSeparator: ',',
      clientAuth: 'body',
      authorizeParams: { approval_prompt: 'auto' },
      accountId: { from: 'token', path: 'athlete.id' },
      revoke: {
        url: 'https://www.strava.com/oauth/deauthorize',
        method: 'POST',
        token: { param: 'access_token', in: 'form' },
      },
    },
    dataTypes: ['activity', 'athlete'],
    writesPlannedWorkouts: false,
    historyDays: null,
    enabledByDefault: true,
    deviceKind: 'app',
  },
  api: stravaApi,
  fetchers: stravaFetchers,
  notifications: stravaNotifications,
});
