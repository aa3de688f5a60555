import { dataTypeNames } from '../../model/index.ts';
import type { Provider } from '../../provider-kit/types.ts';
import { CONSENT_PATH, TOKEN_PATH } from './consent.ts';
import { sandboxDataSource } from './data-source.ts';
import { exchangeCode } from './grant.ts';

export const SANDBOX_PROVIDER_ID = 'SANDBOX';

/**
 * A provider with no external account. Tributary hosts its consent page (Approve / Deny), so
 * the whole OAuth2 + PKCE redirect flow runs on a fresh machine; its data is generated.
 */
export const sandbox: Provider = {
  declaration: {
    id: SANDBOX_PROVIDER_ID,
    name: 'Sandbox',
    icon: { initials: 'SB', background: '#6D28D9' },
    authKind: 'oauth2_pkce',
    credentials: 'none',
    oauth: {
      authorizeUrl: CONSENT_PATH,
      tokenUrl: TOKEN_PATH,
      scopes: [
        'activity',
        'athlete',
        'body',
        'daily',
        'hormone',
        'menstruation',
        'nutrition',
        'sleep',
        'workouts',
      ],
      scopeSeparator: ' ',
      clientAuth: 'body',
      languageParam: 'ui_locales',
      accountId: { from: 'token', path: 'account_id' },
    },
    dataTypes: [...dataTypeNames, 'athlete'],
    writesPlannedWorkouts: true,
    historyDays: null,
    enabledByDefault: true,
    deviceKind: 'watch',
  },
  connector: {
    exchangeCode,
    data: sandboxDataSource,
  },
};
