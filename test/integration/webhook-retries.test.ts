import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildHealthcheckEvent, healthcheckEnvelope } from '../../src/features/delivery/events.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { DELIVERY_QUEUE, SLOW_DELIVERY_QUEUE } from '../../src/features/delivery/outbox.ts';
import { unsettledJobs } from '../helpers/jobs.ts';
import { call, setUrl, waitForDelivery } from '../helpers/webhook-api.ts';
import { webhookReceivers } from '../helpers/webhook-receiver.ts';
import { until } from '../helpers/until.ts';

/**
 * Retry behaviour against a real receiver. The published schedule is scaled down 1000x
 * (WEBHOOK_RETRY_SCALE) so a day of retries takes seconds; Retry-After is never scaled, so
 * honouring it stays observable. Destinations fail for 1 s before `failing` and 2 s before
 * `disabled` here.
 */
describe('webhook retries', () => {
  let service: TestService;
  const receivers = webhookReceivers();
  const receiver = receivers.start;
  const sendTest = async (developer: TestDeveloper) =>
    String((await call(service, developer, 'POST', '/v2/webhook/test')).body.event_id);

  before(async () => {
    service = await startTestService({
      env: { WEBHOOK_RETRY_SCALE: '0.001', WEBHOOK_FAILING_AFTER: '1s', WEBHOOK_DISABLE_AFTER: '2s' },
    });
  });
  after(async () => {
    await service?.close();
    await receivers.closeAll();
  });

  test('500 then 200: the event arrives twice with the same webhook-id, and both attempts are logged', async () => {
    const developer = await createDeveloper(service.ctx);
    const target = await receiver();
    target.script(500);
    await setUrl(service, developer, target.url);
    const eventId = await sendTest(developer);
    await target.waitForCount(2);
    assert.deepEqual(
      target.received.map((r) => r.headers['webhook-id']),
      [eventId, eventId],
    );
    assert.equal(target.received[0]?.body, target.received[1]?.body);
    const delivery = await waitForDelivery(
      service,
      developer,
      eventId,
      (d) => d.status === 'delivered',
      'delivered',
    );
    assert.deepEqual(
      delivery.attempts.map((a) => [a.attempt, a.status_code, a.outcome]),
      [
        [1, 500, 'retry'],
        [2, 200, 'delivered'],
      ],
    );
    assert.ok(delivery.attempts[0]?.next_attempt_at, 'a retried attempt says when the next one is due');
    assert.equal(delivery.attempts[0]?.error, 'HTTP 500');
  });

  test('410 is rejected and not retried', async () => {
    const developer = await createDeveloper(service.ctx);
    const target = await receiver();
    target.setDefault(410);
    await setUrl(service, developer, target.url);
    const eventId = await sendTest(developer);
    const delivery = await waitForDelivery(
      service,
      developer,
      eventId,
      (d) => d.status !== 'pending',
      'settled',
    );
    assert.equal(delivery.status, 'rejected');
    assert.equal(delivery.next_attempt_at, null);
    assert.deepEqual(
      delivery.attempts.map((a) => [a.status_code, a.outcome]),
      [[410, 'rejected']],
    );
    // A retry would be a delivery job deferred by the scaled schedule: once both lanes are empty
    // (the probe below delivered too), nothing is left that could still retry the 410.
    target.setDefault(200);
    const probe = await sendTest(developer);
    await waitForDelivery(service, developer, probe, (d) => d.status === 'delivered', 'delivered');
    await waitForEmptyDeliveryQueues(service);
    assert.equal(target.byId(eventId).length, 1, 'a 410 must not be retried');
    const state = await call(service, developer, 'GET', '/v2/webhook');
    assert.equal(state.body.recent_failures, 1);
  });

  test('429 with Retry-After: 2 waits at least 2 s before the next attempt', async () => {
    const developer = await createDeveloper(service.ctx);
    const target = await receiver();
    target.script({ status: 429, headers: { 'retry-after': '2' } });
    await setUrl(service, developer, target.url);
    const eventId = await sendTest(developer);
    await target.waitForCount(2);
    const [first, second] = target.received;
    assert.ok(first?.answeredAt && second);
    assert.ok(
      second.receivedAt - first.answeredAt >= 2000,
      `retried after ${second.receivedAt - first.answeredAt} ms`,
    );
    const delivery = await waitForDelivery(
      service,
      developer,
      eventId,
      (d) => d.status === 'delivered',
      'delivered',
    );
    const [attempt] = delivery.attempts;
    assert.ok(attempt?.next_attempt_at);
    assert.ok(Date.parse(attempt.next_attempt_at) - Date.parse(attempt.attempted_at) >= 2000);
  });

  test('refused connections are retried until the destination is disabled, which holds the event', async () => {
    const developer = await createDeveloper(service.ctx);
    const target = await receiver();
    await setUrl(service, developer, target.url);
    await target.close();
    const eventId = await sendTest(developer);
    const delivery = await waitForDelivery(
      service,
      developer,
      eventId,
      (d) => d.status !== 'pending',
      'settled',
      60_000,
    );
    // Here 2 s of failure disables a destination, while the (scaled) schedule runs for 85 s: the
    // destination is always disabled first. Using up the schedule is the next describe's test.
    assert.equal(delivery.status, 'held');
    assert.equal(delivery.last_error, 'webhook destination disabled');
    assert.ok(delivery.attempts.every((a) => a.status_code === null && /ECONNREFUSED/.test(String(a.error))));
    assert.ok(delivery.attempts.length >= 2);
    assert.ok(delivery.attempts.length < 10, 'the schedule was not used up');
  });

  test('a destination failing continuously is disabled, holds events, and re-enabling replays them', async () => {
    const developer = await createDeveloper(service.ctx);
    const target = await receiver();
    target.setDefault(503);
    await setUrl(service, developer, target.url);
    const eventId = await sendTest(developer);
    await until(
      'the destination to be disabled',
      async () => (await call(service, developer, 'GET', '/v2/webhook')).body.status === 'disabled',
    );
    const held = await waitForDelivery(
      service,
      developer,
      eventId,
      (d) => d.status === 'held',
      'held',
      30_000,
    );
    assert.equal(held.last_error, 'webhook destination disabled');
    const state = await call(service, developer, 'GET', '/v2/webhook');
    assert.equal(state.body.enabled, false);
    assert.equal(typeof state.body.disabled_at, 'string');
    assert.ok(Number(state.body.consecutive_failures) >= 2);
    assert.equal(state.body.held_events, 1);
    assert.equal((await call(service, developer, 'POST', '/v2/webhook/test')).status, 409);

    // Emitted while disabled: held too, not lost.
    const later = await service.ctx.db
      .transaction()
      .execute((trx) =>
        service.ctx.webhooks.emit(
          trx,
          developer.devId,
          healthcheckEnvelope(
            buildHealthcheckEvent({ createdAt: new Date(), trendPercentage: 0, sentWebhooksLastHour: 0 }),
          ),
        ),
      );
    await waitForDelivery(service, developer, later, (d) => d.status === 'held', 'held');

    target.setDefault(200);
    const enabled = await call(service, developer, 'PUT', '/v2/webhook', { enabled: true });
    assert.equal(enabled.status, 200);
    assert.equal(enabled.body.status, 'active');
    assert.equal(enabled.body.replayed, 2);
    for (const id of [eventId, later]) {
      await waitForDelivery(
        service,
        developer,
        id,
        (d) => d.status === 'delivered',
        'delivered after re-enabling',
      );
    }
    const answered = target.received
      .filter((r) => r.answeredWith === 200)
      .map((r) => r.headers['webhook-id']);
    assert.deepEqual(new Set(answered), new Set([eventId, later]));
  });
});

