import type { Provider } from '../../provider-kit/types.ts';

// On-device data: no web consent; the mobile SDK creates the connection with a token from
// POST /v2/auth/generateAuthToken and uploads the data.
export const googleFit: Provider = {
  declaration: {
    id: 'GOOGLEFIT',
    name: 'Google Fit',
    icon: { initials: 'GF', background: '#34A853' },
    authKind: 'sdk',
    credentials: 'none',
    dataTypes: ['activity', 'body', 'daily', 'nutrition', 'sleep'],
    writesPlannedWorkouts: false,
    historyDays: null,
    enabledByDefault: true,
    deviceKind: 'phone',
  },
};
