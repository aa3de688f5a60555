import type { Provider } from '../../provider-kit/types.ts';
import { parseHealthConnectUpload } from '../../provider-kit/mobile/health-connect.ts';

// On-device data: no web consent; the mobile SDK creates the connection with a token from
// POST /v2/auth/generateAuthToken and uploads the data. The companion app sends Samsung Health
// data points as Health Connect records (Samsung Health syncs into Health Connect, and the
// Samsung Health Data SDK's types map onto these records), so the Health Connect reader serves.
export const samsung: Provider = {
  declaration: {
    id: 'SAMSUNG',
    name: 'Samsung Health',
    icon: { initials: 'SH', background: '#1428A0' },
    authKind: 'sdk',
    credentials: 'none',
    dataTypes: ['activity', 'body', 'daily', 'nutrition', 'sleep'],
    writesPlannedWorkouts: false,
    historyDays: null,
    enabledByDefault: true,
    deviceKind: 'phone',
  },
  connector: { mobile: { parseUpload: parseHealthConnectUpload } },
};
