import assert from 'node:assert/strict';
import { startGoogleHealthFake, type GoogleHealthFake } from '../fakes/google-health.ts';
import { runConnectorPath } from '../helpers/connector-path.ts';

// FITBIT through the Google Health API end to end against its fake: Google OAuth with PKCE and
// offline access, the healthUserId from users/me/identity, dataPoints lists with AIP-160 range
// filters and paging, the per-user quota, a subscriber notification (authenticated by the
// endpoint's Authorization secret) fetched again, and revocation at Google's /revoke.
const WEBHOOK_SECRET = 'subscriber-secret-7f3a';

runConnectorPath<GoogleHealthFake>({
  provider: 'FITBIT',
  async startFake() {
    const fake = await startGoogleHealthFake({ offsetMinutes: -300 });
    // The test reads more in a minute than one user would; the quota is exercised by its own test.
    fake.perUserPerMinute = 100_000;
    return fake;
  },
  env: { FITBIT_REQUEST_BUDGET: '100000/60', FITBIT_USER_SHARE: '1', FITBIT_WEBHOOK_SECRET: WEBHOOK_SECRET },
  types: ['activity', 'athlete', 'body', 'daily', 'nutrition', 'sleep'],
  apiPrefix: '/v4/users/me/dataTypes/',
  tokenPath: '/token',
  async subscribe(fake, _service, publicUrl) {
    // The operator creates the subscriber for the Cloud project; Google then verifies the endpoint.
    fake.subscriber = { endpointUri: `${publicUrl}/providers/FITBIT/webhook`, secret: WEBHOOK_SECRET };
    const verification = await fake.verifyEndpoint();
    assert.ok(
      verification.withSecret >= 200 && verification.withSecret < 300,
      `with the secret: ${verification.withSecret}`,
    );
    assert.ok([401, 403].includes(verification.withoutSecret), `without it: ${verification.withoutSecret}`);
  },
  async notify(fake, stored) {
    assert.ok((await stored('sleep')).length > 0, 'stored nights');
    const end = Date.now() - 2 * 86_400_000;
    const delivery = await fake.notify('sleep', end - 8 * 3_600_000, end);
    assert.equal(delivery.status, 200, delivery.responseBody);
    return 'sleep';
  },
  expireTokens: (fake) => fake.expireAccessTokens(),
});
