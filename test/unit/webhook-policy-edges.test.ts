// Edges of the webhook delivery policy that webhook-policy.test.ts leaves open: every class of
// answer at its boundaries, Retry-After in each HTTP-date form, failure kinds deep in a cause
// chain, and the destination checks' exact refusals, families and host normalisation.
import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { describe, test } from 'node:test';
import {
  checkedLookup,
  DestinationBlockedError,
  type ResolveHost,
  systemResolver,
  validateDestinationUrl,
} from '../../src/features/delivery/destination-policy.ts';
import {
  classifyResponse,
  deliveryFailureKind,
  parseRetryAfter,
  scheduledDelayMs,
} from '../../src/features/delivery/retry-policy.ts';

describe('delivery outcomes', () => {
  test('each status class at its boundaries', () => {
    const expected: [number, string][] = [
      [100, 'retry'],
      [199, 'retry'],
      [200, 'delivered'],
      [299, 'delivered'],
      [300, 'rejected'],
      [301, 'rejected'],
      [400, 'rejected'],
      [408, 'retry'],
      [410, 'rejected'],
      [429, 'retry'],
      [499, 'rejected'],
      [500, 'retry'],
      [599, 'retry'],
      [600, 'retry'],
    ];
    for (const [status, outcome] of expected) assert.equal(classifyResponse(status), outcome, String(status));
    assert.equal(classifyResponse('network_error'), 'retry');
    assert.equal(classifyResponse('timeout'), 'retry');
    assert.equal(classifyResponse('destination_blocked'), 'rejected');
  });

  test('failure kinds, found through a bounded chain of causes', () => {
    assert.equal(deliveryFailureKind(Object.assign(new Error('x'), { code: 'ETIMEDOUT' })), 'timeout');
    assert.equal(deliveryFailureKind(Object.assign(new Error('x'), { code: 'ESOCKETTIMEDOUT' })), 'timeout');
    assert.equal(deliveryFailureKind({ name: 'TimeoutError' }), 'timeout');
    assert.equal(deliveryFailureKind({ cause: null }), 'network_error', 'a null cause ends the walk');
    const nested = (depth: number): unknown => {
      let error: unknown = { name: 'TimeoutError' };
      for (let level = 0; level < depth; level++) error = { name: 'AbortError', cause: error };
      return error;
    };
    assert.equal(deliveryFailureKind(nested(4)), 'timeout', 'five levels are walked');
    assert.equal(deliveryFailureKind(nested(5)), 'network_error', 'not a sixth');
    assert.equal(deliveryFailureKind('plain string'), 'network_error');
  });

  test('a failed attempt number starts at 1', () => {
    assert.throws(() => scheduledDelayMs(0), { name: 'RangeError', message: 'failedAttempt counts from 1' });
  });
});

describe('Retry-After', () => {
  const now = new Date('1994-11-06T08:49:00Z');

  test('seconds and each HTTP-date form, clamped to [1 s, 1 h]', () => {
    assert.equal(parseRetryAfter('30', now), 30_000);
    assert.equal(parseRetryAfter(' 30 ', now), 30_000);
    assert.equal(parseRetryAfter('0', now), 1_000);
    assert.equal(parseRetryAfter('7200', now), 3_600_000);
    assert.equal(parseRetryAfter('Sun, 06 Nov 1994 08:49:37 GMT', now), 37_000, 'IMF-fixdate');
    assert.equal(parseRetryAfter('Sunday, 06-Nov-94 08:49:37 GMT', now), 37_000, 'RFC 850');
    assert.equal(parseRetryAfter('Sun Nov  6 08:49:37 1994', now), 37_000, 'asctime, no comma');
  });

  test('anything else is no Retry-After', () => {
    for (const value of [undefined, null, '', '   ', '1.5', 'soon', '5 Sun, 06 Nov 1994 08:49:37 GMT']) {
      assert.equal(parseRetryAfter(value, now), null, String(value));
    }
  });
});

describe('destinations', () => {
  const resolver =
    (addresses: LookupAddress[], asked: string[] = []): ResolveHost =>
    async (hostname) => {
      asked.push(hostname);
      return addresses;
    };

  test('the system resolver answers every address of a name', async () => {
    const addresses = await systemResolver('localhost');
    assert.ok(Array.isArray(addresses) && addresses.length > 0);
    assert.ok(addresses.every((entry) => typeof entry.address === 'string' && [4, 6].includes(entry.family)));
  });

  test('refusals say why, exactly', async () => {
    assert.deepEqual(await validateDestinationUrl('ftp://files.example.com/x', 'production'), {
      allowed: false,
      reason: 'unsupported scheme ftp: use https',
    });
    assert.deepEqual(await validateDestinationUrl('https://[::1]/hook', 'production'), {
      allowed: false,
      reason: '::1 is a loopback address',
    });
    const failing: ResolveHost = async () => {
      throw new Error('no such host');
    };
    assert.deepEqual(await validateDestinationUrl('https://gone.example.com/', 'production', failing), {
      allowed: false,
      reason: 'gone.example.com could not be resolved',
    });
    const coded: ResolveHost = async () => {
      throw Object.assign(new Error('x'), { code: 'ENOTFOUND' });
    };
    assert.deepEqual(await validateDestinationUrl('https://gone.example.com/', 'production', coded), {
      allowed: false,
      reason: 'gone.example.com could not be resolved (ENOTFOUND)',
    });
    assert.equal(new DestinationBlockedError('r').name, 'DestinationBlockedError');
  });

  test('what an allowed destination resolves to', async () => {
    const literal = await validateDestinationUrl('https://93.184.216.34/hook', 'production');
    assert.ok(literal.allowed);
    assert.deepEqual(literal.addresses, [{ address: '93.184.216.34', family: 4 }]);
    const sandbox = await validateDestinationUrl('http://127.0.0.1:9/hook', 'sandbox');
    assert.ok(sandbox.allowed);
    assert.deepEqual(sandbox.addresses, [], 'sandbox destinations are not resolved');
  });

  test('checkedLookup: names are normalised, families may be named, failures answer the callback shape', async () => {
    const asked: string[] = [];
    const lookup = checkedLookup(
      'production',
      resolver(
        [
          { address: '93.184.216.34', family: 4 },
          { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
        ],
        asked,
      ),
    );
    const call = (hostname: string, options: { family?: number | 'IPv4' | 'IPv6'; all?: boolean }) =>
      new Promise<{ error: NodeJS.ErrnoException | null; address: unknown; family: unknown }>((done) =>
        lookup(hostname, options as never, (error, address, family) => done({ error, address, family })),
      );
    const v6 = await call('EXAMPLE.com.', { family: 'IPv6', all: true });
    assert.deepEqual(asked, ['example.com']);
    assert.deepEqual(v6.address, [{ address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 }]);
    const v4 = await call('example.com', { family: 'IPv4' });
    assert.deepEqual([v4.address, v4.family], ['93.184.216.34', 4]);

    const v4Only = checkedLookup('sandbox', resolver([{ address: '127.0.0.1', family: 4 }]));
    const missing = (all: boolean) =>
      new Promise<{ error: NodeJS.ErrnoException | null; address: unknown }>((done) =>
        v4Only('host.test', { family: 6, all } as never, (error, address) => done({ error, address })),
      );
    const one = await missing(false);
    assert.equal(one.error?.message, 'no IPv6 address for host.test');
    assert.equal(one.error?.code, 'ENOTFOUND');
    assert.equal(one.address, '');
    assert.deepEqual((await missing(true)).address, []);
  });
});
