import assert from 'node:assert/strict';
import { type OuraFake, startOuraFake } from '../fakes/oura.ts';
import { runConnectorPath } from '../helpers/connector-path.ts';
import { missingProviderSamples } from '../helpers/provider-samples.ts';

// Oura API v2 end to end against its fake: single-use refresh tokens, next_token pages,
// subscriptions verified by the GET challenge, events signed with the client secret.
runConnectorPath<OuraFake>({
  provider: 'OURA',
  // Its fake builds documents from the shared provider samples.
  skip: missingProviderSamples(),
  startFake: () => startOuraFake(),
  types: ['activity', 'athlete', 'body', 'daily', 'sleep'],
  apiPrefix: '/v2/usercollection',
  tokenPath: '/oauth/token',
  async subscribe(fake, service) {
    const records = await service.ctx.connectors.subscriptions.ensure('OURA');
    assert.ok(records.length > 0, 'subscriptions created');
    assert.equal(fake.subscriptions.size, records.length, 'each one verified by its GET challenge');
  },
  async notify(fake, stored) {
    const [sleep] = (await stored('sleep')).filter((record) => record.summary_id);
    assert.ok(sleep?.summary_id, 'a stored sleep to be notified about');
    const deliveries = await fake.notify({
      event_type: 'update',
      data_type: 'sleep',
      object_id: sleep.summary_id,
    });
    assert.equal(deliveries.length, 1, 'one subscription for update/sleep');
    assert.equal(deliveries[0]?.status, 200, deliveries[0]?.responseBody);
    return 'sleep';
  },
  expireTokens: (fake) => fake.expireAccessTokens(),
});
