import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ARRIVALS_QUEUE, runArrivals } from '../../src/features/data/sandbox-arrivals.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { connectSandboxUser } from '../helpers/connections.ts';
import { setUrl } from '../helpers/webhook-api.ts';
import {
  type ReceivedRequest,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../helpers/webhook-receiver.ts';

type Payload = {
  type: string;
  reference?: string;
  data?: unknown[];
  expected_payloads?: number;
  user?: { user_id: string };
};
const payloadOf = (entry: ReceivedRequest) => JSON.parse(entry.body) as Payload;

describe('data to the webhook', () => {
  let service: TestService;
  let developer: TestDeveloper;
  let receiver: WebhookReceiver;
  let userId: string;

  before(async () => {
    service = await startTestService({ env: { SANDBOX_ARRIVAL_MINUTES: '30' } });
    developer = await createDeveloper(service.ctx);
    receiver = await startWebhookReceiver();
    await setUrl(service, developer, receiver.url);
    ({ userId } = await connectSandboxUser(service.app, developer));
  });
  after(async () => {
    await service?.close();
    await receiver?.close();
  });

  const get = (url: string) => service.app.inject({ method: 'GET', url, headers: developer.headers });
  const withReference = (reference: string) =>
    receiver.received.filter((entry) => payloadOf(entry).reference === reference);

  test('to_webhook=true: acknowledgement, then one data event with the same reference', async () => {
    const range = `user_id=${userId}&start_date=2024-02-01&end_date=2024-02-11`;
    const ack = (await get(`/v2/activity?${range}`)).json() as { reference: string; message: string };
    assert.equal(ack.message, 'Data sent to webhook');
    await receiver.waitFor(
      (list) => list.some((entry) => payloadOf(entry).reference === ack.reference),
      'the activity event',
    );
    const [event] = withReference(ack.reference);
    assert.ok(event);
    const payload = payloadOf(event);
    assert.equal(payload.type, 'activity');
    assert.equal(event.headers['service-reference'], ack.reference);
    assert.equal(payload.user?.user_id, userId);
    const direct = (await get(`/v2/activity?${range}&to_webhook=false`)).json() as { data: unknown[] };
    assert.deepEqual(payload.data, direct.data);
  });

  test('a range over 28 days: large_request_processing, large_request_sending {expected_payloads}, then the chunks', async () => {
    const range = `user_id=${userId}&start_date=2024-03-01&end_date=2024-05-01&with_samples=true`;
    const ack = (await get(`/v2/activity?${range}`)).json() as { reference: string; message: string };
    assert.match(ack.message, /^Large request submitted/);
    await receiver.waitFor((list) => {
      const mine = list.filter((entry) => payloadOf(entry).reference === ack.reference);
      const sending = mine.map(payloadOf).find((payload) => payload.type === 'large_request_sending');
      return sending !== undefined && mine.length === 2 + (sending.expected_payloads ?? 0);
    }, 'every chunk of the large request');
    const payloads = withReference(ack.reference).map(payloadOf);
    assert.equal(payloads.filter((payload) => payload.type === 'large_request_processing').length, 1);
    const sending = payloads.filter((payload) => payload.type === 'large_request_sending');
    assert.equal(sending.length, 1);
    const chunks = payloads.filter((payload) => payload.type === 'activity');
    assert.equal(chunks.length, sending[0]!.expected_payloads);
    assert.ok(chunks.length > 1);
    for (const chunk of chunks) assert.ok((chunk.data?.length ?? 0) <= 10);
    for (const entry of withReference(ack.reference))
      assert.equal(entry.headers['service-reference'], ack.reference);

    // Together the chunks are exactly the range, in order, with samples.
    const direct = (await get(`/v2/activity?${range}&to_webhook=false`)).json() as {
      data: { metadata: { summary_id: string } }[];
    };
    const ids = (records: unknown[]) =>
      records.map((record) => (record as { metadata: { summary_id: string } }).metadata.summary_id);
    const chunkIds = chunks.flatMap((chunk) => ids(chunk.data ?? []));
    assert.deepEqual([...chunkIds].sort(), [...ids(direct.data)].sort());
    assert.deepEqual(chunks.flatMap((chunk) => chunk.data ?? []).length, direct.data.length);
  });

  test('the athlete to the webhook', async () => {
    const ack = (await get(`/v2/athlete?user_id=${userId}`)).json() as { reference: string };
    await receiver.waitFor(
      (list) => list.some((entry) => payloadOf(entry).reference === ack.reference),
      'the athlete event',
    );
    const payload = JSON.parse(withReference(ack.reference)[0]!.body) as {
      type: string;
      athlete: { first_name: string };
    };
    assert.equal(payload.type, 'athlete');
    assert.equal(typeof payload.athlete.first_name, 'string');
  });

  test('SANDBOX arrivals: new records pushed as data events to active users only, on a schedule', async () => {
    const schedules = await service.ctx.jobs.boss().getSchedules(ARRIVALS_QUEUE);
    assert.equal(schedules.length, 1);
    assert.match(String(schedules[0]!.cron), /FREQ=MINUTELY;INTERVAL=30/);

    const quiet = await connectSandboxUser(service.app, developer);
    await service.app.inject({
      method: 'PATCH',
      url: `/v2/users/${quiet.userId}`,
      headers: developer.headers,
      payload: { active: false },
    });
    // The quiet user's own auth event must be in before counting, or it lands among the arrivals.
    await receiver.waitFor(
      (list) =>
        list.some(
          (entry) => payloadOf(entry).type === 'auth' && payloadOf(entry).user?.user_id === quiet.userId,
        ),
      "the quiet user's auth event",
    );
    const before = receiver.received.length;
    // A whole day's window, two days on, so both users were connected before it opened.
    const later = new Date(Date.now() + 2 * 86_400_000);
    const result = await runArrivals(
      {
        db: service.ctx.db,
        clock: { now: () => later },
        log: service.ctx.log,
        providers: service.ctx.providers,
        sync: service.ctx.data.sync,
        write: (trx, user, batches, options) => service.ctx.data.write(trx, user, batches, options),
      },
      24 * 60,
    );
    assert.equal(result.users, 1, 'only the active user');
    assert.ok(result.records > 0);
    // Each type arrives as its own event, in no promised order: wait for the four day types.
    await receiver.waitFor((list) => {
      const seen = new Set(list.slice(before).map((entry) => payloadOf(entry).type));
      return ['daily', 'body', 'nutrition', 'menstruation'].every((type) => seen.has(type));
    }, 'the arrivals');
    const arrived = receiver.received.slice(before).map(payloadOf);
    assert.ok(arrived.every((payload) => payload.user?.user_id === userId));
    assert.ok(
      arrived.every((payload) => payload.reference === undefined),
      'nobody asked: no reference',
    );
    const types = new Set(arrived.map((payload) => payload.type));
    for (const type of ['daily', 'body', 'nutrition', 'menstruation']) assert.ok(types.has(type), type);
    // Arrived records are stored too.
    const stored = await service.ctx.db
      .selectFrom('data_records')
      .select('identity_key')
      .where('user_id', '=', userId)
      .where('type', '=', 'daily')
      .where('anchor_day', '=', later.toISOString().slice(0, 10))
      .execute();
    assert.equal(stored.length, 1);
  });
});
