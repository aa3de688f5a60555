// Two fetches of one Garmin day can overlap across processes: a refetch job running past the
// pending refetch's stale threshold, or one taken for dead and run again beside the original.
// Both keep what they brought (day_companions), but each built its record from the day as it read
// it, so the one that wrote last could have read the day before the other kept its summaries: the
// stored day lacked what the other brought until the day's next notification. Now a day is kept,
// read back, built and written in one exclusive section per connection, type and day (an advisory
// lock of the write's transaction). The interleaving is made, not hoped for: the first fetch is
// held inside its write (an enricher waits on the test) while a second process runs the same
// refetch, and it is let go only once the second has written the day (the old code) or waits for
// the day's section (now). Notifications travel over a real socket from the strict fake.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { NOTIFICATION_QUEUE } from '../../src/features/connectors/notification-queues.ts';
import { type DayKey, sectionLockOf } from '../../src/features/day-companions/repo.ts';
import type { AppContext } from '../../src/runtime/context.ts';
import { refetchSinks } from '../../src/runtime/workers/connectors.ts';
import { type GarminFake, type GarminKind } from '../fakes/garmin.ts';
import { isoDay } from '../fakes/garmin-data.ts';
import { createDeveloper, type TestDeveloper, type TestService } from '../helpers/app.ts';
import {
  startSecondGarminProcess,
  startServiceWithGarminFake,
  storedGarminDaily,
  type StoredGarminDaily,
} from '../helpers/garmin-service.ts';
import { connectThroughFake, untilBackfilled } from '../helpers/connections.ts';
import { unsettledJobs } from '../helpers/jobs.ts';
import { until } from '../helpers/until.ts';

type StoredDaily = StoredGarminDaily;

/** A write of a connection's daily records held inside its transaction until the test lets it go. */
type Held = { reached(): Promise<unknown>; release(): void };

