import { remoteProvider } from '../../provider-kit/define.ts';
import { fitbitApi, fitbitNotifications } from './connector.ts';
import { fitbitFetchers } from './data-source.ts';

// Facts: ../shared/reference/providers-3.md §3 and providers.md §10 (developers.google.com/health):
// the legacy Fitbit Web API and its OAuth endpoints were turned off on 2026-11-02 (HTTP 410), so
// FITBIT is the Google Health API (health.googleapis.com/v4), which serves Fitbit and Pixel Watch
// data. Google OAuth 2.0 with PKCE, offline access (a refresh token) and consent every time,
// `googlehealth.*` read-only scopes (restricted: Google's verification is needed for production);
// the account id is the `healthUserId` of users/me/identity; revocation at oauth2.googleapis.com.
// Legacy Fitbit tokens do not carry over: users re-consent (docs/providers.md#fitbit).
const SCOPE = 'https://www.googleapis.com/auth/googlehealth';

export const fitbit = remoteProvider({
  declaration: {
    id: 'FITBIT',
    name: 'Fitbit',
    icon: { initials: 'FB', background: '#00B0B9' },
    authKind: 'oauth2_pkce',
    credentials: 'deployment',
    oauth: {
      authorizeUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
      tokenUrl: 'https://oauth2.googleapis.com/token',
      scopes: [
        `${SCOPE}.activity_and_fitness.readonly`,
        `${SCOPE}.health_metrics_and_measurements.readonly`,
        `${SCOPE}.sleep.readonly`,
        `${SCOPE}.nutrition.readonly`,
        `${SCOPE}.profile.readonly`,
      ],
      scopeSeparator: ' ',
      clientAuth: 'basic',
      authorizeParams: { access_type: 'offline', prompt: 'consent' },
      accountId: {
        from: 'userinfo',
        url: 'https://health.googleapis.com/v4/users/me/identity',
        path: 'healthUserId',
      },
      revoke: {
        url: 'https://oauth2.googleapis.com/revoke',
        method: 'POST',
        token: { param: 'token', in: 'form' },
      },
    },
    dataTypes: ['activity', 'athlete', 'body', 'daily', 'nutrition', 'sleep'],
    writesPlannedWorkouts: false,
    historyDays: null,
    enabledByDefault: true,
    deviceKind: 'band',
  },
  api: fitbitApi,
  fetchers: fitbitFetchers,
  notifications: fitbitNotifications,
});
