import type { Provider } from '../../provider-kit/types.ts';

// Facts: docs/providers.md#garmin (partner-gated): OAuth2 with PKCE required,
// credentials in the body, scopes fixed at app creation, user id from the partner gateway.
export const garmin: Provider = {
  declaration: {
    id: 'GARMIN',
    name: 'Garmin',
    icon: { initials: 'GA', background: '#007CC3' },
    authKind: 'oauth2_pkce',
    credentials: 'deployment',
    oauth: {
      authorizeUrl: 'https://connect.garmin.com/oauth2Confirm',
      tokenUrl: 'https://diauth.garmin.com/di-oauth2-service/oauth/token',
      scopes: [],
      scopeSeparator: ' ',
      clientAuth: 'body',
      accountId: {
        from: 'userinfo',
        url: 'https://apis.garmin.com/partner-gateway/rest/user/id',
        path: 'userId',
      },
      revoke: {
        url: 'https://apis.garmin.com/partner-gateway/rest/user/registration',
        method: 'DELETE',
        token: 'bearer',
      },
    },
    dataTypes: ['activity', 'athlete', 'body', 'daily', 'menstruation', 'sleep', 'plannedWorkout'],
    writesPlannedWorkouts: true,
    historyDays: 5 * 365,
    enabledByDefault: true,
  },
};
