import assert from 'node:assert/strict';
import { type Concept2Fake, startConcept2Fake } from '../fakes/concept2.ts';
import { runConnectorPath } from '../helpers/connector-path.ts';

// Concept2 Logbook end to end against its fake: comma-separated scopes, the user from
// /api/users/me, results by local from/to dates with their strokes, and the application's
// unsigned webhook, whose URL carries the secret token. No revocation is documented, so
// deauthentication forgets the tokens here only.
const WEBHOOK_TOKEN = 'concept2-webhook-token-for-tests';

runConnectorPath<Concept2Fake>({
  provider: 'CONCEPT2',
  startFake: () => startConcept2Fake(),
  env: { CONCEPT2_WEBHOOK_SECRET: WEBHOOK_TOKEN, CONCEPT2_REQUEST_BUDGET: '100000/60,1000000/86400' },
  types: ['activity', 'athlete'],
  apiPrefix: '/api/users/me/results',
  tokenPath: '/oauth/access_token',
  async subscribe(fake, _service, publicUrl) {
    const url = `${publicUrl}/providers/CONCEPT2/webhook`;
    fake.webhookUrl = `${url}?token=${WEBHOOK_TOKEN}`;
    const id = fake.resultIdsOf('account-1')[0] ?? 0;
    const forged = await fake.notifyResult(id, 'result-updated', `${url}?token=guessed`);
    assert.equal(forged.status, 401, 'a URL without the token is refused');
    const deleted = await fake.notifyResult(id, 'result-deleted');
    assert.equal(deleted.status, 200, 'a deletion is acknowledged (nothing to fetch)');
  },
  async notify(fake, stored) {
    const [activity] = (await stored('activity')).filter((record) => record.summary_id);
    assert.ok(activity?.summary_id, 'a stored result to be notified about');
    const delivery = await fake.notifyResult(Number(activity.summary_id), 'result-updated');
    assert.equal(delivery.status, 200, delivery.responseBody);
    return 'activity';
  },
  expireTokens: (fake) => fake.expireAccessTokens(),
  noRevocation: true,
});
