import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { followAuthorize, providerEnv } from '../fakes/fake-server.ts';
import { type GarminFake, startGarminFake } from '../fakes/garmin.ts';
import { cycleOf, isoDay } from '../fakes/garmin-data.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { authenticateUser, pathOf } from '../helpers/connections.ts';
import { runConnectorPath } from '../helpers/connector-path.ts';
import { setUrl } from '../helpers/webhook-api.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

// Garmin Health + Activity API end to end against its fake: OAuth 2.0 with PKCE, the partner
// gateway's user id, pulls by upload window (the backfill pulls each day's morning sync), backfill
// requests for older days, an unsigned ping (header `garmin-client-id`) whose upload window is
// pulled with the user's token, and deregistration of the user registration as the revocation.
runConnectorPath<GarminFake>({
  provider: 'GARMIN',
  startFake: () => startGarminFake({ offsetMinutes: 60 }),
  // Garmin publishes no limit; the fake has none, so the budget is as large as the test needs.
  env: { GARMIN_REQUEST_BUDGET: '100000/60' },
  types: ['activity', 'athlete', 'body', 'daily', 'sleep', 'plannedWorkout', 'menstruation'],
  apiPrefix: '/wellness-api/rest/',
  tokenPath: '/di-oauth2-service/oauth/token',
  async subscribe(fake, _service, publicUrl) {
    // Set once in Garmin's developer portal, per summary type.
    fake.endpointUrl = `${publicUrl}/providers/GARMIN/webhook`;
  },
  async notify(fake, stored) {
    assert.ok((await stored('activity')).length > 0, 'stored workouts');
    const [activities] = await fake.syncWorkout();
    assert.equal(activities?.status, 200, activities?.responseBody);
    return 'activity';
  },
  expireTokens: (fake) => fake.expireAccessTokens(),
});

