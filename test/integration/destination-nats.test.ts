import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import {
  api,
  createDestination,
  destinationDeliveries,
  emit,
  replayDelivered,
  sleepEvent,
  waitForStatus,
} from '../helpers/destinations.ts';
import { natsSkipReason, type NatsServer, startNatsServer } from '../helpers/nats-server.ts';
import { insertUser } from '../helpers/users.ts';
import { until } from '../helpers/until.ts';

/**
 * The NATS JetStream destination against a nats-server of the test's own: one message per event
 * with the event id as Nats-Msg-Id, so replays are dropped by the stream's duplicate window; the
 * server killed and started again: events held, then released.
 */
const skip = natsSkipReason();
const STREAM = 'TRIBUTARY_TEST';

describe('NATS JetStream destination', { ...(skip ? { skip } : {}) }, () => {
  let service: TestService;
  let developer: TestDeveloper;
  let nats: NatsServer;
  let destinationId = '';

  const withNats = async <T>(work: (nc: NatsConnection) => Promise<T>): Promise<T> => {
    const nc = await connect({ servers: nats.url });
    try {
      return await work(nc);
    } finally {
      await nc.close();
    }
  };
  const messages = () =>
    withNats(async (nc) => {
      const manager = await jetstreamManager(nc);
      return (await manager.streams.info(STREAM)).state.messages;
    });

  before(async () => {
    nats = await startNatsServer();
    service = await startTestService({
      env: { WEBHOOK_RETRY_SCALE: '0.001', WEBHOOK_FAILING_AFTER: '1s', WEBHOOK_DISABLE_AFTER: '2s' },
    });
    developer = await createDeveloper(service.ctx);
  });
  after(async () => {
    await service?.close();
    await nats?.close();
  });

  test('created with its settings; a bad subject is a 400 naming it', async () => {
    const created = await createDestination(service, developer, {
      kind: 'nats',
      settings: { url: nats.url, subject: 'health.events', stream: STREAM },
    });
    destinationId = created.id;
    assert.deepEqual(created.settings, { url: `${nats.url}`, subject: 'health.events', stream: STREAM });
    const bad = await api(service, developer, 'POST', '/v2/destinations', {
      kind: 'nats',
      settings: { url: nats.url, subject: 'health.>' },
    });
    assert.equal(bad.status, 400);
    assert.match(String(bad.body.detail), /^invalid settings\.subject/);
  });

  test('N events are N messages with Nats-Msg-Id; a replay is deduplicated by the stream', async () => {
    const userId = await insertUser(service.ctx, { developerId: developer.devId, provider: 'OURA' });
    await emit(
      service,
      developer,
      Array.from({ length: 10 }, (_, i) => sleepEvent(userId, [`2026-07-${String(i + 1).padStart(2, '0')}`])),
    );
    const delivered = await waitForStatus(service, developer, destinationId, 10, 'delivered');
    assert.equal(await messages(), 10);
    const ids = await withNats(async (nc) => {
      const manager = await jetstreamManager(nc);
      const found: string[] = [];
      for (let seq = 1; seq <= 10; seq++) {
        const message = await manager.streams.getMessage(STREAM, { seq });
        assert.ok(message, `message ${seq} is stored`);
        assert.equal(message.subject, 'health.events.sleep');
        assert.equal(message.header.get('Tributary-User'), userId);
        found.push(message.header.get('Nats-Msg-Id'));
      }
      return found.sort();
    });
    assert.deepEqual(ids, delivered.map((d) => d.event_id).sort());

    const first = delivered[0]!;
    await replayDelivered(service, developer, destinationId, first.event_id);
    assert.equal(await messages(), 10, 'the stream dropped the second copy');
  });

  test('the server killed: events held, then released when it is back', async () => {
    const userId = await insertUser(service.ctx, { developerId: developer.devId, provider: 'OURA' });
    const known = (await destinationDeliveries(service, developer, destinationId)).length;
    const before = await messages();
    await nats.stop();
    await emit(service, developer, [sleepEvent(userId, ['2026-08-01']), sleepEvent(userId, ['2026-08-02'])]);
    await until(
      'held after the destination was disabled',
      async () => (await api(service, developer, 'GET', `/v2/destinations/${destinationId}`)).body,
      { done: (body) => body.status === 'disabled' && body.held_events === 2 },
    );
    await nats.start();
    const enabled = await api(service, developer, 'PATCH', `/v2/destinations/${destinationId}`, {
      enabled: true,
    });
    assert.equal(enabled.body.replayed, 2);
    await waitForStatus(service, developer, destinationId, known + 2, 'delivered');
    assert.equal(await messages(), before + 2);
  });
});