describe('GARMIN: two fetches of one day in two processes', () => {
  let fake: GarminFake;
  let service: TestService;
  /** Another process of the same deployment: no workers, the test runs its job. */
  let other: TestService;
  let developer: TestDeveloper;
  /** account-1's connection, and account-2's (another person, another connection). */
  let first: string;
  let second: string;
  /** The write to hold next: whose, and how the test learns it is held and lets it go. */
  let hold: { userId: string; reached: () => void; released: Promise<void> } | null = null;
  /** The fake's local day number now (its users live at UTC+1). */
  const today = () => Math.floor((fake.clock.now() / 1000 + 3600) / 86_400);

  /** Every hold's release: `after` lets go of any a failed test left held. */
  const releases: (() => void)[] = [];
  /** Holds the next write of `userId`'s daily records inside its transaction. */
  function holdNextDailyWrite(userId: string): Held {
    let reached = false;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    releases.push(release);
    hold = { userId, reached: () => (reached = true), released };
    return {
      reached: () => until('the first fetch is held in its write', () => reached, { timeoutMs: 120_000 }),
      release,
    };
  }

  const settled = () =>
    until(
      'the refetches settled',
      async () =>
        (
          await service.ctx.db
            .selectFrom('connector_pending_refetches')
            .select('data_kind')
            .where('provider', '=', 'GARMIN')
            .execute()
        ).length === 0 && (await unsettledJobs(service.ctx, NOTIFICATION_QUEUE)).length === 0,
      { timeoutMs: 120_000 },
    );
  /** The user's watch uploads `kind` of `day` now and Garmin pings it (answered by `service`). */
  async function uploadAndPing(account: string, kind: GarminKind, day: number) {
    const at = Math.floor(fake.clock.now() / 1000);
    fake.accountOf(account).uploads.push({ kind, days: [day], at, extra: 0, manual: false });
    const answer = await fake.ping(kind, { start: at, end: at + 1 }, account);
    assert.equal(answer.status, 200, answer.responseBody);
  }
  const storedDaily = (userId: string, day: number) => storedGarminDaily(service.ctx.db, userId, day);
  const spo2 = (record: StoredDaily | null) => record?.oxygen_data?.saturation_samples?.length ?? 0;
  const steps = (record: StoredDaily | null) => record?.distance_data?.steps ?? null;
  /** Sessions holding and waiting for a day's section (its advisory lock, in this database). */
  async function section(key: DayKey): Promise<{ held: number; waiting: number }> {
    const [classid, objid] = sectionLockOf(key);
    const rows = await sql<{ granted: boolean }>`
      SELECT granted FROM pg_locks
      WHERE locktype = 'advisory' AND objsubid = 2
        AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND classid::bigint = ${classid >>> 0} AND objid::bigint = ${objid >>> 0}`.execute(service.ctx.db);
    return {
      held: rows.rows.filter((row) => row.granted).length,
      waiting: rows.rows.filter((row) => !row.granted).length,
    };
  }
  /** The pending refetch of an account's dailies, as its job names it. */
  async function pendingJob(account: string) {
    const row = await service.ctx.db
      .selectFrom('connector_pending_refetches')
      .select(['provider_user_id', 'data_kind'])
      .where('provider', '=', 'GARMIN')
      .where('provider_user_id', '=', fake.userIdOf(account))
      .executeTakeFirstOrThrow();
    return {
      provider: 'GARMIN',
      pending: { providerUserId: row.provider_user_id, dataKind: row.data_kind },
    } as const;
  }
  const runJobIn = (ctx: AppContext, job: Awaited<ReturnType<typeof pendingJob>>) =>
    ctx.connectors.notifications.handle(job, refetchSinks(ctx));

  before(async () => {
    ({ fake, service } = await startServiceWithGarminFake());
    other = await startSecondGarminProcess(service, fake);
    developer = await createDeveloper(service.ctx);
    first = (await connectThroughFake(service.app, developer, 'GARMIN', fake, 'sections-1')).userId;
    fake.consent.account = 'account-2';
    second = (await connectThroughFake(service.app, developer, 'GARMIN', fake, 'sections-2')).userId;
    fake.consent.account = 'account-1';
    // The backfills are asked for while no endpoint is configured: Garmin never answers them.
    await untilBackfilled(service, first, { types: 7, what: 'the first backfill requests' });
    await untilBackfilled(service, second, { types: 7, what: 'the second backfill requests' });
    // Nor do the fake's uploads for those backfills: only what a test uploads is pulled.
    for (const account of ['account-1', 'account-2']) fake.accountOf(account).uploads.length = 0;
    const { port } = service.app.server.address() as AddressInfo;
    fake.endpointUrl = `http://127.0.0.1:${port}/providers/GARMIN/webhook`;
    // The hold: a write of the held connection's daily records waits, in its transaction, after
    // its day was read back and built (an enricher runs before the write stores anything).
    service.ctx.data.registerEnricher({
      async enrich(_trx, user, write) {
        const current = hold;
        if (current?.userId !== user.id || !write.changes.some((change) => change.type === 'daily'))
          return [];
        hold = null;
        current.reached();
        await current.released;
        return [];
      },
    });
  });
  after(async () => {
    for (const release of releases) release();
    await other?.close();
    await service?.close();
    await fake?.close();
  });

  test('a refetch run again in another process while the first still writes: the day has what both brought', async () => {
    const day = today() - 3;
    const key = { connectionId: first, type: 'daily', day: isoDay(day) };
    const held = holdNextDailyWrite(first);
    // The day's dailies: the refetch job (this process) reads the day back, builds it, and is held
    // in its write.
    await uploadAndPing('account-1', 'dailies', day);
    await held.reached();
    // Its pulse ox meanwhile, folded into the same pending refetch; the job is run again in the
    // other process (as when taken for dead, or past the stale threshold).
    await uploadAndPing('account-1', 'pulseox', day);
    let failed: unknown;
    const rerun = runJobIn(other.ctx, await pendingJob('account-1')).catch((error: unknown) => {
      failed = error;
    });
    await until(
      'the run in the other process wrote the day, or waits for the day’s section',
      async () => {
        if (failed) throw failed;
        return spo2(await storedDaily(first, day)) > 0 || (await section(key)).waiting > 0;
      },
      { timeoutMs: 120_000 },
    );
    held.release();
    await rerun;
    assert.equal(failed, undefined, 'the run in the other process succeeded');
    await settled();
    const record = await storedDaily(first, day);
    assert.ok(steps(record) !== null && steps(record)! > 0, 'the dailies’ steps are stored');
    assert.ok(spo2(record) > 0, 'and the pulse ox’s SpO₂ samples, whichever fetch wrote last');
    assert.deepEqual(await section(key), { held: 0, waiting: 0 }, 'no section is left held');
    assert.deepEqual(fake.refusals, []);
  });

  test('while one connection’s day is held in its section, another connection’s same day is written', async () => {
    const day = today() - 4;
    const key = { connectionId: first, type: 'daily', day: isoDay(day) };
    const held = holdNextDailyWrite(first);
    await uploadAndPing('account-1', 'dailies', day);
    await held.reached();
    assert.equal((await section(key)).held, 1, 'the first connection’s day is held in its section');
    // Another person's same day, through the same worker's other slot.
    await uploadAndPing('account-2', 'dailies', day);
    await until('the second connection’s day is stored', async () => steps(await storedDaily(second, day)), {
      timeoutMs: 120_000,
    });
    assert.equal((await section(key)).held, 1, 'while the first is still held');
    assert.equal(await storedDaily(first, day), null, 'and not written');
    held.release();
    await settled();
    assert.ok(steps(await storedDaily(first, day)), 'the first is written once let go');
  });
});
