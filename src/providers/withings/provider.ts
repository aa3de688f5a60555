import { remoteProvider } from '../../provider-kit/define.ts';
import { withingsApi, withingsNotifications } from './connector.ts';
import { withingsFetchers } from './data-source.ts';

// Facts: docs/providers.md#withings: token call is `action=requesttoken` and the
// answer is wrapped in `{status, body}`. Revocation needs a signed nonce, so none is declared:
// the user revokes in their Withings account.
export const withings = remoteProvider({
  declaration: {
    id: 'WITHINGS',
    name: 'Withings',
    icon: { initials: 'WI', background: '#00A3A1' },
    authKind: 'oauth2',
    credentials: 'deployment',
    oauth: {
      authorizeUrl: 'https://account.withings.com/oauth2_user/authorize2',
      tokenUrl: 'https://wbsapi.withings.net/v2/oauth2',
      scopes: ['user.info', 'user.metrics', 'user.activity', 'user.sleepevents'],
      scopeSeparator: ',',
      clientAuth: 'body',
      tokenParams: { action: 'requesttoken' },
      // Refreshes go to the same action; each one issues a new refresh token.
      refreshParams: { action: 'requesttoken' },
      tokenResponsePath: 'body',
      accountId: { from: 'token', path: 'userid' },
    },
    // No athlete: user.info gives no profile document (MAPPING.md).
    dataTypes: ['activity', 'body', 'daily', 'sleep'],
    writesPlannedWorkouts: false,
    historyDays: null,
    enabledByDefault: true,
    deviceKind: 'scale',
  },
  api: withingsApi,
  fetchers: withingsFetchers,
  notifications: withingsNotifications,
});
