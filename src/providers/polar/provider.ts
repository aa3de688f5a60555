import { remoteProvider } from '../../provider-kit/define.ts';
import { polarApi, polarNotifications } from './connector.ts';
import { polarFetchers } from './data-source.ts';

// Facts: docs/providers.md#polar (Polar AccessLink v3): Basic client auth, no refresh
// tokens, `x_user_id` in the token response; deregistering the user revokes the token.
export const polar = remoteProvider({
  declaration: {
    id: 'POLAR',
    name: 'Polar',
    icon: { initials: 'PO', background: '#D10027' },
    authKind: 'oauth2',
    credentials: 'deployment',
    oauth: {
      authorizeUrl: 'https://flow.polar.com/oauth2/authorization',
      tokenUrl: 'https://polarremote.com/v2/oauth2/token',
      scopes: ['accesslink.read_all'],
      scopeSeparator: ' ',
      clientAuth: 'basic',
      accountId: { from: 'token', path: 'x_user_id' },
      revoke: {
        url: 'https://www.polaraccesslink.com/v3/users/{provider_user_id}',
        method: 'DELETE',
        token: 'bearer',
      },
    },
    dataTypes: ['activity', 'athlete', 'body', 'daily', 'sleep'],
    writesPlannedWorkouts: false,
    // Daily activity and continuous heart rate go back 365 days; exercises (30) and sleep (28)
    // are served for less, and their fetchers simply find nothing older.
    historyDays: 365,
    enabledByDefault: true,
    deviceKind: 'watch',
  },
  api: polarApi,
  fetchers: polarFetchers,
  notifications: polarNotifications,
});
