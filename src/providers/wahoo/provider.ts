import { remoteProvider } from '../../provider-kit/define.ts';
import { wahooApi, wahooNotifications } from './connector.ts';
import { wahooFetchers } from './data-source.ts';
import { wahooRoutes } from './routes.ts';

// Facts: docs/providers.md#wahoo and ../shared/reference/providers-3.md §4 (Wahoo Cloud API):
// PKCE is allowed, credentials in the body, 2-hour access tokens with single-use refresh
// tokens, revocation is DELETE /v1/permissions; `offline_data` is needed for webhooks.
// Planned workouts (plans_*) are not offered yet: see MAPPING.md.
export const wahoo = remoteProvider({
  declaration: {
    id: 'WAHOO',
    name: 'Wahoo',
    icon: { initials: 'WA', background: '#0B62B0' },
    authKind: 'oauth2_pkce',
    credentials: 'deployment',
    oauth: {
      authorizeUrl: 'https://api.wahooligan.com/oauth/authorize',
      tokenUrl: 'https://api.wahooligan.com/oauth/token',
      scopes: ['user_read', 'workouts_read', 'offline_data', 'routes_write'],
      scopeSeparator: ' ',
      clientAuth: 'body',
      accountId: { from: 'userinfo', url: 'https://api.wahooligan.com/v1/user', path: 'id' },
      revoke: { url: 'https://api.wahooligan.com/v1/permissions', method: 'DELETE', token: 'bearer' },
    },
    dataTypes: ['activity', 'athlete'],
    writesPlannedWorkouts: false,
    historyDays: null,
    enabledByDefault: true,
    deviceKind: 'sensor',
  },
  api: wahooApi,
  fetchers: wahooFetchers,
  notifications: wahooNotifications,
  routes: wahooRoutes,
});
