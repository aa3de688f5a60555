import { remoteProvider } from '../../provider-kit/define.ts';
import { suuntoApi, suuntoNotifications } from './connector.ts';
import { suuntoFetchers } from './data-source.ts';

// Facts: docs/providers.md#suunto and ../shared/reference/providers-3.md §5 (Suunto Cloud API,
// API Zone): Basic client auth at the token endpoint, a JWT access token whose `user` claim
// (also in the token answer) is the account; every API call also needs the APIM subscription
// key (SUUNTO_SUBSCRIPTION_KEY). No revocation endpoint is documented.
export const suunto = remoteProvider({
  declaration: {
    id: 'SUUNTO',
    name: 'Suunto',
    icon: { initials: 'SU', background: '#1A1A1A' },
    authKind: 'oauth2',
    credentials: 'deployment',
    oauth: {
      authorizeUrl: 'https://cloudapi-oauth.suunto.com/oauth/authorize',
      tokenUrl: 'https://cloudapi-oauth.suunto.com/oauth/token',
      scopes: ['workout'],
      scopeSeparator: ' ',
      clientAuth: 'basic',
      accountId: { from: 'token', path: 'user' },
    },
    dataTypes: ['activity', 'sleep'],
    writesPlannedWorkouts: false,
    historyDays: null,
    enabledByDefault: true,
    deviceKind: 'watch',
  },
  api: suuntoApi,
  fetchers: suuntoFetchers,
  notifications: suuntoNotifications,
});
