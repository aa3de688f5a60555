import { remoteProvider } from '../../provider-kit/define.ts';
import { trainingPeaksApi } from './connector.ts';
import { trainingPeaksFetchers } from './data-source.ts';
import { tpPlannedWorkouts } from './planned-workouts.ts';

// Facts: docs/providers.md#trainingpeaks (the Partners API wiki, github.com/TrainingPeaks/
// PartnersAPI/wiki, and TrainingPeaks' own OAuth example, github.com/TrainingPeaks/
// tp-public-api-auth). OAuth 2.0 authorization code at oauth.trainingpeaks.com (`/OAuth/Authorize`,
// `/oauth/token`, `/oauth/deauthorize`), client credentials and grant in the form body, short-lived
// access tokens (`expires_in`) with a refresh token, both replaced on refresh (the example keeps
// the refreshed `refresh_token`). The athlete id is GET /v1/athlete/profile `Id`. Access is
// granted to partners only ("not accepting any API requests for personal use").
export const trainingpeaks = remoteProvider({
  declaration: {
    id: 'TRAININGPEAKS',
    name: 'TrainingPeaks',
    icon: { initials: 'TP', background: '#1F6FB5' },
    authKind: 'oauth2',
    credentials: 'deployment',
    oauth: {
      authorizeUrl: 'https://oauth.trainingpeaks.com/OAuth/Authorize',
      tokenUrl: 'https://oauth.trainingpeaks.com/oauth/token',
      scopes: ['athlete:profile', 'workouts:read', 'workouts:plan', 'metrics:read'],
      scopeSeparator: ' ',
      clientAuth: 'body',
      accountId: { from: 'userinfo', url: 'https://api.trainingpeaks.com/v1/athlete/profile', path: 'Id' },
      revoke: { url: 'https://oauth.trainingpeaks.com/oauth/deauthorize', method: 'POST', token: 'bearer' },
    },
    dataTypes: ['activity', 'daily', 'body', 'sleep', 'athlete', 'plannedWorkout'],
    writesPlannedWorkouts: true,
    historyDays: null,
    enabledByDefault: true,
    deviceKind: 'app',
  },
  api: trainingPeaksApi,
  fetchers: trainingPeaksFetchers,
  plannedWorkouts: tpPlannedWorkouts,
  notifications: null,
});
