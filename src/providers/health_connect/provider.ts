import type { Provider } from '../../provider-kit/types.ts';
import { parseHealthConnectUpload } from '../../provider-kit/mobile/health-connect.ts';

// On-device data: the mobile SDK creates the connection with a token from
// POST /v2/auth/generateAuthToken and uploads the data. Health Connect serves 30 days of
// history, and nothing from before the permission was granted.
export const healthConnect: Provider = {
  declaration: {
    id: 'HEALTH_CONNECT',
    name: 'Health Connect',
    icon: { initials: 'HC', background: '#4285F4' },
    authKind: 'sdk',
    credentials: 'none',
    dataTypes: ['activity', 'body', 'daily', 'menstruation', 'nutrition', 'sleep'],
    writesPlannedWorkouts: false,
    historyDays: 30,
    enabledByDefault: true,
    deviceKind: 'phone',
  },
  connector: { mobile: { parseUpload: parseHealthConnectUpload } },
};
