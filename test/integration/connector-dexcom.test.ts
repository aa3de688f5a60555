import assert from 'node:assert/strict';
import { type DexcomFake, startDexcomFake } from '../fakes/dexcom.ts';
import { runConnectorPath } from '../helpers/connector-path.ts';

// Dexcom API v3 end to end against its fake: credentials in the form body, single-use refresh
// tokens (offline_access), 30-day EGV windows, no push and no revocation endpoint. The data
// event comes from the scheduled poll (every 3 s here, through DEXCOM_POLL_MINUTES) once new
// readings exist.
runConnectorPath<DexcomFake>({
  provider: 'DEXCOM',
  startFake: () => startDexcomFake(),
  env: { DEXCOM_POLL_MINUTES: '0.05' },
  types: ['body'],
  apiPrefix: '/v3/users/self',
  tokenPath: '/v2/oauth2/token',
  pollOnly: true,
  noRevocation: true,
  async subscribe() {},
  async notify(fake, stored) {
    assert.ok((await stored('body')).length > 0, 'stored glucose days');
    // Two more readings arrive at Dexcom; the next poll finds them through dataRange.
    fake.clock.advance(10 * 60_000);
    return 'body';
  },
  expireTokens: (fake) => fake.expireAccessTokens(),
});
