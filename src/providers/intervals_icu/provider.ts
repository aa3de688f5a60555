import { remoteProvider } from '../../provider-kit/define.ts';
import { intervalsIcuApi, intervalsIcuNotifications } from './connector.ts';
import { intervalsIcuFetchers } from './data-source.ts';
import { intervalsPlannedWorkouts } from './planned-workouts.ts';

// Facts: docs/providers.md#intervalsicu. OAuth (forum.intervals.icu t/2759 "Intervals.icu
// OAuth support"): authorize at intervals.icu/oauth/authorize with comma-separated scopes
// (ACTIVITY, WELLNESS, CALENDAR, SETTINGS, each :READ or :WRITE); the code is exchanged within
// 2 minutes at intervals.icu/api/oauth/token with the client credentials in the form body; the
// answer holds access_token, scope and the athlete, and no refresh token or expiry. The stable
// athlete id (`i…`, the form webhooks use) is read from GET /api/v1/athlete/0. The OpenAPI
// document (intervals.icu/api/v1/docs) lists DELETE /api/v1/disconnect-app, which disconnects
// the athlete from the app the bearer token belongs to.
export const intervalsIcu = remoteProvider({
  declaration: {
    id: 'INTERVALS_ICU',
    name: 'Intervals.icu',
    icon: { initials: 'ICU', background: '#1E6FD9' },
    authKind: 'oauth2',
    credentials: 'deployment',
    oauth: {
      authorizeUrl: 'https://intervals.icu/oauth/authorize',
      tokenUrl: 'https://intervals.icu/api/oauth/token',
      scopes: ['ACTIVITY:READ', 'WELLNESS:READ', 'CALENDAR:WRITE'],
      scopeSeparator: ',',
      clientAuth: 'body',
      accountId: { from: 'userinfo', url: 'https://intervals.icu/api/v1/athlete/0', path: 'id' },
      revoke: { url: 'https://intervals.icu/api/v1/disconnect-app', method: 'DELETE', token: 'bearer' },
    },
    dataTypes: ['activity', 'daily', 'body', 'sleep', 'athlete', 'plannedWorkout'],
    writesPlannedWorkouts: true,
    historyDays: null,
    enabledByDefault: true,
    deviceKind: 'app',
  },
  api: intervalsIcuApi,
  fetchers: intervalsIcuFetchers,
  plannedWorkouts: intervalsPlannedWorkouts,
  notifications: intervalsIcuNotifications,
});
