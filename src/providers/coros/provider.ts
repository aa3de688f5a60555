import type { Provider } from '../../provider-kit/types.ts';

// Declared only, and off unless an operator opts in (`COROS_ENABLED=true`): COROS is
// partner-only and these endpoints come from public client code, not documentation
// (docs/providers.md#coros). Having no data source yet, it stays unavailable even then: the
// catalog offers no web provider that cannot read its data.
export const coros: Provider = {
  declaration: {
    id: 'COROS',
    name: 'COROS',
    icon: { initials: 'CO', background: '#E4002B' },
    authKind: 'oauth2',
    credentials: 'deployment',
    oauth: {
      authorizeUrl: 'https://open.coros.com/oauth2/authorize',
      tokenUrl: 'https://open.coros.com/oauth2/accesstoken',
      scopes: [],
      scopeSeparator: ' ',
      clientAuth: 'body',
      accountId: { from: 'token', path: 'openId' },
      revoke: {
        url: 'https://open.coros.com/oauth2/deauthorize',
        method: 'POST',
        token: { param: 'token', in: 'query' },
      },
    },
    dataTypes: ['activity', 'plannedWorkout'],
    writesPlannedWorkouts: true,
    historyDays: null,
    enabledByDefault: false,
    deviceKind: 'watch',
  },
};
