// HTTP_MAX_CONNECTIONS over real sockets: with the server holding as many connections as the
// setting allows, a new one is closed unanswered (and the server says it dropped it); the held
// connections are still served, and a new connection is accepted once one of them goes. Before,
// the server accepted connections without limit. States are awaited; nothing is timed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestService, type TestService } from '../helpers/app.ts';
import { rawConnection } from '../helpers/raw-connection.ts';
import { until } from '../helpers/until.ts';

const HEALTH = 'GET /health HTTP/1.1\r\nhost: x\r\n\r\n';

describe('the cap on concurrent connections', () => {
  let service: TestService;
  let port: number;

  before(async () => {
    service = await startTestService({ work: false, env: { HTTP_MAX_CONNECTIONS: '2' } });
    const address = await service.app.listen({ port: 0, host: '127.0.0.1' });
    port = Number(new URL(address).port);
  });
  after(async () => {
    await service?.close();
  });

  test('past the cap a new connection is closed unanswered; one is accepted once a held one goes', async () => {
    const server = service.app.server;
    const connectionCount = () =>
      new Promise<number>((resolve, reject) =>
        server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
      );
    const held = [rawConnection(port), rawConnection(port)];
    try {
      await until('the server holds two connections', async () => (await connectionCount()) === 2);

      let drops = 0;
      const onDrop = () => drops++;
      server.on('drop', onDrop);
      const refused = rawConnection(port);
      refused.socket.write(HEALTH);
      await until('the server drops the connection past the cap', () => drops === 1).finally(() =>
        server.off('drop', onDrop),
      );
      await until('the refused connection is closed', refused.closed);
      assert.equal(refused.answer(), '', 'closed without an answer');

      // The held connections are served as before.
      held[0]!.socket.write(HEALTH);
      await until('a held connection is answered', () => /\r\n\r\n/.test(held[0]!.answer()));
      assert.match(held[0]!.answer(), /^HTTP\/1\.1 200 /);

      held[1]!.socket.destroy();
      await until('the server holds one connection', async () => (await connectionCount()) === 1);
      const next = rawConnection(port);
      held.push(next);
      next.socket.write(HEALTH);
      await until('the new connection is answered', () => /\r\n\r\n/.test(next.answer()) || next.closed());
      assert.match(next.answer(), /^HTTP\/1\.1 200 /);
    } finally {
      for (const connection of held) connection.socket.destroy();
    }
  });
});
