// A client that sends a request's headers and then stalls (or trickles) its body, over a real
// socket: past REQUEST_BODY_TIMEOUT_SECONDS it gets a 408 problem+json and the connection is
// closed. Before, Fastify set no request timeout and such a connection, with the body bytes it
// had sent, was held for as long as the client liked. The deadline is set to 1 s here (a
// setting, not a measured duration); nothing asserts how long anything took.
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setTimeout } from 'node:timers/promises';
import { startTestService, type TestService } from '../helpers/app.ts';
import { rawConnection } from '../helpers/raw-connection.ts';
import { until } from '../helpers/until.ts';

describe('a request body that does not arrive', () => {
  let service: TestService;
  let port: number;

  before(async () => {
    service = await startTestService({ work: false, env: { REQUEST_BODY_TIMEOUT_SECONDS: '1' } });
    const address = await service.app.listen({ port: 0, host: '127.0.0.1' });
    port = Number(new URL(address).port);
  });
  after(async () => {
    await service?.close();
  });

  test('a stalled JSON body to a public route: 408 problem+json, connection closed', async () => {
    const request = rawConnection(
      port,
      'POST /api/v1/orders/activate HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n' +
        'content-length: 100000\r\n\r\n{"supplier_kit_id":"abc',
    );
    try {
      await until('the server closes the stalled connection', request.closed, { timeoutMs: 30_000 });
      const answer = request.answer();
      assert.match(answer, /^HTTP\/1\.1 408 /);
      assert.match(answer, /content-type: application\/problem\+json/i);
      assert.match(answer, /"status":408/);
    } finally {
      request.destroy();
    }
  });

  test('answered before its body arrived (401): the stalled connection is closed too', async () => {
    const request = rawConnection(
      port,
      'POST /v2/auth/generateWidgetSession HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n' +
        'content-length: 100000\r\n\r\n{"reference_id":"abc',
    );
    try {
      await until('the server closes the stalled connection', request.closed, { timeoutMs: 30_000 });
      assert.match(request.answer(), /^HTTP\/1\.1 401 /);
    } finally {
      request.destroy();
    }
  });

  test('a body that arrives whole is answered as before, many on one keep-alive socket', async () => {
    const sockets: Socket[] = [];
    const onConnection = (socket: Socket) => sockets.push(socket);
    service.app.server.on('connection', onConnection);
    try {
      for (let i = 0; i < 15; i++) {
        const answer = await fetch(`http://127.0.0.1:${port}/api/v1/orders/activate`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        });
        assert.equal(answer.status, 400);
        await answer.arrayBuffer();
      }
    } finally {
      service.app.server.off('connection', onConnection);
    }
    // Fewer sockets than requests: they were reused; none gathered a listener per request.
    assert.ok(sockets.length < 15, `${sockets.length} sockets for 15 requests`);
    for (const socket of sockets) assert.ok(socket.listenerCount('close') < 5, 'no listener piles up');
    const response = await fetch(`http://127.0.0.1:${port}/api/v1/orders/activate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(response.status, 400);
    assert.match(((await response.json()) as { detail: string }).detail, /supplier_kit_id/);
  });

  test('an in-process injected request answered before its body was read sets no deadline that throws later', async () => {
    // light-my-request's stand-in socket has no destroy(): a deadline armed for an injected 401
    // threw "socket.destroy is not a function" from its timer once the deadline passed (seen in a
    // loaded suite run, openapi-fuzz). Listens for that throw across more than the 1 s deadline;
    // a slow machine can only make this pass without proving anything, never fail wrongly.
    const thrown: unknown[] = [];
    const onUncaught = (error: unknown) => thrown.push(error);
    process.on('uncaughtException', onUncaught);
    try {
      const response = await service.app.inject({
        method: 'POST',
        url: '/v2/auth/generateWidgetSession',
        headers: { 'content-type': 'application/json' },
        payload: '{"reference_id":"abc"}',
      });
      assert.equal(response.statusCode, 401);
      await setTimeout(2_500);
      assert.deepEqual(thrown, []);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
  });
});
