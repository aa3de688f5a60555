import assert from 'node:assert/strict';
import { type HevyFake, startHevyFake } from '../fakes/hevy.ts';
import { authenticateUser } from '../helpers/connections.ts';
import { runConnectorPath } from '../helpers/connector-path.ts';

// Hevy end to end against its fake: connect by entering a personal API key on Tributary's own
// page (through a real socket: a wrong key first, which the page refuses, then the right one),
// a 90-day backfill read from /v1/workouts/events page by page, strength workouts through the
// data API, a newly logged workout found by the scheduled poll of the events (every 3 s here,
// through HEVY_POLL_MINUTES), a 429 and a 5xx burst, deauthentication (Hevy has no revocation:
// the key is only forgotten). The key never expires and there is no refresh: the post-connect
// check (GET /v1/user/info) runs again instead of a refresh rotation.
runConnectorPath<HevyFake>({
  provider: 'HEVY',
  startFake: () => startHevyFake(),
  env: { HEVY_ENABLED: 'true', HEVY_POLL_MINUTES: '0.05', HEVY_REQUEST_BUDGET: '100000/1,1000000/3600' },
  types: ['activity'],
  apiPrefix: '/v1/workouts',
  tokenPath: '/oauth/token',
  pollOnly: true,
  noRevocation: true,
  async connect(fake, service, developer, publicUrl) {
    const link = await authenticateUser(service.app, developer, 'HEVY', { reference_id: 'path-test' });
    assert.equal(link.authUrl.origin, publicUrl, 'the key page is Tributary’s own');
    const page = await fetch(link.authUrl);
    assert.equal(page.status, 200);
    const form = await page.text();
    assert.match(form, /name="api_key"/);
    const state = link.authUrl.searchParams.get('state') ?? '';
    const submit = (apiKey: string) =>
      fetch(link.authUrl.origin + link.authUrl.pathname, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ state, api_key: apiKey, decision: 'connect' }).toString(),
      });
    const wrong = await submit('00000000-0000-4000-8000-000000000000');
    assert.equal(wrong.status, 422);
    assert.match(await wrong.text(), /did not accept this key/);
    const right = await submit(fake.newKey('account-1'));
    assert.equal(right.status, 303, await right.text());
    assert.ok(
      fake.requestsTo('/v1/user/info').some((request) => request.status === 200),
      'the key was checked with /v1/user/info',
    );
    return { userId: link.userId, landing: String(right.headers.get('location')) };
  },
  async subscribe(fake) {
    // The backfill paged through the events, the document's at most 10 a page.
    const reads = fake.requestsTo('/v1/workouts/events');
    assert.ok(
      reads.some((read) => read.query.page === '2' && read.query.pageSize === '10'),
      'a second page',
    );
    assert.ok(
      reads.every(
        (read) => read.headers['api-key'] !== undefined && read.headers.authorization === undefined,
      ),
      'the key travels in the api-key header, never as a bearer token',
    );
  },
  async notify(fake, stored) {
    assert.ok((await stored('activity')).length > 0, 'stored workouts');
    fake.logWorkout('account-1');
    return 'activity';
  },
  expireTokens: () => {},
  longLivedTokens: {
    reRegistered: (fake) => {
      const last = fake.requestsTo('/v1/user/info').at(-1);
      return last?.status === 200;
    },
  },
});
