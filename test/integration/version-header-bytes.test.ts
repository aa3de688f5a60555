// A non-ASCII X-Terra-Version comes back readable in the 400's detail: Node reads header bytes as
// latin1, so a UTF-8 value was echoed as mojibake ("Ã©" for "é"). Sent as raw bytes over a real
// socket, since fetch refuses to send a header value that is not latin1.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';

describe('a non-ASCII X-Terra-Version in the problem detail', () => {
  let service: TestService;
  let developer: TestDeveloper;
  let port: number;

  before(async () => {
    service = await startTestService({ work: false });
    developer = await createDeveloper(service.ctx);
    await service.app.listen({ port: 0, host: '127.0.0.1' });
    port = (service.app.server.address() as AddressInfo).port;
  });
  after(async () => {
    await service?.close();
  });

  /** GET /v2/lab-reports with these bytes as the header's value; the answer's status and body. */
  const withVersionBytes = (value: Buffer) =>
    new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('error', reject);
      socket.on('end', () => {
        const answer = Buffer.concat(chunks);
        const split = answer.indexOf('\r\n\r\n');
        const head = answer.subarray(0, split).toString('latin1');
        resolve({
          status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]),
          body: JSON.parse(answer.subarray(split + 4).toString('utf8')) as Record<string, unknown>,
        });
      });
      const headers = Object.entries(developer.headers)
        .map(([name, text]) => `${name}: ${text}\r\n`)
        .join('');
      // Written, not ended: the server closes the connection once it has answered (Connection: close).
      socket.write(
        Buffer.concat([
          Buffer.from(`GET /v2/lab-reports HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}X-Terra-Version: `),
          value,
          Buffer.from('\r\nConnection: close\r\n\r\n'),
        ]),
      );
    });

  test('a UTF-8 value is shown as sent, a latin1 byte as its character, JSON-quoted', async () => {
    const utf8 = await withVersionBytes(Buffer.from('2026-11-19 ✓ naïve "x"', 'utf8'));
    assert.equal(utf8.status, 400);
    assert.match(String(utf8.body.detail), /^invalid X-Terra-Version: /);
    assert.ok(
      String(utf8.body.detail).endsWith('got "2026-11-19 ✓ naïve \\"x\\""'),
      String(utf8.body.detail),
    );

    // Not UTF-8 (a lone 0xE9): read as the latin1 the bytes are.
    const latin1 = await withVersionBytes(Buffer.from([0x32, 0x30, 0x32, 0x36, 0xe9]));
    assert.equal(latin1.status, 400);
    assert.ok(String(latin1.body.detail).endsWith('got "2026é"'), String(latin1.body.detail));
  });
});
