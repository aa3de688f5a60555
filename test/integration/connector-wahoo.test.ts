import assert from 'node:assert/strict';
import { startWahooFake, type WahooFake } from '../fakes/wahoo.ts';
import { runConnectorPath } from '../helpers/connector-path.ts';

// Wahoo Cloud API end to end against its fake: PKCE, single-use rotating refresh tokens,
// newest-first numbered workout pages without a date filter, each workout's FIT file from the
// CDN decoded into samples, and the portal webhook whose body carries the app's webhook_token.
// The fake enforces 200 requests per 5 minutes; the test raises its limit and Tributary's
// budget alike, as an operator does once Wahoo grants production limits.
const WEBHOOK_TOKEN = 'wahoo-portal-webhook-token-3f9a';

runConnectorPath<WahooFake>({
  provider: 'WAHOO',
  async startFake() {
    const fake = await startWahooFake({ webhookToken: WEBHOOK_TOKEN });
    fake.limitPer5Minutes = 100_000;
    return fake;
  },
  env: {
    WAHOO_REQUEST_BUDGET: '100000/300,100000/3600,100000/86400',
    WAHOO_WEBHOOK_SECRET: WEBHOOK_TOKEN,
  },
  types: ['activity', 'athlete'],
  apiPrefix: '/v1/workouts',
  tokenPath: '/oauth/token',
  async subscribe(fake, _service, publicUrl) {
    // The webhook URL and its token are set in Wahoo's portal.
    fake.webhookUrl = `${publicUrl}/providers/WAHOO/webhook`;
    const forged = await fake.notifyWorkout(fake.workoutsOf('account-1')[0]?.id ?? 0, {
      token: 'not-the-token',
    });
    assert.equal(forged.status, 401, 'a body with another webhook_token is refused');
  },
  async notify(fake, stored) {
    const [activity] = (await stored('activity')).filter((record) => record.summary_id);
    assert.ok(activity?.summary_id, 'a stored workout to be notified about');
    const delivery = await fake.notifyWorkout(Number(activity.summary_id));
    assert.equal(delivery.status, 200, delivery.responseBody);
    return 'activity';
  },
  expireTokens: (fake) => fake.expireAccessTokens(),
});
