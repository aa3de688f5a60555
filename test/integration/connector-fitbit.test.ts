import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { followAuthorize, providerEnv } from '../fakes/fake-server.ts';
import { startGoogleHealthFake, type GoogleHealthFake } from '../fakes/google-health.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { authenticateUser, pathOf } from '../helpers/connections.ts';
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

// Google's consent is granular: a user may untick a scope. That data type is then refused with
// 403 PERMISSION_DENIED and read as absent; the connection stays active and the rest is read.

/** A service whose subscriber endpoint is registered at the fake, with one FITBIT user connected. */
async function startConnected(fake: GoogleHealthFake, referenceId: string) {
  const service = await startTestService({
    env: {
      ...providerEnv('FITBIT', fake),
      FITBIT_WEBHOOK_SECRET: WEBHOOK_SECRET,
      FITBIT_REQUEST_BUDGET: '100000/60',
      FITBIT_USER_SHARE: '1',
    },
  });
  await service.app.listen({ port: 0, host: '127.0.0.1' });
  const address = service.app.server.address() as AddressInfo;
  fake.subscriber = {
    endpointUri: `http://127.0.0.1:${address.port}/providers/FITBIT/webhook`,
    secret: WEBHOOK_SECRET,
  };
  const developer = await createDeveloper(service.ctx);
  const link = await authenticateUser(service.app, developer, 'FITBIT', { reference_id: referenceId });
  const back = await followAuthorize(link.authUrl.toString());
  const landing = await service.app.inject({ method: 'GET', url: pathOf(back) });
  assert.equal(landing.statusCode, 302, landing.body);
  return { service, developer, userId: link.userId };
}

describe('FITBIT with a scope left unticked, and notifications with the wrong secret', () => {
  let fake: GoogleHealthFake;
  let service: TestService;
  let developer: TestDeveloper;
  let userId: string;

  before(async () => {
    fake = await startGoogleHealthFake({ offsetMinutes: 60 });
    fake.perUserPerMinute = 100_000;
    const scope = 'https://www.googleapis.com/auth/googlehealth';
    fake.consent.grantScopes = [
      `${scope}.activity_and_fitness.readonly`,
      `${scope}.health_metrics_and_measurements.readonly`,
      `${scope}.sleep.readonly`,
      `${scope}.profile.readonly`,
    ];
    ({ service, developer, userId } = await startConnected(fake, 'fitbit-scopes'));
  });
  after(async () => {
    await service?.close();
    await fake?.close();
  });

  const read = (type: string) =>
    service.app.inject({
      method: 'GET',
      url: `/v2/${type}?user_id=${userId}&start_date=2026-01-01&end_date=2026-01-08&to_webhook=false`,
      headers: developer.headers,
    });

  test('the unticked type reads as empty, the others as usual, the connection stays active', async () => {
    const refusedBefore = fake.requests.filter((request) => request.status === 403).length;
    const nutrition = await read('nutrition');
    assert.equal(nutrition.statusCode, 200, nutrition.body);
    assert.equal((nutrition.json() as { data: unknown[] }).data.length, 0);
    assert.ok(
      fake.requests.filter((request) => request.status === 403).length > refusedBefore,
      'Google refused the scope',
    );
    const sleep = await read('sleep');
    assert.equal(sleep.statusCode, 200, sleep.body);
    assert.ok((sleep.json() as { data: unknown[] }).data.length > 0);
    const row = await service.ctx.db
      .selectFrom('users')
      .select('status')
      .where('id', '=', userId)
      .executeTakeFirst();
    assert.equal(row?.status, 'active');
  });

  test('a notification with another secret, or none, is refused', async () => {
    const now = Date.now();
    assert.equal((await fake.notify('sleep', now - 3_600_000, now, { secret: 'not-it' })).status, 401);
    const { withoutSecret } = await fake.verifyEndpoint();
    assert.equal(withoutSecret, 401);
  });
});

// Google says when data points were deleted (operation DELETE). The days it names are fetched
// again and replace what is stored: a record Google no longer returns is removed here, the other
// records of those days and of other types stay.
describe('FITBIT: a DELETE notification removes what Google deleted', () => {
  let fake: GoogleHealthFake;
  let service: TestService;
  let developer: TestDeveloper;
  let userId: string;

  before(async () => {
    fake = await startGoogleHealthFake({ offsetMinutes: 60 });
    fake.perUserPerMinute = 100_000;
    ({ service, developer, userId } = await startConnected(fake, 'fitbit-delete'));
  });
  after(async () => {
    await service?.close();
    await fake?.close();
  });

  const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
  const stored = (type: string) =>
    service.ctx.db
      .selectFrom('data_records')
      .select(['identity_key', 'anchor_day', 'summary'])
      .where('user_id', '=', userId)
      .where('type', '=', type)
      .where('anchor_day', '>=', day(-9))
      .where('anchor_day', '<', day(-2))
      .execute();
  async function until(check: () => Promise<boolean>, what: string) {
    const deadline = Date.now() + 20_000;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  test('the deleted workout is gone, the rest of its days stay', async () => {
    for (const type of ['activity', 'daily']) {
      const read = await service.app.inject({
        method: 'GET',
        url: `/v2/${type}?user_id=${userId}&start_date=${day(-9)}&end_date=${day(-3)}&to_webhook=false`,
        headers: developer.headers,
      });
      assert.equal(read.statusCode, 200, read.body);
    }
    const workouts = await stored('activity');
    const dailies = await stored('daily');
    assert.ok(workouts.length >= 2, 'stored workouts');
    const victim = workouts[0]!;
    // The json column comes back parsed on some drivers, as text on others.
    const summary = (typeof victim.summary === 'string' ? JSON.parse(victim.summary) : victim.summary) as {
      metadata: { start_time: string };
    };
    const startMs = Date.parse(summary.metadata.start_time);

    fake.deletePoint('exercise', startMs);
    const deletion = await fake.notify('exercise', startMs, startMs + 3_600_000, { operation: 'DELETE' });
    assert.equal(deletion.status, 200, deletion.responseBody);
    await until(
      async () => !(await stored('activity')).some((row) => row.identity_key === victim.identity_key),
      'the deleted workout removed',
    );
    const after = await stored('activity');
    assert.deepEqual(
      after.map((row) => row.identity_key).sort(),
      workouts
        .filter((row) => row.identity_key !== victim.identity_key)
        .map((row) => row.identity_key)
        .sort(),
      'only the deleted workout went',
    );
    assert.equal((await stored('daily')).length, dailies.length, 'other types of the day stay');
  });
});
