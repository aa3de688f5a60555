// What inbound provider notifications can cost (issue 13, item 4). Unsigned ones (Withings:
// anyone can post them) are taken only for connected accounts, coalesced to one pending refetch
// per account and kind, and limited per sender address; signed ones are taken in once however
// often they are replayed, and only within 5 minutes of their timestamp, none from the future; a
// provider not configured here is a 404 that logs nothing. The flood tests count what the queue
// and the tables hold afterwards: bounded, not growing with the number of posts.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { InjectOptions } from 'fastify';
import {
  NOTIFICATION_QUEUE,
  type NotificationJob,
} from '../../src/features/connectors/notification-queues.ts';
import {
  coalescePending,
  readPending,
  RECEIPT_RETENTION_MS,
  settlePending,
} from '../../src/features/connectors/intake.ts';
import { withingsNotifications } from '../../src/providers/withings/connector.ts';
import type { DataNotification } from '../../src/provider-kit/api.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { logLines } from '../helpers/log-lines.ts';
import { insertUser } from '../helpers/users.ts';

const OURA_SECRET = 'oura-test-secret';
const SOURCE_LIMIT = 40;

type Post = { provider: string; body: string; headers?: Record<string, string>; from?: string };

function post(service: TestService, input: Post) {
  const options: InjectOptions = {
    method: 'POST',
    url: `/providers/${input.provider}/webhook`,
    headers: { 'content-type': 'application/json', ...input.headers },
    payload: input.body,
    remoteAddress: input.from ?? '198.51.100.1',
  };
  return service.app.inject(options);
}

const withingsForm = (userid: string, appli: number, date: string) =>
  new URLSearchParams({ userid, appli: String(appli), date }).toString();
const withingsPost = (userid: string, appli: number, date: string, from?: string): Post => ({
  provider: 'WITHINGS',
  body: withingsForm(userid, appli, date),
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  ...(from ? { from } : {}),
});

function ouraHeaders(body: string, timestampSeconds = Math.floor(Date.now() / 1000)) {
  const timestamp = String(timestampSeconds);
  return {
    'x-oura-timestamp': timestamp,
    'x-oura-signature': createHmac('sha256', OURA_SECRET)
      .update(timestamp + body)
      .digest('hex')
      .toUpperCase(),
  };
}

async function notificationJobs(service: TestService) {
  return service.ctx.jobs.boss().findJobs<NotificationJob>(NOTIFICATION_QUEUE);
}

async function pendingRows(service: TestService) {
  return service.ctx.db.selectFrom('connector_pending_refetches').selectAll().execute();
}

/** Log lines at `error` or above, as pino writes them. */
function errorLog() {
  const { stream, lines } = logLines<{ level: number; msg?: string }>();
  return { stream, errors: () => lines.filter((line) => line.level >= 50) };
}

