import assert from 'node:assert/strict';
import { startWhoopFake, type WhoopFake } from '../fakes/whoop.ts';
import { runConnectorPath } from '../helpers/connector-path.ts';
import { missingProviderSamples } from '../helpers/provider-samples.ts';

// WHOOP API v2 end to end against its fake: rotating refresh tokens (offline scope), cursor
// pages of at most 25, webhooks signed with the client secret to the dashboard URL. The fake
// enforces WHOOP's default 100 requests a minute; the test raises its limits and Tributary's
// budget alike, so the 90-day backfill is not spread over minutes.
runConnectorPath<WhoopFake>({
  provider: 'WHOOP',
  // Its fake builds documents from the shared provider samples.
  skip: missingProviderSamples(),
  async startFake() {
    const fake = await startWhoopFake();
    fake.limits = { perMinute: 5000, perDay: 100_000 };
    return fake;
  },
  env: { WHOOP_REQUEST_BUDGET: '5000/60,100000/86400' },
  types: ['activity', 'athlete', 'body', 'daily', 'sleep'],
  apiPrefix: '/developer/v2/',
  tokenPath: '/oauth/oauth2/token',
  async subscribe(fake, _service, publicUrl) {
    // WHOOP has no subscription API: the URL is entered in its developer dashboard.
    fake.webhookUrl = `${publicUrl}/providers/WHOOP/webhook`;
  },
  async notify(fake, stored) {
    const [sleep] = (await stored('sleep')).filter((record) => record.summary_id);
    assert.ok(sleep?.summary_id, 'a stored sleep to be notified about');
    const delivery = await fake.notify('sleep.updated', sleep.summary_id);
    assert.equal(delivery?.status, 200, delivery?.responseBody);
    return 'sleep';
  },
  expireTokens: (fake) => fake.expireAccessTokens(),
});
