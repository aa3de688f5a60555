// A Garmin day is one `daily` record built from four summary types (dailies, epochs, stress
// details, pulse ox) that Garmin notifies separately, often minutes apart (and under load further
// apart than the notifications' 5 s gather window). A notification that brings only some of a
// day's types used to be normalized alone, and the stored record lost what the others gave (seen:
// a day's 84 SpO₂ samples gone in merged-view). Now the summaries of each day are kept per
// connection (day_companions, provider-kit/day-companions.ts) and every notification normalizes
// the whole day. Every notification here travels over a real socket from the strict fake; each
// step waits until the refetches before it have settled (states, not durations), so each ping is
// its own refetch, as if it came minutes after the other.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { countKept } from '../../src/features/day-companions/repo.ts';
import { NOTIFICATION_QUEUE } from '../../src/features/connectors/notification-queues.ts';
import { type GarminFake, type GarminKind } from '../fakes/garmin.ts';
import { isoDay } from '../fakes/garmin-data.ts';
import { createDeveloper, type TestDeveloper, type TestService } from '../helpers/app.ts';
import {
  startServiceWithGarminFake,
  storedGarminDaily,
  type StoredGarminDaily,
} from '../helpers/garmin-service.ts';
import { connectThroughFake, untilBackfilled } from '../helpers/connections.ts';
import { unsettledJobs } from '../helpers/jobs.ts';
import { until } from '../helpers/until.ts';
import { zipEntryText } from '../helpers/zip.ts';

type StoredDaily = StoredGarminDaily;

describe('GARMIN: a day whose summary types are notified apart', () => {
  let fake: GarminFake;
  let service: TestService;
  let developer: TestDeveloper;
  let userId: string;
  /** The fake's local day number now (its users live at UTC+1). */
  const today = () => Math.floor((fake.clock.now() / 1000 + 3600) / 86_400);

  const pendingRefetches = async () =>
    (
      await service.ctx.db
        .selectFrom('connector_pending_refetches')
        .select('data_kind')
        .where('provider', '=', 'GARMIN')
        .execute()
    ).length;
  /** Every refetch so far done: none pending, no notification job waiting or running. */
  const settled = () =>
    until(
      'the refetches settled',
      async () =>
        (await pendingRefetches()) === 0 &&
        (await unsettledJobs(service.ctx, NOTIFICATION_QUEUE)).length === 0,
      { timeoutMs: 120_000 },
    );
  /**
   * The user's watch uploads these summary types of `days` now and Garmin pings each type (one
   * ping per type, as Garmin does); then waits until they are taken in, so the next upload's
   * pings are a refetch of their own.
   */
  async function uploadAndPing(kinds: readonly GarminKind[], days: readonly number[]) {
    const at = Math.floor(fake.clock.now() / 1000);
    const account = fake.accountOf();
    for (const kind of kinds) account.uploads.push({ kind, days: [...days], at, extra: 0, manual: false });
    for (const kind of kinds) {
      const answer = await fake.ping(kind, { start: at - 60, end: at + 1 });
      assert.equal(answer.status, 200, answer.responseBody);
    }
    await settled();
  }
  const storedDaily = (day: number) => storedGarminDaily(service.ctx.db, userId, day);
  const kept = () => countKept(service.ctx.db, userId);
  const spo2 = (record: StoredDaily | null) => record?.oxygen_data?.saturation_samples?.length ?? 0;
  const steps = (record: StoredDaily | null) => record?.distance_data?.steps ?? null;
  const epochSteps = (record: StoredDaily | null) =>
    record?.distance_data?.detailed?.step_samples?.length ?? 0;

  before(async () => {
    ({ fake, service } = await startServiceWithGarminFake());
    developer = await createDeveloper(service.ctx);
    userId = (await connectThroughFake(service.app, developer, 'GARMIN', fake, 'garmin-days')).userId;
    // The backfill is asked for while no endpoint is configured: Garmin has nowhere to answer it,
    // so every day below holds only what the test uploads.
    await untilBackfilled(service, userId, { types: 7, what: 'the backfill requests' });
    const { port } = service.app.server.address() as AddressInfo;
    fake.endpointUrl = `http://127.0.0.1:${port}/providers/GARMIN/webhook`;
  });
  after(async () => {
    await service?.close();
    await fake?.close();
  });

  test('a day’s dailies, then its pulse ox in a refetch of its own: the record has both', async () => {
    const day = today() - 3;
    await uploadAndPing(['dailies'], [day]);
    const first = await storedDaily(day);
    assert.ok(steps(first) !== null && steps(first)! > 0, 'the dailies’ steps are stored');
    assert.equal(spo2(first), 0, 'no pulse ox yet');

    await uploadAndPing(['pulseox'], [day]);
    const both = await storedDaily(day);
    assert.ok(spo2(both) > 0, 'the pulse ox’s SpO₂ samples are stored');
    assert.equal(steps(both), steps(first), 'and the dailies’ steps are still there');
    assert.deepEqual(fake.refusals, []);
  });

  test('a partial notification after a full one keeps the others', async () => {
    const day = today() - 5;
    await uploadAndPing(['dailies', 'epochs', 'stressDetails', 'pulseox'], [day]);
    const full = await storedDaily(day);
    assert.ok(spo2(full) > 0 && epochSteps(full) > 0, 'the full day has SpO₂ and epoch samples');

    // The watch syncs the day again: Garmin sends a new copy of its dailies only.
    await uploadAndPing(['dailies'], [day]);
    assert.deepEqual(await storedDaily(day), full, 'the day is as it was');
  });

  test('a backfill’s 90 days of dailies, then of epochs: every day is completed from the kept dailies', async () => {
    const days = Array.from({ length: 90 }, (_, index) => today() - 100 + index);
    await uploadAndPing(['dailies'], days);
    await uploadAndPing(['epochs'], days);
    for (const day of days) {
      const record = await storedDaily(day);
      assert.ok(steps(record) !== null, `${isoDay(day)}: the dailies’ values`);
      assert.ok(epochSteps(record) > 0, `${isoDay(day)}: the epochs’ step samples`);
    }
  });

  test('the kept summaries are in the user’s archive', async () => {
    const archive = await service.app.inject({
      method: 'GET',
      url: `/v2/users/${userId}/export`,
      headers: developer.headers,
    });
    assert.equal(archive.statusCode, 200);
    const lines = (await zipEntryText(archive.rawPayload, 'day_companions.ndjson'))!
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { type: string; kind: string; summary: { summaryId?: string } });
    assert.equal(lines.length, await kept());
    assert.ok(
      lines.some((line) => line.type === 'daily' && line.kind === 'pulseox' && line.summary.summaryId),
    );
  });

  test('deauthenticating the user erases the kept summaries, and the receipt counts them', async () => {
    const before = await kept();
    assert.ok(before > 0, 'summaries are kept');
    const deauth = await service.app.inject({
      method: 'DELETE',
      url: `/v2/auth/deauthenticateUser?user_id=${userId}`,
      headers: developer.headers,
    });
    assert.equal(deauth.statusCode, 200, deauth.body);
    assert.equal(await kept(), 0, 'none left');
    const receipt = await service.app.inject({
      method: 'GET',
      url: `/v2/users/${userId}/erasure-receipt`,
      headers: developer.headers,
    });
    assert.equal(receipt.statusCode, 200, receipt.body);
    const deleted = (receipt.json() as { receipt: { deleted_rows: Record<string, number> } }).receipt
      .deleted_rows;
    assert.equal(deleted['day_companions'], before);
  });
});
