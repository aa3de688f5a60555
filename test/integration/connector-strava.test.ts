import assert from 'node:assert/strict';
import { type StravaFake, startStravaFake } from '../fakes/strava.ts';
import { runConnectorPath } from '../helpers/connector-path.ts';
import { missingProviderSamples } from '../helpers/provider-samples.ts';

// Strava API v3 end to end against its fake: rotating refresh tokens (the same access token
// while it has over an hour left), numbered pages, per-activity detail/streams/zones, the push
// subscription's hub.challenge, unsigned events checked against the subscription id.
// The fake enforces Strava's default 100 reads per 15 minutes; a 90-day backfill needs more
// than that, so the test raises the fake's limits and Tributary's budget alike (as an operator
// does once Strava grants higher limits).
runConnectorPath<StravaFake>({
  provider: 'STRAVA',
  // Its fake builds documents from the shared provider samples.
  skip: missingProviderSamples(),
  async startFake() {
    const fake = await startStravaFake();
    fake.limits = { overall: [5000, 50000], read: [5000, 50000] };
    return fake;
  },
  env: { STRAVA_REQUEST_BUDGET: '5000/900,50000/86400' },
  types: ['activity', 'athlete'],
  apiPrefix: '/api/v3/athlete/activities',
  tokenPath: '/oauth/token',
  async subscribe(fake, service) {
    const records = await service.ctx.connectors.subscriptions.ensure('STRAVA');
    assert.equal(records.length, 1, 'one push subscription per application');
    assert.equal(String(fake.subscription?.id), records[0]?.externalId, 'validated by hub.challenge');
  },
  async notify(fake, stored) {
    const [activity] = (await stored('activity')).filter((record) => record.summary_id);
    assert.ok(activity?.summary_id, 'a stored activity to be notified about');
    const delivery = await fake.sendEvent({
      object_type: 'activity',
      object_id: Number(activity.summary_id),
      aspect_type: 'update',
      updates: { title: 'Renamed' },
    });
    assert.equal(delivery.status, 200, delivery.responseBody);
    return 'activity';
  },
  // Strava hands back the same access token while it has over an hour left: move past its life.
  expireTokens: (fake) => fake.clock.advance(6 * 3_600_000 + 60_000),
});
