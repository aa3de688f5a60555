import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { NOTIFICATION_QUEUE } from '../../src/features/connectors/notification-queues.ts';
import { addDays, dayNumberToIsoDate, MS_PER_DAY } from '../../src/model/time.ts';
import type { ProviderDataType } from '../../src/provider-kit/types.ts';
import { type GarminFake } from '../fakes/garmin.ts';
import { cycleOf, isoDay, PAUSE_SECONDS } from '../fakes/garmin-data.ts';
import { createDeveloper, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { startServiceWithGarminFake } from '../helpers/garmin-service.ts';
import { connectThroughFake, untilBackfilled } from '../helpers/connections.ts';
import { unsettledJobs } from '../helpers/jobs.ts';
import { setUrl } from '../helpers/webhook-api.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { until } from '../helpers/until.ts';

// Garmin Health + Activity API end to end against a fake that refuses what Garmin refuses
// (test/fakes/garmin.ts): OAuth 2.0 with PKCE, the partner gateway's user id, history through
// backfill requests within Garmin's limits (never a pull of its own), the data Garmin then
// delivers — pings whose callback URL (upload window and pull token) is pulled, pushes whose
// summaries are the data — and what an attacker who knows the client id can send: pings naming
// 1970 → now, callbacks to other hosts or paths, re-sent pings. Every notification travels over
// a real socket; the fake's refusals are checked after each step.

type Event = Record<string, unknown> & { type: string; data?: Record<string, unknown>[] };
type Workout = {
  metadata: { start_time: string; end_time: string; summary_id: string };
  active_durations_data?: { activity_seconds?: number | null };
};

describe('GARMIN connector: the whole path against its strict fake', () => {
  let fake: GarminFake;
  let service: TestService;
  let developer: TestDeveloper;
  let receiver: WebhookReceiver;
  let userId: string;
  const events = () => receiver.received.map((entry) => JSON.parse(entry.body) as Event);
  const eventsSince = (count: number) => events().slice(count);
  const today = () => dayNumberToIsoDate(Math.floor(Date.now() / MS_PER_DAY));
  const dayNow = () => Math.floor((Date.now() + 60 * 60_000) / MS_PER_DAY);
  const read = (type: ProviderDataType) =>
    service.app.inject({
      method: 'GET',
      url:
        type === 'athlete'
          ? `/v2/athlete?user_id=${userId}&to_webhook=false`
          : `/v2/${type}?user_id=${userId}&start_date=${addDays(today(), -89)}&end_date=${today()}&to_webhook=false`,
      headers: developer.headers,
    });
  const pending = async () =>
    service.ctx.db
      .selectFrom('connector_pending_refetches')
      .select('data_kind')
      .where('provider', '=', 'GARMIN')
      .execute();
  /** Earlier steps' refetches done: none pending, no notification job waiting or running. */
  const settled = () =>
    until(
      'earlier refetches settled',
      async () =>
        (await pending()).length === 0 && (await unsettledJobs(service.ctx, NOTIFICATION_QUEUE)).length === 0,
    );
  const summaryPulls = () =>
    fake.requests.filter(
      (request) =>
        /^\/wellness-api\/rest\/(?!backfill\/|user\/|workoutportal|training)/.test(request.path) &&
        request.method === 'GET',
    );
  const assertNoRefusals = () => assert.deepEqual(fake.refusals, [], 'Garmin refused none of our requests');

  before(async () => {
    ({ fake, service } = await startServiceWithGarminFake());
    const { port } = service.app.server.address() as AddressInfo;
    // Set once in Garmin's endpoint configuration tool, before any user connects (HAPI §3).
    fake.endpointUrl = `http://127.0.0.1:${port}/providers/GARMIN/webhook`;
    developer = await createDeveloper(service.ctx);
    receiver = await startWebhookReceiver();
    await setUrl(service, developer, receiver.url);
  });
  after(async () => {
    await service?.close();
    await receiver?.close();
    await fake?.close();
  });

  test('connect through the auth link (OAuth 2.0 with PKCE)', async () => {
    userId = (await connectThroughFake(service.app, developer, 'GARMIN', fake, 'garmin-path')).userId;
    await receiver.waitFor(() => events().some((event) => event.type === 'auth'), 'the auth event');
  });

  test('history is asked for as backfills within Garmin’s limits, never pulled without a ping', async () => {
    await untilBackfilled(service, userId, { types: 7, what: 'the backfill jobs' });
    const asked = fake.requestsTo('/wellness-api/rest/backfill/');
    assert.ok(asked.length >= 10, `backfill requests: ${asked.length}`);
    for (const request of asked) {
      const start = Number(request.query.summaryStartTimeInSeconds);
      const end = Number(request.query.summaryEndTimeInSeconds);
      const max = /activit/i.test(request.path) ? 30 : 90;
      assert.ok(end > start && end - start <= max * 86_400, `${request.path}: ${start}..${end}`);
    }
    for (const pull of summaryPulls())
      assert.ok(pull.query.token, `${pull.path} pulled without a ping's token`);
    assertNoRefusals();
  });

  test('what Garmin delivers for the backfill is stored: every type reads back', async () => {
    const delivered = ['activity', 'body', 'daily', 'sleep', 'menstruation'];
    await until(
      `data events of ${delivered.join(', ')} from Garmin's pings`,
      async () =>
        delivered.every((type) =>
          events().some((event) => event.type === type && (event.data?.length ?? 0) > 0),
        ),
      { timeoutMs: 120_000 },
    );
    for (const type of [...delivered, 'plannedWorkout'] as ProviderDataType[]) {
      const response = await read(type);
      assert.equal(response.statusCode, 200, response.body);
      assert.ok(((response.json() as { data?: unknown[] }).data?.length ?? 0) > 0, `${type}: records stored`);
    }
    const athlete = await read('athlete');
    assert.equal(athlete.statusCode, 200, athlete.body);
    assert.ok(summaryPulls().length > 0, 'callbacks were pulled');
    assertNoRefusals();
  });

  test('a sync is pulled through its callback; a paused workout ends at its elapsed time', async () => {
    const before = receiver.received.length;
    const answers = await fake.syncWorkout();
    for (const answer of answers) assert.equal(answer.status, 200, answer.responseBody);
    let synced: Workout | undefined;
    await until('the synced workout as an activity event', async () => {
      for (const event of eventsSince(before)) {
        if (event.type !== 'activity') continue;
        // The sync's own workout: recorded today (index 1 of the day, as `extra`).
        synced = (event.data as Workout[] | undefined)?.find((record) =>
          record.metadata.summary_id.endsWith('1'),
        );
        if (synced) return true;
      }
      return false;
    });
    const timer = synced!.active_durations_data?.activity_seconds ?? 0;
    const elapsed = (Date.parse(synced!.metadata.end_time) - Date.parse(synced!.metadata.start_time)) / 1000;
    assert.equal(elapsed, timer + PAUSE_SECONDS, 'end = start + timer time + the pause');
    assertNoRefusals();
  });

  test('push delivery: the summaries in the body are the data, nothing is pulled', async () => {
    // A companion of the previous step's sync (its dailies) may still be pulled: not this push's.
    await settled();
    fake.modes.dailies = 'push';
    const pullsBefore = fake.requestsTo('/wellness-api/rest/dailies').length;
    const before = receiver.received.length;
    const answer = await fake.push('dailies', dayNow() - 1);
    assert.equal(answer.status, 200, answer.responseBody);
    await until('a daily data event after the push', async () =>
      eventsSince(before).some((event) => event.type === 'daily' && (event.data?.length ?? 0) > 0),
    );
    assert.equal(fake.requestsTo('/wellness-api/rest/dailies').length, pullsBefore, 'no pull for a push');
    delete fake.modes.dailies;
  });

  test("Women's Health: a pushed cycle tracking summary arrives as that day's menstruation", async () => {
    fake.modes.mct = 'push';
    const day = dayNow() - 1;
    const { dayInCycle, periodStart } = cycleOf(fake.accountOf('account-1').user, day);
    const before = receiver.received.length;
    const answer = await fake.push('mct', day);
    assert.equal(answer.status, 200, answer.responseBody);
    type Day = { metadata: { start_time: string }; menstruation_data: Record<string, unknown> };
    let found: Day | undefined;
    await until('a menstruation data event for the pushed day', async () => {
      for (const event of eventsSince(before)) {
        if (event.type !== 'menstruation') continue;
        found = (event.data as Day[] | undefined)?.find((record) =>
          record.metadata.start_time.startsWith(isoDay(day)),
        );
        if (found) return true;
      }
      return false;
    });
    const data = found!.menstruation_data;
    assert.equal(data.day_in_cycle, dayInCycle);
    assert.equal(data.period_start_date, isoDay(periodStart));
    assert.equal(data.cycle_length_days, 28);
    delete fake.modes.mct;
  });

  test('a forged ping naming 1970 → now, another host or another path costs no request', async () => {
    await settled();
    const garminUser = fake.userIdOf('account-1');
    const now = Math.floor(Date.now() / 1000);
    const requestsBefore = fake.requests.length;
    const forged = [
      // Issue 24: the client id is in every auth link; the window is what Garmin never sends.
      `${fake.baseUrl}/wellness-api/rest/dailies?uploadStartTimeInSeconds=0&uploadEndTimeInSeconds=${now}&token=forged`,
      // Inside a day, but before this connection existed.
      `${fake.baseUrl}/wellness-api/rest/sleeps?uploadStartTimeInSeconds=86400&uploadEndTimeInSeconds=90000&token=forged`,
      // Somewhere else: never fetched, whatever it names.
      `http://127.0.0.1:9/wellness-api/rest/dailies?uploadStartTimeInSeconds=${now - 60}&uploadEndTimeInSeconds=${now}`,
      `${fake.baseUrl}/partner-gateway/rest/user/registration?uploadStartTimeInSeconds=${now - 60}&uploadEndTimeInSeconds=${now}`,
    ];
    for (const callbackURL of forged) {
      const kind = callbackURL.includes('sleeps') ? 'sleeps' : 'dailies';
      const answer = await fake.send({ [kind]: [{ userId: garminUser, callbackURL }] });
      assert.equal(answer.status, 200, answer.responseBody);
    }
    // Dropped as they arrive: no refetch is even pending.
    assert.deepEqual(await pending(), []);
    assert.equal(fake.requests.length, requestsBefore, 'not one request to Garmin');
  });

  test('a re-sent ping is pulled once', async () => {
    const now = Math.floor(Date.now() / 1000);
    const first = await fake.ping('sleeps', { start: now - 120, end: now });
    assert.equal(first.status, 200, first.responseBody);
    const callbackURL = fake.callbacks.at(-1)!;
    const token = new URL(callbackURL).searchParams.get('token');
    const pullsOf = () => summaryPulls().filter((request) => request.query.token === token);
    await until('the first pull', async () => pullsOf().length === 1 && (await pending()).length === 0);
    // Garmin re-sends a ping it thinks failed; so may anyone who saw it.
    const again = await fake.send({ sleeps: [{ userId: fake.userIdOf('account-1'), callbackURL }] });
    assert.equal(again.status, 200, again.responseBody);
    await until('the re-sent ping settled', async () => (await pending()).length === 0);
    assert.equal(pullsOf().length, 1, 'pulled once');
    assertNoRefusals();
  });

  test('an expired access token is refreshed once and the callback pulled', async () => {
    const refreshes = () =>
      fake.requests.filter(
        (request) =>
          request.path === '/di-oauth2-service/oauth/token' &&
          request.body.includes('grant_type=refresh_token'),
      ).length;
    const refreshesBefore = refreshes();
    fake.expireAccessTokens();
    const before = receiver.received.length;
    const answers = await fake.syncWorkout();
    for (const answer of answers) assert.equal(answer.status, 200, answer.responseBody);
    await until('an activity event after the refresh', async () =>
      eventsSince(before).some((event) => event.type === 'activity'),
    );
    assert.equal(refreshes() - refreshesBefore, 1, 'one refresh');
    assertNoRefusals();
  });

  test('a manually updated activity arrives as an update of the workout', async () => {
    const day = dayNow() - 2 - ((dayNow() - 2) % 2);
    const before = receiver.received.length;
    const answer = await fake.editWorkout(day);
    assert.equal(answer.status, 200, answer.responseBody);
    await until('the edited workout as an activity event with upload_type UPDATE', async () =>
      eventsSince(before).some(
        (event) =>
          event.type === 'activity' &&
          (event.data ?? []).some((record) => {
            const metadata = record.metadata as { upload_type?: number; name?: string } | undefined;
            return metadata?.name === 'Renamed in Connect' && metadata.upload_type === 3;
          }),
      ),
    );
  });

  test('without the client id header, or with another, a notification is refused', async () => {
    const body = { dailies: [{ userId: fake.userIdOf('account-1'), callbackURL: `${fake.baseUrl}/x` }] };
    for (const headers of [{}, { 'garmin-client-id': 'someone-else' }] as Record<string, string>[]) {
      const answer = await fake.send(body, headers);
      assert.equal(answer.status, 401, answer.responseBody);
    }
  });

  test('a permission change is confirmed with Garmin and sent as permission_change', async () => {
    const answer = await fake.setPermissions(['ACTIVITY_EXPORT', 'HEALTH_EXPORT']);
    assert.equal(answer.status, 200, answer.responseBody);
    const narrowed = await fake.setPermissions(['ACTIVITY_EXPORT']);
    assert.equal(narrowed.status, 200, narrowed.responseBody);
    await until('a permission_change event removing HEALTH_EXPORT', async () =>
      events().some(
        (event) =>
          event.type === 'permission_change' && String(event.scopes_removed).includes('HEALTH_EXPORT'),
      ),
    );
    const row = await service.ctx.db
      .selectFrom('connections')
      .select(['scopes', 'status'])
      .where('id', '=', userId)
      .executeTakeFirst();
    assert.equal(row?.scopes, 'ACTIVITY_EXPORT');
    assert.equal(row?.status, 'active');
  });

  test('a deregistration Garmin does not confirm changes nothing; a real one is access_revoked', async () => {
    const checksBefore = fake.requestsTo('/wellness-api/rest/user/permissions').length;
    const forged = await fake.send({ deregistrations: [{ userId: fake.userIdOf('account-1') }] });
    assert.equal(forged.status, 200, forged.responseBody);
    await until(
      'the deregistration checked with Garmin and settled',
      async () =>
        fake.requestsTo('/wellness-api/rest/user/permissions').length > checksBefore &&
        (await pending()).length === 0,
    );
    const status = async () =>
      (
        await service.ctx.db
          .selectFrom('connections')
          .select('status')
          .where('id', '=', userId)
          .executeTakeFirst()
      )?.status;
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
