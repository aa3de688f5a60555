import { remoteProvider } from '../../provider-kit/define.ts';
import { whoopApi, whoopNotifications } from './connector.ts';
import { whoopFetchers } from './data-source.ts';

// Facts: docs/providers.md#whoop (WHOOP API v2): `offline` is what yields a refresh token.
export const whoop = remoteProvider({
  declaration: {
    id: 'WHOOP',
    name: 'WHOOP',
    icon: { initials: 'WH', background: '#101010' },
    authKind: 'oauth2',
    credentials: 'deployment',
    oauth: {
      authorizeUrl: 'https://api.prod.whoop.com/oauth/oauth2/auth',
      tokenUrl: 'https://api.prod.whoop.com/oauth/oauth2/token',
      scopes: [
        'offline',
        'read:recovery',
        'read:cycles',
        'read:workout',
        'read:sleep',
        'read:profile',
        'read:body_measurement',
      ],
      scopeSeparator: ' ',
      clientAuth: 'body',
      // Without it the refreshed grant carries no new refresh token.
      refreshParams: { scope: 'offline' },
      accountId: {
        from: 'userinfo',
        url: 'https://api.prod.whoop.com/developer/v2/user/profile/basic',
        path: 'user_id',
      },
      revoke: {
        url: 'https://api.prod.whoop.com/developer/v2/user/access',
        method: 'DELETE',
        token: 'bearer',
      },
    },
    dataTypes: ['activity', 'athlete', 'body', 'daily', 'sleep'],
    writesPlannedWorkouts: false,
    historyDays: null,
    enabledByDefault: true,
    deviceKind: 'band',
  },
  api: whoopApi,
  fetchers: whoopFetchers,
  notifications: whoopNotifications,
});
