import assert from 'node:assert/strict';
import { addDays } from '../../src/model/time.ts';
import { type PolarFake, startPolarFake } from '../fakes/polar.ts';
import { runConnectorPath } from '../helpers/connector-path.ts';
import { missingProviderSamples } from '../helpers/provider-samples.ts';

// Polar AccessLink v3 end to end against its fake: Basic client auth, a long-lived token and
// no refresh token, registration (POST /v3/users) before any data is served, one webhook per
// client PINGed on creation and signed with the key shown in the creation answer, and
// deregistration (DELETE /v3/users/{id}) as the revocation.
const WEBHOOK_SECRET = 'polar-webhook-key-shown-once';

runConnectorPath<PolarFake>({
  provider: 'POLAR',
  env: { POLAR_WEBHOOK_SECRET: WEBHOOK_SECRET },
  // Its fake builds documents from the shared provider samples.
  skip: missingProviderSamples(),
  async startFake() {
    const fake = await startPolarFake({ offsetMinutes: 0, signatureSecretKey: WEBHOOK_SECRET });
    // Polar lists only exercises uploaded after registration: the account was registered with
    // this app a month ago (a reconnection), so the registration after consent answers 409.
    fake.registrations.set(fake.consent.account, {
      memberId: 'registered-before',
      at: Date.now() - 31 * 86_400_000,
    });
    return fake;
  },
  types: ['activity', 'athlete', 'body', 'daily', 'sleep'],
  backfillDays: 28,
  apiPrefix: '/v3/',
  tokenPath: '/v2/oauth2/token',
  async subscribe(fake, service) {
    const records = await service.ctx.connectors.subscriptions.ensure('POLAR');
    assert.equal(records.length, 1, 'one webhook per client');
    assert.ok(fake.webhook?.active, 'created after its PING was answered');
    // The operator copies the key Polar showed once into POLAR_WEBHOOK_SECRET (set from the start
    // here: settings are read once, at boot).
    assert.equal(fake.webhook.signatureSecretKey, WEBHOOK_SECRET);
  },
  async notify(fake, stored) {
    assert.ok((await stored('sleep')).length > 0, 'stored nights');
    const delivery = await fake.notify('SLEEP', { date: addDays(new Date().toISOString().slice(0, 10), -2) });
    assert.equal(delivery?.status, 200, delivery?.responseBody);
    return 'sleep';
  },
  expireTokens: () => {},
  longLivedTokens: {
    reRegistered: (fake) =>
      fake.requests.filter((request) => request.path === '/v3/users' && request.method === 'POST').length >=
      2,
  },
});
