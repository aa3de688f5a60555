// checkedLookup inside a real http.request (the way the delivery engine uses it), against a loopback
// server: a name that resolved to a public address when saved and to loopback at send time is
// refused at connect time in production. Kept out of test/unit because it listens on a socket.
import assert from 'node:assert/strict';
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import type { ResolveHost } from '../../src/features/delivery/destination-policy.ts';
import { checkedLookup, validateDestinationUrl } from '../../src/features/delivery/destination-policy.ts';
import { deliveryFailureKind } from '../../src/features/delivery/retry-policy.ts';

function listen(): Promise<{ port: number; close: () => void }> {
  const server = createServer((_req, res) => res.end('ok'));
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve({ port: (server.address() as AddressInfo).port, close: () => server.close() });
    });
  });
}

/** GET through an Agent carrying the lookup, as the delivery engine will use it. */
function get(
  url: string,
  lookup: ReturnType<typeof checkedLookup>,
  autoSelectFamily: boolean,
): Promise<{ status: number } | { error: NodeJS.ErrnoException }> {
  const agent = new Agent({ lookup, autoSelectFamily });
  return new Promise<{ status: number } | { error: NodeJS.ErrnoException }>((resolve) => {
    const req = request(url, { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ error }));
    req.end();
  }).finally(() => agent.destroy());
}

test('checkedLookup plugs into http.request and blocks a rebinding at connect time', async () => {
  const server = await listen();
  try {
    // The name was public when the URL was saved; by send time it points at loopback.
    let answer = '93.184.216.34';
    const resolve: ResolveHost = async () => [{ address: answer, family: 4 }];
    assert.equal(
      (await validateDestinationUrl('https://rebind.example.com/', 'production', resolve)).allowed,
      true,
    );
    answer = '127.0.0.1';
    const url = `http://rebind.example.com:${server.port}/hook`;
    for (const autoSelectFamily of [true, false]) {
      const blocked = await get(url, checkedLookup('production', resolve), autoSelectFamily);
      assert.ok('error' in blocked, 'production request must fail');
      assert.equal(blocked.error.code, 'ERR_WEBHOOK_DESTINATION_BLOCKED');
      assert.equal(deliveryFailureKind(blocked.error), 'destination_blocked');
      const sandbox = await get(url, checkedLookup('sandbox', resolve), autoSelectFamily);
      assert.deepEqual(sandbox, { status: 200 });
    }
  } finally {
    server.close();
  }
});
