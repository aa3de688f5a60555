import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { WebhookEnvelope } from '../../src/features/delivery/events.ts';
import { createSender } from '../../src/features/delivery/sender.ts';
import { createDeveloper, startTestService, type TestService } from '../helpers/app.ts';
import {
  serviceSignatureMatches,
  setUrl,
  standardSignatureMatches,
  waitForDelivery,
} from '../helpers/webhook-api.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

/** How the delivery engine keeps its requests going: a pipeline, not waves, over kept sockets. */
describe('webhook delivery pipeline', () => {
  let service: TestService;
  const receivers: WebhookReceiver[] = [];

  before(async () => {
    // Two requests in flight, one worker, and a receiver given all the time it wants: whatever
    // goes out while one request is unanswered went out because a slot came free, not because
    // that request gave up.
    service = await startTestService({
      env: { WEBHOOK_CONCURRENCY: '2', WEBHOOK_WORKERS: '1', WEBHOOK_TIMEOUT: '10m' },
    });
  });
  after(async () => {
    for (const receiver of receivers) receiver.release();
    await service?.close();
    for (const receiver of receivers) await receiver.close();
  });

  test('the next event goes out as soon as one is answered, while a slower one is still unanswered', async () => {
    const slow = await startWebhookReceiver();
    const fast = await startWebhookReceiver();
    receivers.push(slow, fast);
    const [a, b] = [await createDeveloper(service.ctx), await createDeveloper(service.ctx)];
    await setUrl(service, a, slow.url);
    await setUrl(service, b, fast.url);
    slow.hold();
    // Bytes that an array parameter must carry through unchanged: quotes, backslashes, braces,
    // commas, NULL as a word, and characters beyond ASCII.
    const envelope = (n: number): WebhookEnvelope => ({
      type: 'healthcheck',
      payload: { n, note: 'a "quote", a \\ backslash, {braces}, NULL, ü and 💧' },
    });
    // One transaction: the relay queues the three in one job, the slow receiver's first.
    const ids = await service.ctx.db
      .transaction()
      .execute(async (trx) => [
        await service.ctx.webhooks.emit(trx, a.devId, envelope(1)),
        ...(await service.ctx.webhooks.emitMany(trx, b.devId, [envelope(2), envelope(3)])),
      ]);

    // Sent in waves of two, the third waited for the slow receiver's answer.
    // (The slow receiver's request, sent first, may still be on its way when the fast ones are in.)
    await fast.waitForCount(2);
    await slow.waitForCount(1);
    assert.equal(slow.received.length, 1);
    assert.equal(slow.received[0]!.answeredAt, null, 'the slow receiver has not answered yet');
    assert.deepEqual(
      fast.received.map((entry) => entry.headers['webhook-id']),
      [ids[1], ids[2]],
    );

    slow.release();
    for (const [id, developer] of [
      [ids[0]!, a],
      [ids[1]!, b],
      [ids[2]!, b],
    ] as const) {
      const delivery = await waitForDelivery(
        service,
        developer,
        id,
        (view) => view.status === 'delivered',
        'delivered',
      );
      assert.equal(delivery.attempt_count, 1);
    }
    for (const [received, developer] of [
      [slow.received[0]!, a],
      [fast.received[0]!, b],
    ] as const) {
      const { n } = JSON.parse(received.body) as { n: number };
      assert.equal(received.body, JSON.stringify(envelope(n).payload));
      assert.ok(standardSignatureMatches(received.headers, received.body, developer.webhookSecret));
      assert.ok(serviceSignatureMatches(received.headers, received.body, developer.webhookSecret));
    }
  });

  test('a destination keeps every socket its busiest moment opened', async () => {
    let connections = 0;
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () => response.writeHead(204).end());
    });
    server.on('connection', () => connections++);
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    const sender = createSender({ timeoutMs: 30_000, maxSockets: 100 });
    try {
      // More at once than the 64 free sockets the agent used to keep: the second round found
      // only 64 of the first round's 100 sockets and opened the rest again.
      for (let round = 0; round < 2; round++) {
        const results = await Promise.all(
          Array.from({ length: 100 }, () => sender.send(url, 'sandbox', {}, '{}')),
        );
        assert.ok(results.every((result) => result.statusCode === 204));
      }
      assert.equal(connections, 100);
    } finally {
      sender.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