// What only Garmin does: pushes (data in the body, which is not believed: the upload is pulled),
// manually updated activities, permission changes and deregistrations (confirmed with Garmin
// before anything changes here), and notifications that fail the client-id check.
async function until(check: () => Promise<boolean>, what: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('GARMIN notifications beyond the ping', () => {
  let fake: GarminFake;
  let service: TestService;
  let developer: TestDeveloper;
  let receiver: WebhookReceiver;
  let userId: string;
  const events = () =>
    receiver.received.map((entry) => JSON.parse(entry.body) as Record<string, unknown> & { type: string });
  const dayNow = () => Math.floor((Date.now() + 60 * 60_000) / 86_400_000);

  before(async () => {
    fake = await startGarminFake({ offsetMinutes: 60 });
    service = await startTestService({
      env: {
        ...providerEnv('GARMIN', fake),
        GARMIN_REQUEST_BUDGET: '100000/60',
        PROVIDER_HTTP_RETRY_BASE_MS: '20',
      },
    });
    await service.app.listen({ port: 0, host: '127.0.0.1' });
    const address = service.app.server.address() as AddressInfo;
    fake.endpointUrl = `http://127.0.0.1:${address.port}/providers/GARMIN/webhook`;
    developer = await createDeveloper(service.ctx);
    receiver = await startWebhookReceiver();
    await setUrl(service, developer, receiver.url);
    const link = await authenticateUser(service.app, developer, 'GARMIN', { reference_id: 'garmin-extra' });
    userId = link.userId;
    const back = await followAuthorize(link.authUrl.toString());
    const landing = await service.app.inject({ method: 'GET', url: pathOf(back) });
    assert.equal(landing.statusCode, 302, landing.body);
    await receiver.waitFor(() => events().some((event) => event.type === 'auth'), 'the auth event');
    // The connection's own backfill sends data events too: the tests start once it is done.
    await until(
      async () => {
        const progress = await service.ctx.connectors.backfill.progress(userId);
        return progress.length === 7 && progress.every((row) => row.status === 'done');
      },
      'the backfill',
      120_000,
    );
  });
  after(async () => {
    await service?.close();
    await receiver?.close();
    await fake?.close();
  });

  test('a push is answered at once and its day is pulled with the user token', async () => {
    const before = receiver.received.length;
    const pullsBefore = fake.requestsTo('/wellness-api/rest/dailies').length;
    const answer = await fake.push('dailies', dayNow() - 1);
    assert.equal(answer.status, 200, answer.responseBody);
    await receiver.waitFor(
      (list) =>
        list.slice(before).some((entry) => (JSON.parse(entry.body) as { type: string }).type === 'daily'),
      'a daily data event after the push',
    );
    assert.ok(fake.requestsTo('/wellness-api/rest/dailies').length > pullsBefore, 'the upload was pulled');
  });

  test("Women's Health: a cycle tracking push arrives as that day's menstruation", async () => {
    const day = dayNow() - 1;
    const { dayInCycle, periodStart } = cycleOf(fake.accountOf('account-1').user, day);
    const before = receiver.received.length;
    const answer = await fake.push('mct', day);
    assert.equal(answer.status, 200, answer.responseBody);
    type Day = { metadata: { start_time: string }; menstruation_data: Record<string, unknown> };
    let found: Day | undefined;
    await receiver.waitFor((list) => {
      for (const entry of list.slice(before)) {
        const event = JSON.parse(entry.body) as { type: string; data?: Day[] };
        if (event.type !== 'menstruation') continue;
        found = event.data?.find((record) => record.metadata.start_time.startsWith(isoDay(day)));
        if (found) return true;
      }
      return false;
    }, 'a menstruation data event for the pushed day');
    const data = found!.menstruation_data;
    assert.equal(data.day_in_cycle, dayInCycle);
    assert.equal(data.period_start_date, isoDay(periodStart));
    assert.equal(data.period_length_days, 5);
    assert.equal(data.cycle_length_days, 28);
    // MENSTRUAL 1-5 -> PERIOD 1, FOLLICULAR 6-11 -> 2, FERTILE 12-13 -> 3, OVULATION 14 -> 4, LUTEAL -> 5.
    const phase =
      dayInCycle <= 5 ? 1 : dayInCycle <= 11 ? 2 : dayInCycle <= 13 ? 3 : dayInCycle === 14 ? 4 : 5;
    assert.equal(data.current_phase, phase);
    assert.equal(data.fertility_window_start, isoDay(periodStart + 9));
    assert.equal(data.fertility_window_end, isoDay(periodStart + 14));
  });

  test('a manually updated activity arrives as an update of the workout', async () => {
    const day = dayNow() - 2 - ((dayNow() - 2) % 2);
    const before = receiver.received.length;
    const answer = await fake.editWorkout(day);
    assert.equal(answer.status, 200, answer.responseBody);
    await receiver.waitFor(
      (list) =>
        list.slice(before).some((entry) => {
          const event = JSON.parse(entry.body) as {
            type: string;
            data?: { metadata?: { upload_type?: number; name?: string } }[];
          };
          return (
            event.type === 'activity' &&
            (event.data ?? []).some(
              (record) => record.metadata?.name === 'Renamed in Connect' && record.metadata.upload_type === 3,
            )
          );
        }),
      'the edited workout as an activity event with upload_type UPDATE',
    );
  });

  test('without the client id header, or with another, a notification is refused', async () => {
    const body = {
      dailies: [
        { userId: fake.userIdOf('account-1'), uploadStartTimeInSeconds: 1, uploadEndTimeInSeconds: 2 },
      ],
    };
    for (const headers of [{}, { 'garmin-client-id': 'someone-else' }] as Record<string, string>[]) {
      const answer = await fake.send(body, headers);
      assert.equal(answer.status, 401, answer.responseBody);
    }
  });

  test('a permission change is confirmed with Garmin and sent as permission_change', async () => {
    const answer = await fake.setPermissions(['ACTIVITY_EXPORT']);
    assert.equal(answer.status, 200, answer.responseBody);
    await receiver.waitFor(
      () =>
        events().some(
          (event) =>
            event.type === 'permission_change' && String(event.scopes_removed).includes('HEALTH_EXPORT'),
        ),
      'a permission_change event removing HEALTH_EXPORT',
    );
    const row = await service.ctx.db
      .selectFrom('users')
      .select(['scopes', 'status'])
      .where('id', '=', userId)
      .executeTakeFirst();
    assert.equal(row?.scopes, 'ACTIVITY_EXPORT');
    assert.equal(row?.status, 'active');
  });

  test('a deregistration Garmin does not confirm changes nothing; a real one is access_revoked', async () => {
    // Anyone who knows the client id can post this: the user is still registered at Garmin.
    const checksBefore = fake.requestsTo('/wellness-api/rest/user/permissions').length;
    const forged = await fake.send({ deregistrations: [{ userId: fake.userIdOf('account-1') }] });
    assert.equal(forged.status, 200, forged.responseBody);
    await until(
      async () =>
        fake.requestsTo('/wellness-api/rest/user/permissions').length > checksBefore &&
        (
          await service.ctx.db
            .selectFrom('connector_pending_refetches')
            .select('data_kind')
            .where('provider', '=', 'GARMIN')
            .execute()
        ).length === 0,
      'the deregistration checked with Garmin and settled',
    );
    const status = async () =>
      (await service.ctx.db.selectFrom('users').select('status').where('id', '=', userId).executeTakeFirst())
        ?.status;
    assert.equal(await status(), 'active');
    const real = await fake.deregister();
    assert.equal(real.status, 200, real.responseBody);
    await receiver.waitFor(
      () => events().some((event) => event.type === 'access_revoked'),
      'the access_revoked event',
    );
    assert.equal(await status(), 'revoked');
  });
});
