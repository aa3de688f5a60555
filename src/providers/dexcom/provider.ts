import { remoteProvider } from '../../provider-kit/define.ts';
import { dexcomApi } from './connector.ts';
import { dexcomFetchers } from './data-source.ts';

// Facts: docs/providers.md#dexcom (Dexcom v3): credentials in the body, `offline_access`
// for refresh, no revocation endpoint and no account-id endpoint.
export const dexcom = remoteProvider({
  declaration: {
    id: 'DEXCOM',
    name: 'Dexcom',
    icon: { initials: 'DX', background: '#58A618' },
    authKind: 'oauth2',
    credentials: 'deployment',
    oauth: {
      authorizeUrl: 'https://api.dexcom.com/v2/oauth2/login',
      tokenUrl: 'https://api.dexcom.com/v2/oauth2/token',
      scopes: ['offline_access'],
      scopeSeparator: ' ',
      clientAuth: 'body',
    },
    dataTypes: ['body'],
    writesPlannedWorkouts: false,
    historyDays: null,
    enabledByDefault: true,
    deviceKind: 'sensor',
  },
  api: dexcomApi,
  fetchers: dexcomFetchers,
  // Dexcom pushes nothing: `api.poll` drives a scheduled sync per connected user instead.
  notifications: null,
});