describe('notification bounds: unsigned floods, signed replays, freshness, unconfigured providers', () => {
  let service: TestService;
  let developer: TestDeveloper;
  const log = errorLog();
  let connectedUserId: string;

  before(async () => {
    service = await startTestService({
      // No workers: what was queued stays in the queue to be counted.
      work: false,
      env: {
        WITHINGS_CLIENT_ID: 'withings-id',
        WITHINGS_CLIENT_SECRET: 'withings-secret',
        OURA_CLIENT_ID: 'oura-id',
        OURA_CLIENT_SECRET: OURA_SECRET,
        NOTIFICATION_SOURCE_LIMIT: `${SOURCE_LIMIT}/3600`,
        LOG_LEVEL: 'warn',
      },
      logTo: log.stream,
    });
    developer = await createDeveloper(service.ctx);
    connectedUserId = await insertUser(service.ctx, { developerId: developer.devId, provider: 'WITHINGS' });
    await service.ctx.db
      .updateTable('connections')
      .set({ provider_user_id: '4242' })
      .where('id', '=', connectedUserId)
      .execute();
  });
  after(async () => {
    await service?.close();
  });

  test('a flood of forged Withings callbacks: one pending refetch per account and kind, 429 past the sender limit', async () => {
    const answers: number[] = [];
    // 500 posts from many senders: 300 about the connected account (two kinds), 200 about strangers.
    for (let index = 0; index < 500; index += 1) {
      const from = `203.0.113.${index % 25}`;
      const day = `2026-03-${String(1 + (index % 5)).padStart(2, '0')}`;
      const input =
        index % 5 === 4
          ? withingsPost(String(900_000 + index), 1, day, from)
          : withingsPost('4242', index % 2 === 0 ? 1 : 44, day, from);
      answers.push((await post(service, input)).statusCode);
    }
    // 25 senders × 20 posts each, all under the limit of 40 per sender.
    assert.deepEqual([...new Set(answers)], [200]);

    const rows = await pendingRows(service);
    assert.deepEqual(
      rows.map((row) => `${row.provider}/${row.provider_user_id}/${row.data_kind}`).sort(),
      ['WITHINGS/4242/1', 'WITHINGS/4242/44'],
      'one pending refetch per kind of the connected account; none for strangers',
    );
    const jobs = await notificationJobs(service);
    assert.equal(jobs.length, 2, `queued: ${JSON.stringify(jobs.map((job) => job.data))}`);
    // Later callbacks widened the pending refetch instead of queueing another.
    const weight = rows.find((row) => row.data_kind === '1');
    assert.equal((weight?.notification as DataNotification).objectId, '2026-03-01/2026-03-04');

    // One sender past its limit: 429 problem+json with Retry-After, and nothing more stored.
    const limited: number[] = [];
    for (let index = 0; index < SOURCE_LIMIT + 10; index += 1) {
      limited.push((await post(service, withingsPost('4242', 16, '2026-03-09', '192.0.2.77'))).statusCode);
    }
    assert.equal(limited.filter((status) => status === 200).length, SOURCE_LIMIT);
    assert.equal(limited.filter((status) => status === 429).length, 10);
    const refused = await post(service, withingsPost('4242', 16, '2026-03-09', '192.0.2.77'));
    assert.equal(refused.statusCode, 429);
    assert.match(String(refused.headers['content-type']), /application\/problem\+json/);
    assert.ok(Number(refused.headers['retry-after']) > 0);
    assert.equal((await pendingRows(service)).length, 3, 'the activity kind joined once');
    assert.equal((await notificationJobs(service)).length, 3);
  });

  test('the answer to an unsigned callback does not say whether the account is connected', async () => {
    const known = await post(service, withingsPost('4242', 44, '2026-03-02', '192.0.2.10'));
    const stranger = await post(service, withingsPost('31337', 44, '2026-03-02', '192.0.2.10'));
    assert.equal(known.statusCode, 200);
    assert.equal(stranger.statusCode, 200);
    assert.deepEqual(known.json(), stranger.json());
  });

  test('a pending refetch is settled by the job that fetched its version, not by an older one', async () => {
    const notification = (date: string): DataNotification => ({
      kind: 'data',
      providerUserId: '5151',
      dataKind: '4',
      objectId: `${date}/${date}`,
      action: 'update',
      eventTime: null,
    });
    const key = { provider: 'WITHINGS', providerUserId: '5151', dataKind: '4' };
    const coalesce = withingsNotifications.unsigned!.coalesce;
    const now = new Date();
    const first = await coalescePending(
      service.ctx.db,
      'WITHINGS',
      notification('2026-04-02'),
      coalesce,
      now,
    );
    assert.deepEqual(first, key, 'a new pending refetch needs a job');
    const read = await readPending(service.ctx.db, key);
    // A callback arrives while the job is fetching: folded in, no second job.
    assert.equal(
      await coalescePending(service.ctx.db, 'WITHINGS', notification('2026-04-06'), coalesce, now),
      null,
    );
    assert.equal(
      await settlePending(service.ctx.db, key, read!.version),
      false,
      'newer days are still pending',
    );
    const again = await readPending(service.ctx.db, key);
    assert.equal(again?.notification.objectId, '2026-04-02/2026-04-06');
    assert.equal(await settlePending(service.ctx.db, key, again!.version), true);
    assert.equal(await readPending(service.ctx.db, key), undefined);
  });

  test('a replayed signed Oura notification is queued once', async () => {
    const body = JSON.stringify({
      event_type: 'update',
      data_type: 'sleep',
      object_id: 'replayed-object',
      user_id: 'oura-account',
      event_time: new Date().toISOString(),
    });
    const headers = ouraHeaders(body);
    const before = (await notificationJobs(service)).length;
    const answers = [];
    for (let index = 0; index < 20; index += 1)
      answers.push(await post(service, { provider: 'OURA', body, headers }));
    assert.deepEqual(
      answers.map((answer) => answer.statusCode),
      Array(20).fill(200),
    );
    assert.deepEqual(answers[0]?.json(), { status: 'success', queued: 1 });
    assert.deepEqual(answers[19]?.json(), { status: 'success', queued: 0, duplicate: true });
    assert.equal((await notificationJobs(service)).length, before + 1);
  });

  test('receipts are forgotten after their retention window (daily maintenance)', async () => {
    const old = new Date(Date.now() - RECEIPT_RETENTION_MS - 60_000);
    await service.ctx.db
      .insertInto('connector_notification_receipts')
      .values({ provider: 'OURA', fingerprint: 'from-three-days-ago', received_at: old })
      .execute();
    const kept = await service.ctx.db
      .selectFrom('connector_notification_receipts')
      .select('fingerprint')
      .execute();
    assert.ok(kept.length >= 2);
    assert.equal(await service.ctx.connectors.notifications.prune(), 1);
    const left = await service.ctx.db
      .selectFrom('connector_notification_receipts')
      .select('fingerprint')
      .execute();
    assert.equal(left.length, kept.length - 1);
    assert.ok(!left.some((row) => row.fingerprint === 'from-three-days-ago'));
  });

  test('signed timestamps: accepted up to 5 minutes old, refused older or from the future', async () => {
    const nowSeconds = Math.floor(Date.now() / 1000);
    const cases: [string, number, number][] = [
      ['4 minutes old', nowSeconds - 240, 200],
      ['6 minutes old', nowSeconds - 360, 401],
      ['59 minutes old', nowSeconds - 59 * 60, 401],
      ['1 minute ahead', nowSeconds + 60, 401],
      ['59 minutes ahead', nowSeconds + 59 * 60, 401],
    ];
    for (const [label, stamp, expected] of cases) {
      const body = JSON.stringify({
        event_type: 'update',
        data_type: 'sleep',
        object_id: `stamp-${label}`,
        user_id: 'oura-account',
      });
      const answer = await post(service, { provider: 'OURA', body, headers: ouraHeaders(body, stamp) });
      assert.equal(answer.statusCode, expected, `${label}: ${answer.body}`);
    }
  });

  test('a provider not configured here is a 404 and logs nothing', async () => {
    const errorsBefore = log.errors().length;
    for (let index = 0; index < 20; index += 1) {
      // WHOOP and Polar have notifications but no credentials here; Strava holds no subscription.
      const whoop = await post(service, {
        provider: 'WHOOP',
        body: '{"user_id":1,"id":"x","type":"sleep.updated"}',
        headers: { 'x-whoop-signature': 'x', 'x-whoop-signature-timestamp': String(Date.now()) },
        from: `192.0.2.${100 + index}`,
      });
      assert.equal(whoop.statusCode, 404, whoop.body);
      assert.match(String(whoop.headers['content-type']), /application\/problem\+json/);
      assert.equal(
        (await post(service, { provider: 'POLAR', body: '{"event":"EXERCISE"}' })).statusCode,
        404,
      );
      assert.equal(
        (await post(service, { provider: 'STRAVA', body: '{"subscription_id":1}' })).statusCode,
        404,
      );
    }
    const handshake = await service.app.inject({
      method: 'GET',
      url: '/providers/WHOOP/webhook?challenge=x',
    });
    assert.equal(handshake.statusCode, 404);
    assert.deepEqual(log.errors().slice(errorsBefore), []);
  });
});

describe('notification bounds across processes', () => {
  test('two API processes share one sender limit', async () => {
    const env = {
      WITHINGS_CLIENT_ID: 'withings-id',
      WITHINGS_CLIENT_SECRET: 'withings-secret',
      NOTIFICATION_SOURCE_LIMIT: `${SOURCE_LIMIT}/3600`,
    };
    const first = await startTestService({ work: false, env });
    const second = await startTestService({ work: false, env, database: first.database });
    try {
      const attempts = Array.from({ length: SOURCE_LIMIT * 3 }, (_, index) =>
        post(index % 2 === 0 ? first : second, withingsPost('777', 1, '2026-03-01', '192.0.2.200')),
      );
      const statuses = (await Promise.all(attempts)).map((answer) => answer.statusCode);
      assert.equal(statuses.filter((status) => status === 200).length, SOURCE_LIMIT);
      assert.equal(statuses.filter((status) => status === 429).length, SOURCE_LIMIT * 2);
    } finally {
      await second.close();
      await first.close();
    }
  });
});
