import type { Provider } from '../../provider-kit/types.ts';
import { appleMobile } from './mobile.ts';

// On-device data: no web consent; the mobile SDK creates the connection with a token from
// POST /v2/auth/generateAuthToken and uploads the data.
export const apple: Provider = {
  declaration: {
    id: 'APPLE',
    name: 'Apple Health',
    icon: { initials: 'AH', background: '#FF2D55' },
    authKind: 'sdk',
    credentials: 'none',
    dataTypes: [
      'activity',
      'athlete',
      'body',
      'daily',
      'menstruation',
      'nutrition',
      'sleep',
      'plannedWorkout',
    ],
    writesPlannedWorkouts: true,
    historyDays: null,
    enabledByDefault: true,
    deviceKind: 'phone',
  },
  connector: { mobile: appleMobile },
};
