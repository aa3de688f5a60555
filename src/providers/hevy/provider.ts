import { remoteProvider } from '../../provider-kit/define.ts';
import { checkHevyKey, hevyApi } from './connector.ts';
import { hevyFetchers } from './data-source.ts';

// Facts: docs/providers.md#hevy, from the Hevy OpenAPI document (api.hevyapp.com/docs, "Hevy API
// Docs" 0.0.1): base https://api.hevyapp.com, every operation takes the user's key in an
// `api-key` header ("only available to Hevy Pro users … get your key … at
// https://hevy.com/settings?developer"). Workouts with exercises and sets; no OAuth, no
// revocation, no push in the document. Off by default: the document states no rate limit and
// warns that the API may change (docs/providers.md lists what could not be confirmed).
export const hevy = remoteProvider({
  declaration: {
    id: 'HEVY',
    name: 'Hevy',
    icon: { initials: 'HV', background: '#2F6BFF' },
    authKind: 'api_key',
    credentials: 'none',
    apiKey: { header: 'api-key', helpUrl: 'https://hevy.com/settings?developer' },
    dataTypes: ['activity'],
    writesPlannedWorkouts: false,
    historyDays: null,
    enabledByDefault: false,
    deviceKind: 'app',
  },
  api: hevyApi,
  fetchers: hevyFetchers,
  checkApiKey: checkHevyKey,
  notifications: null,
});
