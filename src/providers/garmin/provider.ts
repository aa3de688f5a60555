import { remoteProvider } from '../../provider-kit/define.ts';
import { garminApi, garminNotifications } from './connector.ts';
import { garminRoutes } from './courses.ts';
import { GARMIN_HISTORY_DAYS, garminFetchers } from './data-source.ts';
import { garminPlannedWorkoutFetcher, garminPlannedWorkouts } from './training.ts';

// Facts: docs/providers.md#garmin and ../shared/reference/providers-3.md §2 (partner-gated; the
// public programme pages and open-source integrations [C]): OAuth2 with PKCE required,
// credentials in the body, scopes fixed at app creation, user id from the partner gateway,
// deleting the user registration revokes access. Data by upload window (pings / pushes and
// pulls), backfill by request. Planned workouts go out through the Training API (training.ts;
// the user must grant WORKOUT_IMPORT); Women's Health cycle tracking (`mct`) is menstruation.
export const garmin = remoteProvider({
  declaration: {
    id: 'GARMIN',
    name: 'Garmin',
    icon: { initials: 'GA', background: '#007CC3' },
    authKind: 'oauth2_pkce',
    credentials: 'deployment',
    oauth: {
      authorizeUrl: 'https://connect.garmin.com/oauth2Confirm',
      tokenUrl: 'https://diauth.garmin.com/di-oauth2-service/oauth/token',
      scopes: [],
      scopeSeparator: ' ',
      clientAuth: 'body',
      accountId: {
        from: 'userinfo',
        url: 'https://apis.garmin.com/partner-gateway/rest/user/id',
        path: 'userId',
      },
      revoke: {
        url: 'https://apis.garmin.com/partner-gateway/rest/user/registration',
        method: 'DELETE',
        token: 'bearer',
      },
    },
    dataTypes: ['activity', 'athlete', 'body', 'daily', 'sleep', 'plannedWorkout', 'menstruation'],
    writesPlannedWorkouts: true,
    historyDays: GARMIN_HISTORY_DAYS,
    enabledByDefault: true,
    deviceKind: 'watch',
  },
  api: garminApi,
  fetchers: { ...garminFetchers, plannedWorkout: garminPlannedWorkoutFetcher },
  plannedWorkouts: garminPlannedWorkouts,
  routes: garminRoutes,
  notifications: garminNotifications,
});
