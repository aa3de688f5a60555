import type { Provider } from '../../provider-kit/types.ts';

// Declared only (no connector yet). Facts: docs/providers.md#wahoo (Wahoo Cloud API):
// PKCE is allowed, credentials in the body, revocation is DELETE /v1/permissions.
export const wahoo: Provider = {
  declaration: {
    id: 'WAHOO',
    name: 'Wahoo',
    icon: { initials: 'WA', background: '#0B62B0' },
    authKind: 'oauth2_pkce',
    credentials: 'deployment',
    oauth: {
      authorizeUrl: 'https://api.wahooligan.com/oauth/authorize',
      tokenUrl: 'https://api.wahooligan.com/oauth/token',
      scopes: ['user_read', 'workouts_read', 'plans_read', 'plans_write', 'offline_data'],
      scopeSeparator: ' ',
      clientAuth: 'body',
      accountId: { from: 'userinfo', url: 'https://api.wahooligan.com/v1/user', path: 'id' },
      revoke: { url: 'https://api.wahooligan.com/v1/permissions', method: 'DELETE', token: 'bearer' },
    },
    dataTypes: ['activity', 'athlete', 'plannedWorkout'],
    writesPlannedWorkouts: true,
    historyDays: null,
    enabledByDefault: true,
  },
};
