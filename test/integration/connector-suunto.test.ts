import assert from 'node:assert/strict';
import { type SuuntoFake, startSuuntoFake } from '../fakes/suunto.ts';
import { runConnectorPath } from '../helpers/connector-path.ts';

// Suunto Cloud API end to end against its fake: Basic client auth, the account from the token
// answer's `user`, the API Management subscription key on every call (the fake refuses calls
// without it), workouts by since/until with their FIT exports, and WORKOUT_CREATED webhooks
// signed with HMAC-SHA256 under the notification secret. No revocation is documented, so
// deauthentication forgets the tokens here only.
const SUBSCRIPTION_KEY = 'apim-subscription-key-for-tests';
const NOTIFICATION_SECRET = 'suunto-notification-secret-for-tests';

runConnectorPath<SuuntoFake>({
  provider: 'SUUNTO',
  startFake: () =>
    startSuuntoFake({ subscriptionKey: SUBSCRIPTION_KEY, notificationSecret: NOTIFICATION_SECRET }),
  env: {
    SUUNTO_SUBSCRIPTION_KEY: SUBSCRIPTION_KEY,
    SUUNTO_WEBHOOK_SECRET: NOTIFICATION_SECRET,
    SUUNTO_REQUEST_BUDGET: '100000/60,1000000/86400',
  },
  types: ['activity', 'sleep'],
  apiPrefix: '/v2/workouts',
  tokenPath: '/oauth/token',
  async subscribe(fake, _service, publicUrl) {
    // The notification URL and secret are set in the API Zone profile.
    fake.webhookUrl = `${publicUrl}/providers/SUUNTO/webhook`;
    const key = fake.workoutsOf('account-1')[0]?.workoutKey ?? '';
    const forged = await fake.notifyWorkout(key, { secret: 'not-the-secret' });
    assert.equal(forged.status, 401, 'a body signed with another secret is refused');
    const keyed = fake.requests.filter((request) => /^\/(v2|247samples)\//.test(request.path));
    assert.ok(keyed.length > 0, 'the API was called');
    for (const request of keyed)
      assert.equal(
        request.headers['ocp-apim-subscription-key'],
        SUBSCRIPTION_KEY,
        `${request.path}: the key`,
      );
  },
  async notify(fake, stored) {
    const [activity] = (await stored('activity')).filter((record) => record.summary_id);
    assert.ok(activity?.summary_id, 'a stored workout to be notified about');
    const delivery = await fake.notifyWorkout(activity.summary_id);
    assert.equal(delivery.status, 200, delivery.responseBody);
    return 'activity';
  },
  expireTokens: (fake) => fake.expireAccessTokens(),
  noRevocation: true,
});
