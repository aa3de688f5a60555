import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { buildUserNoticeEvent, connectionEnvelope } from '../../src/features/connecting/events.ts';
import { buildDataEvent } from '../../src/features/data/events.ts';
import { emitDataEvent } from '../../src/features/data/webhook-emit.ts';
import {
  buildHealthcheckEvent,
  healthcheckEnvelope,
  type WebhookEnvelope,
} from '../../src/features/delivery/events.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { call, deliveries, setUrl, waitForDelivery } from '../helpers/webhook-api.ts';
import { webhookReceivers } from '../helpers/webhook-receiver.ts';

/** Contract semantics: outbox atomicity, held events, inactive and deleted users, chunking, timeouts. */
describe('webhook delivery semantics', () => {
  let service: TestService;
  const receivers = webhookReceivers();
  const receiver = receivers.start;

  before(async () => {
    service = await startTestService({
      env: { WEBHOOK_RETRY_SCALE: '0.001', WEBHOOK_MAX_PAYLOAD_BYTES: '4000', WEBHOOK_TIMEOUT: '1s' },
    });
  });
  after(async () => {
    await service?.close();
    await receivers.closeAll();
  });

  async function addUser(developer: TestDeveloper, active = true) {
    const id = randomUUID();
    await service.ctx.db
      .insertInto('connections')
      .values({
        id,
        developer_id: developer.devId,
        provider: 'SANDBOX',
        status: 'active',
        active,
        reference_id: 'ref-1',
      })
      .execute();
    return { user_id: id, provider: 'SANDBOX', reference_id: 'ref-1', active };
  }

  const emit = (developer: TestDeveloper, envelope: WebhookEnvelope) =>
    service.ctx.db.transaction().execute((trx) => service.ctx.webhooks.emit(trx, developer.devId, envelope));
  /** Data events go through the data feature, which splits what is too big. */
  const emitData = (developer: TestDeveloper, event: ReturnType<typeof sleepEvent>) =>
    service.ctx.db
      .transaction()
      .execute((trx) => emitDataEvent(service.ctx.webhooks, trx, developer.devId, event));
  const healthcheck = () =>
    healthcheckEnvelope(
      buildHealthcheckEvent({ createdAt: new Date(), trendPercentage: 0, sentWebhooksLastHour: 0 }),
    );
  const notice = (type: 'connection_error' | 'deauth', user: { user_id: string; provider: string }) =>
    connectionEnvelope(buildUserNoticeEvent(type, user));

  const sleepEvent = (user: { user_id: string; provider: string }, records = 1) =>
    buildDataEvent('sleep', {
      user,
      data: Array.from({ length: records }, (_, i) => ({
        metadata: { summary_id: `s-${i}`, note: 'x'.repeat(250) },
      })),
    });

  test('an event exists only if its transaction commits (outbox)', async () => {
    const developer = await createDeveloper(service.ctx);
    const target = await receiver();
    await setUrl(service, developer, target.url);
    let rolledBack = '';
    await assert.rejects(
      service.ctx.db.transaction().execute(async (trx) => {
        rolledBack = await service.ctx.webhooks.emit(trx, developer.devId, healthcheck());
        throw new Error('the change that caused the event failed');
      }),
      /caused the event failed/,
    );
    const committed = await emit(developer, healthcheck());
    await waitForDelivery(service, developer, committed, (d) => d.status === 'delivered', 'delivered');
    assert.equal(target.byId(rolledBack).length, 0);
    assert.deepEqual(
      (await deliveries(service, developer)).map((d) => d.event_id),
      [committed],
    );
  });

  test('with no destination events are held, then delivered once a URL is set', async () => {
    const developer = await createDeveloper(service.ctx);
    const user = await addUser(developer);
    const eventId = await emit(developer, notice('connection_error', user));
    const held = await waitForDelivery(service, developer, eventId, (d) => d.status === 'held', 'held');
    assert.equal(held.user_id, user.user_id);
    assert.equal((await call(service, developer, 'GET', '/v2/webhook')).body.held_events, 1);
    assert.equal((await call(service, developer, 'POST', '/v2/webhook/test')).status, 409);
    const target = await receiver();
    const updated = await setUrl(service, developer, target.url);
    assert.equal(updated.replayed, 1);
    await target.waitForCount(1);
    assert.equal(target.received[0]?.headers['webhook-id'], eventId);
  });

  test('inactive users get no data events (checked at emit and at send); others still go out', async () => {
    const developer = await createDeveloper(service.ctx);
    const inactive = await addUser(developer, false);
    const dropped = await emitData(developer, sleepEvent(inactive));
    const atEmit = await waitForDelivery(
      service,
      developer,
      dropped,
      (d) => d.status === 'dropped',
      'dropped',
    );
    assert.equal(atEmit.last_error, 'user inactive');

    // Held (no URL yet), then the user is deactivated before it can go out.
    const active = await addUser(developer);
    const data = await emitData(developer, sleepEvent(active));
    const noticeId = await emit(developer, notice('connection_error', active));
    await waitForDelivery(service, developer, data, (d) => d.status === 'held', 'held');
    await service.ctx.db
      .updateTable('connections')
      .set({ active: false })
      .where('id', '=', active.user_id)
      .execute();
    const target = await receiver();
    await setUrl(service, developer, target.url);
    const atSend = await waitForDelivery(
      service,
      developer,
      data,
      (d) => d.status === 'dropped',
      'dropped at send time',
    );
    assert.equal(atSend.last_error, 'user inactive');
    await waitForDelivery(
      service,
      developer,
      noticeId,
      (d) => d.status === 'delivered',
      'delivered (not a data event)',
    );
    assert.deepEqual([...target.distinctIds()], [noticeId]);
  });

  test('deauthentication drops pending data events; a deleted user’s data is dropped, its deauth still sent', async () => {
    const developer = await createDeveloper(service.ctx);
    const user = await addUser(developer);
    const other = await addUser(developer);
    const pendingData = await emitData(developer, sleepEvent(user));
    const otherData = await emitData(developer, sleepEvent(other));
    await waitForDelivery(service, developer, pendingData, (d) => d.status === 'held', 'held');

    const deauth = await service.ctx.db.transaction().execute(async (trx) => {
      assert.equal(await service.ctx.webhooks.dropPendingForUser(trx, user.user_id), 1);
      await trx.deleteFrom('connections').where('id', '=', user.user_id).execute();
      return service.ctx.webhooks.emit(trx, developer.devId, notice('deauth', user));
    });
    await service.ctx.db.deleteFrom('connections').where('id', '=', other.user_id).execute();

    const target = await receiver();
    await setUrl(service, developer, target.url);
    await waitForDelivery(service, developer, deauth, (d) => d.status === 'delivered', 'delivered');
    const [dropped] = (await deliveries(service, developer, `?user_id=${user.user_id}&type=sleep`)).filter(
      (d) => d.event_id === pendingData,
    );
    assert.equal(dropped?.status, 'dropped');
    assert.equal(dropped?.last_error, 'user deauthenticated');
    const deleted = await waitForDelivery(
      service,
      developer,
      otherData,
      (d) => d.status === 'dropped',
      'dropped',
    );
    assert.equal(deleted.last_error, 'user deleted');
    assert.deepEqual([...target.distinctIds()], [deauth]);
  });

  test('a delivery updates the user’s last_webhook_update', async () => {
    const developer = await createDeveloper(service.ctx);
    const target = await receiver();
    await setUrl(service, developer, target.url);
    const user = await addUser(developer);
    const before = new Date();
    const eventId = await emitData(developer, sleepEvent(user));
    await waitForDelivery(service, developer, eventId, (d) => d.status === 'delivered', 'delivered');
    const row = await service.ctx.db
      .selectFrom('connections')
      .select('last_webhook_update')
      .where('id', '=', user.user_id)
      .executeTakeFirstOrThrow();
    assert.ok(row.last_webhook_update && row.last_webhook_update >= new Date(before.getTime() - 1000));
  });

  test('a data payload over the size limit is split: processing, sending {expected_payloads}, chunks with one reference', async () => {
    const developer = await createDeveloper(service.ctx);
    const target = await receiver();
    await setUrl(service, developer, target.url);
    const user = await addUser(developer);
    await emitData(developer, sleepEvent(user, 25));
    await target.waitForCount(5);
    const bodies = target.received.map((r) => JSON.parse(r.body) as Record<string, unknown>);
    const byType = (type: string) => bodies.filter((body) => body.type === type);
    assert.equal(byType('large_request_processing').length, 1);
    const [sending] = byType('large_request_sending');
    assert.equal(sending?.expected_payloads, 3);
    const chunks = byType('sleep');
    assert.equal(chunks.length, 3);
    assert.deepEqual(chunks.map((c) => (c.data as unknown[]).length).sort(), [10, 10, 5]);
    const references = new Set(target.received.map((r) => r.headers['service-reference']));
    assert.equal(references.size, 1);
    assert.ok(target.received.every((r) => Buffer.byteLength(r.body) <= 4000));
    assert.equal(new Set(bodies.map((body) => body.reference)).size, 1);
  });

  test('a receiver that does not answer in time is retried', async () => {
    const developer = await createDeveloper(service.ctx);
    const target = await receiver();
    target.script({ status: 200, delayMs: 1500 });
    await setUrl(service, developer, target.url);
    const eventId = String((await call(service, developer, 'POST', '/v2/webhook/test')).body.event_id);
    const delivery = await waitForDelivery(
      service,
      developer,
      eventId,
      (d) => d.status === 'delivered',
      'delivered',
    );
    assert.equal(delivery.attempts[0]?.status_code, null);
    assert.match(String(delivery.attempts[0]?.error), /ETIMEDOUT/);
    assert.equal(delivery.attempts[1]?.outcome, 'delivered');
  });
});
