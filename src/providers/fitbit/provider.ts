import type { Provider } from '../../provider-kit/types.ts';

// Facts: docs/providers.md#fitbit (Fitbit Web API): PKCE recommended, Basic client auth,
// `user_id` in the token response, revocation at /oauth2/revoke.
export const fitbit: Provider = {
  declaration: {
    id: 'FITBIT',
    name: 'Fitbit',
    icon: { initials: 'FB', background: '#00B0B9' },
    authKind: 'oauth2_pkce',
    credentials: 'deployment',
    oauth: {
      authorizeUrl: 'https://www.fitbit.com/oauth2/authorize',
      tokenUrl: 'https://api.fitbit.com/oauth2/token',
      scopes: [
        'activity',
        'heartrate',
        'nutrition',
        'oxygen_saturation',
        'profile',
        'respiratory_rate',
        'sleep',
        'temperature',
        'weight',
      ],
      scopeSeparator: ' ',
      clientAuth: 'basic',
      accountId: { from: 'token', path: 'user_id' },
      revoke: {
        url: 'https://api.fitbit.com/oauth2/revoke',
        method: 'POST',
        token: { param: 'token', in: 'form' },
        clientAuth: 'basic',
      },
    },
    dataTypes: ['activity', 'athlete', 'body', 'daily', 'nutrition', 'sleep'],
    writesPlannedWorkouts: false,
    historyDays: null,
    enabledByDefault: true,
  },
};
