import { remoteProvider } from '../../provider-kit/define.ts';
import { huaweiApi, huaweiNotifications } from './connector.ts';
import { huaweiFetchers } from './data-source.ts';

// Facts: docs/providers.md#huawei-health-kit. OAuth through HUAWEI ID (Account Kit, "Web app
// authorization code"): authorize at oauth-login.cloud.huawei.com/oauth2/v3/authorize with
// space-separated scopes; `access_type=offline` asks for a refresh token; the code is exchanged
// at /oauth2/v3/token with client_id and client_secret in the form body; access tokens last
// 3600 s, refresh tokens about 180 days. With the `openid` scope the answer carries an
// `id_token` whose `openid` claim is the user's OpenID for this app (Account Kit "ID Token"
// field list: `sub` is the UnionID, `openid` the OpenID), the id Health Kit notifications name.
// Health Kit scopes (`https://www.huawei.com/healthkit/<area>.read`) are listed on HMSCore
// Health Kit "Scopes" [C for the exact names of the body scopes].
export const huawei = remoteProvider({
  declaration: {
    id: 'HUAWEI',
    name: 'Huawei Health',
    icon: { initials: 'HW', background: '#CF0A2C' },
    authKind: 'oauth2',
    credentials: 'deployment',
    oauth: {
      authorizeUrl: 'https://oauth-login.cloud.huawei.com/oauth2/v3/authorize',
      tokenUrl: 'https://oauth-login.cloud.huawei.com/oauth2/v3/token',
      scopes: [
        'openid',
        'https://www.huawei.com/healthkit/step.read',
        'https://www.huawei.com/healthkit/distance.read',
        'https://www.huawei.com/healthkit/calories.read',
        'https://www.huawei.com/healthkit/heartrate.read',
        'https://www.huawei.com/healthkit/oxygensaturation.read',
        'https://www.huawei.com/healthkit/heightweight.read',
        'https://www.huawei.com/healthkit/bloodpressure.read',
        'https://www.huawei.com/healthkit/bloodglucose.read',
        'https://www.huawei.com/healthkit/sleep.read',
        'https://www.huawei.com/healthkit/activityrecord.read',
      ],
      scopeSeparator: ' ',
      clientAuth: 'body',
      authorizeParams: { access_type: 'offline' },
      accountId: { from: 'idToken', claim: 'openid' },
    },
    dataTypes: ['activity', 'daily', 'body', 'sleep'],
    writesPlannedWorkouts: false,
    historyDays: null,
    // Off until an operator sets HUAWEI_ENABLED=true: several facts are from client libraries
    // only (listed in docs/providers.md#huawei-health-kit).
    enabledByDefault: false,
    deviceKind: 'watch',
  },
  api: huaweiApi,
  fetchers: huaweiFetchers,
  notifications: huaweiNotifications,
});