/**
 * Timing-free versions of the two slow paths: a receiver that sits on requests until the test
 * releases it (no sleeps, and a receiver timeout longer than any wait here), and a schedule scaled
 * down so far (and a disable threshold so long) that running out of attempts is the only outcome.
 */
describe('webhook retries: schedule exhaustion and slow receivers', () => {
  let service: TestService;
  const receivers = webhookReceivers();
  const receiver = receivers.start;

  before(async () => {
    service = await startTestService({
      env: {
        WEBHOOK_RETRY_SCALE: '0.00001',
        WEBHOOK_FAILING_AFTER: '1d',
        WEBHOOK_DISABLE_AFTER: '2d',
        WEBHOOK_TIMEOUT: '120s',
      },
    });
  });
  after(async () => {
    await service?.close();
    await receivers.closeAll();
  });

  test('refused connections on an enabled destination: every scheduled attempt, then failed', async () => {
    const developer = await createDeveloper(service.ctx);
    const target = await receiver();
    await setUrl(service, developer, target.url);
    await target.close();
    const eventId = String((await call(service, developer, 'POST', '/v2/webhook/test')).body.event_id);
    const delivery = await waitForDelivery(
      service,
      developer,
      eventId,
      (d) => d.status !== 'pending',
      'settled',
      60_000,
    );
    assert.equal(delivery.status, 'failed');
    assert.equal(delivery.next_attempt_at, null);
    assert.equal(delivery.attempts.length, 10, 'the first attempt and nine scheduled retries');
    assert.ok(delivery.attempts.every((a) => a.status_code === null && /ECONNREFUSED/.test(String(a.error))));
  });

  test('a receiver sitting on a batch does not hold up another developer’s deliveries', async () => {
    const slowDeveloper = await createDeveloper(service.ctx);
    const fastDeveloper = await createDeveloper(service.ctx);
    const slow = await receiver();
    const fast = await receiver();
    slow.hold();
    await setUrl(service, slowDeveloper, slow.url);
    await setUrl(service, fastDeveloper, fast.url);
    const emitTests = async (developer: TestDeveloper, count: number) =>
      service.ctx.db.transaction().execute((trx) =>
        service.ctx.webhooks.emitMany(
          trx,
          developer.devId,
          Array.from({ length: count }, () =>
            healthcheckEnvelope(
              buildHealthcheckEvent({ createdAt: new Date(), trendPercentage: 0, sentWebhooksLastHour: 0 }),
            ),
          ),
        ),
      );
    // 25 events are one delivery job (a bulk emit puts up to 25 in a job): one batch, held open.
    await emitTests(slowDeveloper, 25);
    await slow.waitForCount(1);
    await emitTests(fastDeveloper, 30);
    await fast.waitForCount(30, 60_000);
    assert.equal(
      slow.received.filter((r) => r.answeredAt !== null).length,
      0,
      'every fast delivery arrived while the slow receiver was still sitting on its requests',
    );
    slow.release();
    await slow.waitFor(
      (list) =>
        new Set(list.filter((r) => r.answeredWith === 200).map((r) => r.headers['webhook-id'])).size === 25,
      'all 25 slow deliveries answered',
      60_000,
    );
  });
});

/** Waits until no delivery job is waiting (deferred retries included) or running, in either lane. */
async function waitForEmptyDeliveryQueues(service: TestService) {
  await until('both delivery lanes to be empty', async () => {
    for (const queue of [DELIVERY_QUEUE, SLOW_DELIVERY_QUEUE]) {
      if ((await unsettledJobs(service.ctx, queue)).length > 0) return false;
    }
    return true;
  });
}
