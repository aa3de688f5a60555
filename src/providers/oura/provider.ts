import { remoteProvider } from '../../provider-kit/define.ts';
import { ouraApi, ouraNotifications } from './connector.ts';
import { ouraFetchers } from './data-source.ts';

// Facts: docs/providers.md#oura (Oura API v2). PKCE is not documented, so none is sent.
export const oura = remoteProvider({
  declaration: {
    id: 'OURA',
    name: 'Oura',
    icon: { initials: 'OU', background: '#1B1F3B' },
    authKind: 'oauth2',
    credentials: 'deployment',
    oauth: {
      authorizeUrl: 'https://cloud.ouraring.com/oauth/authorize',
      tokenUrl: 'https://api.ouraring.com/oauth/token',
      scopes: ['email', 'personal', 'daily', 'heartrate', 'workout', 'tag', 'session', 'spo2'],
      scopeSeparator: ' ',
      clientAuth: 'body',
      // The token response carries no user id; personal_info works with any token.
      accountId: {
        from: 'userinfo',
        url: 'https://api.ouraring.com/v2/usercollection/personal_info',
        path: 'id',
      },
      revoke: {
        url: 'https://api.ouraring.com/oauth/revoke',
        method: 'POST',
        token: { param: 'access_token', in: 'query' },
      },
    },
    dataTypes: ['activity', 'athlete', 'body', 'daily', 'sleep'],
    writesPlannedWorkouts: false,
    historyDays: null,
    enabledByDefault: true,
    deviceKind: 'ring',
  },
  api: ouraApi,
  fetchers: ouraFetchers,
  notifications: ouraNotifications,
});
