import assert from 'node:assert/strict';
import { startWithingsFake, type WithingsFake } from '../fakes/withings.ts';
import { runConnectorPath } from '../helpers/connector-path.ts';
import { missingProviderSamples } from '../helpers/provider-samples.ts';

// Withings end to end against its fake: every answer HTTP 200 with the outcome in `status`
// (401 a dead token, 601 the rate limit), rotating refresh tokens, Notify subscriptions made per
// user after consent, and unsigned form callbacks that only trigger a re-fetch. The fake's
// 120 requests a minute are raised (with Tributary's budget) so the day-by-day sleep stages and
// intraday activity of a 90-day backfill are not spread over minutes.
runConnectorPath<WithingsFake>({
  provider: 'WITHINGS',
  // Its fake builds documents from the shared provider samples.
  skip: missingProviderSamples(),
  async startFake() {
    const fake = await startWithingsFake();
    fake.perMinute = 5000;
    return fake;
  },
  env: { WITHINGS_REQUEST_BUDGET: '5000/60' },
  types: ['activity', 'body', 'daily', 'sleep'],
  apiPrefix: '/v2/',
  tokenPath: '/v2/oauth2',
  async subscribe(fake, _service, publicUrl) {
    const mine = fake.subscriptions.filter(
      (entry) => entry.callbackurl === `${publicUrl}/providers/WITHINGS/webhook`,
    );
    assert.deepEqual(
      mine.map((entry) => entry.appli).sort((a, b) => a - b),
      [1, 4, 16, 44, 54],
    );
  },
  async notify(fake) {
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const deliveries = await fake.notify(44, { date: yesterday });
    assert.equal(deliveries.length, 1, 'one subscription for sleep');
    assert.equal(deliveries[0]?.status, 200, deliveries[0]?.responseBody);
    return 'sleep';
  },
  expireTokens: (fake) => fake.expireAccessTokens(),
});
