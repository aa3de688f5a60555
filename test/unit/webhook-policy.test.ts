import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { test } from 'node:test';
import { blockedAddressReason, embeddedIpv4 } from '../../src/features/delivery/address-ranges.ts';
import {
  chunkRecords,
  isLargeRequestRange,
  planDataDelivery,
  serializedSize,
} from '../../src/features/data/chunking.ts';
import type { ResolveHost, WebhookEnvironment } from '../../src/features/delivery/destination-policy.ts';
import { checkedLookup, validateDestinationUrl } from '../../src/features/delivery/destination-policy.ts';
import {
  classifyResponse,
  DELIVERY_TIMEOUT_MS,
  deliveryFailureKind,
  jitteredDelayMs,
  MAX_DELIVERY_ATTEMPTS,
  nextAttemptAt,
  parseRetryAfter,
  RETRY_DELAYS_MS,
  retryScheduleOffsetsMs,
} from '../../src/features/delivery/retry-policy.ts';

const SECOND = 1000;
const HOUR = 3600 * SECOND;

// --- Response classification -------------------------------------------------------------------

test('responses classify as delivered, retry or rejected', () => {
  const expected: [number | 'network_error' | 'timeout' | 'destination_blocked', string][] = [
    [200, 'delivered'],
    [204, 'delivered'],
    [299, 'delivered'],
    [301, 'rejected'],
    [302, 'rejected'],
    [400, 'rejected'],
    [401, 'rejected'],
    [404, 'rejected'],
    [408, 'retry'],
    [410, 'rejected'],
    [413, 'rejected'],
    [429, 'retry'],
    [500, 'retry'],
    [502, 'retry'],
    [503, 'retry'],
    [599, 'retry'],
    ['network_error', 'retry'],
    ['timeout', 'retry'],
    ['destination_blocked', 'rejected'],
  ];
  for (const [input, outcome] of expected) {
    assert.equal(classifyResponse(input), outcome, `status ${input}`);
  }
  assert.equal(DELIVERY_TIMEOUT_MS, 10_000);
});

test('client errors map to failure kinds', () => {
  const timeout = new DOMException('The operation was aborted due to timeout', 'TimeoutError');
  const aborted = Object.assign(new Error('The operation was aborted'), {
    name: 'AbortError',
    cause: timeout,
  });
  assert.equal(deliveryFailureKind(timeout), 'timeout');
  assert.equal(deliveryFailureKind(aborted), 'timeout');
  assert.equal(deliveryFailureKind(Object.assign(new Error('x'), { code: 'ECONNREFUSED' })), 'network_error');
  assert.equal(deliveryFailureKind(Object.assign(new Error('x'), { code: 'ETIMEDOUT' })), 'timeout');
  assert.equal(
    deliveryFailureKind(Object.assign(new Error('x'), { code: 'ERR_WEBHOOK_DESTINATION_BLOCKED' })),
    'destination_blocked',
  );
  const cyclic: { cause?: unknown } = {};
  cyclic.cause = cyclic;
  assert.equal(deliveryFailureKind(cyclic), 'network_error');
});

// --- Schedule -------------------------------------------------------------------------------------

test('the published schedule starts at once, grows monotonically and spans about a day', () => {
  const offsets = retryScheduleOffsetsMs();
  assert.equal(offsets.length, MAX_DELIVERY_ATTEMPTS);
  assert.equal(offsets[0], 0);
  assert.equal(RETRY_DELAYS_MS[0], 5 * SECOND);
  for (let i = 1; i < RETRY_DELAYS_MS.length; i++) {
    assert.ok((RETRY_DELAYS_MS[i] ?? 0) >= (RETRY_DELAYS_MS[i - 1] ?? 0), `delay ${i} is not smaller`);
  }
  const span = offsets.at(-1) ?? 0;
  assert.ok(span >= 22 * HOUR && span <= 26 * HOUR, `span ${span / HOUR} h`);
});

test('jitter stays within ±20 % and attempt times keep increasing', () => {
  assert.equal(
    jitteredDelayMs(10_000, () => 0),
    8_000,
  );
  assert.equal(
    jitteredDelayMs(10_000, () => 0.5),
    10_000,
  );
  assert.equal(
    jitteredDelayMs(10_000, () => 0.999999),
    12_000,
  );
  for (const random of [() => 0, () => 0.999999, Math.random]) {
    let now = new Date('2025-01-01T00:00:00Z');
    const start = now.getTime();
    for (let attempt = 1; attempt < MAX_DELIVERY_ATTEMPTS; attempt++) {
      const next = nextAttemptAt(attempt, now, null, random);
      assert.ok(next, `attempt ${attempt} gets a retry`);
      const delay = next.getTime() - now.getTime();
      const base = RETRY_DELAYS_MS[attempt - 1] ?? 0;
      assert.ok(delay >= base * 0.8 - 1 && delay <= base * 1.2 + 1, `delay ${delay} around ${base}`);
      now = next;
    }
    const total = now.getTime() - start;
    assert.ok(total >= 18 * HOUR && total <= 30 * HOUR, `total ${total / HOUR} h`);
    assert.equal(
      nextAttemptAt(MAX_DELIVERY_ATTEMPTS, now, null, random),
      null,
      'gives up after the last attempt',
    );
  }
  assert.throws(() => nextAttemptAt(0, new Date()), RangeError);
});

test('Retry-After is parsed as seconds or an HTTP date and clamped to [1 s, 1 h]', () => {
  const now = new Date('2025-01-01T00:00:00Z');
  assert.equal(parseRetryAfter('120', now), 120 * SECOND);
  assert.equal(parseRetryAfter(' 30 ', now), 30 * SECOND);
  assert.equal(parseRetryAfter('0', now), SECOND);
  assert.equal(parseRetryAfter('86400', now), HOUR);
  assert.equal(parseRetryAfter('Wed, 01 Jan 2025 00:02:00 GMT', now), 120 * SECOND);
  assert.equal(parseRetryAfter('Wednesday, 01-Jan-25 00:05:00 GMT', now), 300 * SECOND);
  assert.equal(
    parseRetryAfter('Tue, 31 Dec 2024 23:00:00 GMT', now),
    SECOND,
    'a past date clamps to the floor',
  );
  assert.equal(parseRetryAfter('Fri, 03 Jan 2025 00:00:00 GMT', now), HOUR);
  for (const junk of [undefined, null, '', '-5', '1.5', '1e3', 'soon', 'Wed, 99 Foo 2025']) {
    assert.equal(parseRetryAfter(junk, now), null, `"${junk}"`);
  }
});

test('Retry-After is a floor for the next attempt, never a way to skip the schedule', () => {
  const now = new Date('2025-01-01T00:00:00Z');
  const half = () => 0.5;
  // Schedule says 5 s after attempt 1; the receiver asks for 10 min.
  assert.equal(nextAttemptAt(1, now, 600 * SECOND, half)?.getTime(), now.getTime() + 600 * SECOND);
  // Schedule says 4 h after attempt 7; a 30 s Retry-After does not bring it forward.
  assert.equal(nextAttemptAt(7, now, 30 * SECOND, half)?.getTime(), now.getTime() + 4 * HOUR);
  // An unclamped caller value is still clamped.
  assert.equal(nextAttemptAt(1, now, 48 * HOUR, half)?.getTime(), now.getTime() + HOUR);
  assert.equal(nextAttemptAt(MAX_DELIVERY_ATTEMPTS, now, 30 * SECOND, half), null);
});

// --- Destination policy ----------------------------------------------------------------------------

test('forbidden addresses are recognised, including IPv6 and IPv4 embedded in IPv6', () => {
  const blocked = [
    '127.0.0.1',
    '127.255.255.254',
    '0.0.0.0',
    '0.1.2.3',
    '10.0.0.1',
    '10.255.255.255',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '100.64.0.1',
    '100.127.255.255',
    '169.254.0.1',
    '169.254.169.254',
    '168.63.129.16',
    '224.0.0.1',
    '239.255.255.250',
    '240.0.0.1',
    '255.255.255.255',
    '192.0.2.10',
    '198.18.0.1',
    '203.0.113.5',
    '::',
    '::1',
    '0:0:0:0:0:0:0:1',
    'fe80::1',
    'fe80::1%eth0',
    'febf::1',
    'fc00::1',
    'fd12:3456:789a::1',
    'fd00:ec2::254',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.1.2.3',
    '::ffff:169.254.169.254',
    '::ffff:0:192.168.0.1',
    '64:ff9b::10.0.0.1',
    '64:ff9b::7f00:1',
    '2002:7f00:1::1',
    '2002:a9fe:a9fe::',
    '::127.0.0.1',
    '2001:db8::1',
    '2001::1',
    'not-an-ip',
  ];
  for (const address of blocked) {
    assert.notEqual(blockedAddressReason(address), null, `${address} must be blocked`);
  }
  const allowed = [
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '172.15.255.255',
    '172.32.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '169.253.255.255',
    '192.169.0.1',
    '11.0.0.1',
    '223.255.255.255',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ];
  for (const address of allowed) {
    assert.equal(blockedAddressReason(address), null, `${address} must be allowed`);
  }
  assert.equal(blockedAddressReason('169.254.169.254'), 'cloud metadata address');
  assert.equal(blockedAddressReason('::1'), 'loopback address');
  assert.match(blockedAddressReason('::ffff:127.0.0.1') ?? '', /loopback.*embedded/);
  assert.equal(embeddedIpv4('::ffff:c0a8:101'), '192.168.1.1');
  assert.equal(embeddedIpv4('2606:4700::1'), null);
});

function fakeResolver(table: Record<string, readonly string[]>): ResolveHost & { calls: string[] } {
  const calls: string[] = [];
  const resolve = async (hostname: string): Promise<LookupAddress[]> => {
    calls.push(hostname);
    const addresses = table[hostname];
    if (!addresses)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolve, { calls });
}

test('production destinations must be https and resolve only to public addresses', async () => {
  const resolve = fakeResolver({
    'hooks.example.com': ['93.184.216.34', '2606:2800:220:1::1'],
    'internal.example.com': ['10.0.0.5'],
    'mixed.example.com': ['93.184.216.34', '127.0.0.1'],
    'metadata.example.com': ['169.254.169.254'],
    'v6private.example.com': ['fd00::5'],
    'mapped.example.com': ['::ffff:192.168.0.10'],
    'empty.example.com': [],
  });
  const check = (url: string, environment: WebhookEnvironment = 'production') =>
    validateDestinationUrl(url, environment, resolve);

  const ok = await check('https://hooks.example.com/tributary?x=1');
  assert.equal(ok.allowed, true);
  assert.ok(ok.allowed && ok.addresses.length === 2);
  assert.equal((await check('https://8.8.8.8/hook')).allowed, true);
  assert.equal((await check('https://[2606:4700:4700::1111]/hook')).allowed, true);

  const refusals: [string, RegExp][] = [
    ['http://hooks.example.com/', /https/],
    ['ftp://hooks.example.com/', /scheme/],
    ['not a url', /valid/],
    ['https://internal.example.com/', /10\.0\.0\.5.*private/],
    ['https://mixed.example.com/', /127\.0\.0\.1.*loopback/],
    ['https://metadata.example.com/', /metadata/],
    ['https://v6private.example.com/', /unique-local/],
    ['https://mapped.example.com/', /private/],
    ['https://empty.example.com/', /no addresses/],
    ['https://unknown.example.com/', /could not be resolved \(ENOTFOUND\)/],
    ['https://localhost/', /loopback/],
    ['https://api.localhost./', /loopback/],
    ['https://127.0.0.1/', /loopback/],
    ['https://2130706433/', /loopback/],
    ['https://0x7f.1/', /loopback/],
    ['https://[::1]:8443/', /loopback/],
    ['https://[::ffff:169.254.169.254]/', /metadata/],
    ['https://169.254.169.254/latest/meta-data/', /metadata/],
    ['https://[fe80::1]/', /link-local/],
  ];
  for (const [url, reason] of refusals) {
    const result = await check(url);
    assert.equal(result.allowed, false, `${url} must be refused`);
    assert.ok(!result.allowed && reason.test(result.reason), `${url}: ${!result.allowed && result.reason}`);
  }
  assert.ok(!resolve.calls.includes('localhost'), 'localhost is refused without asking DNS');
});

test('sandbox destinations may be anything http(s), without DNS', async () => {
  const resolve = fakeResolver({});
  for (const url of [
    'http://localhost:3000/hook',
    'http://10.0.0.5/',
    'https://[::1]/',
    'http://unknown.test/',
  ]) {
    assert.equal((await validateDestinationUrl(url, 'sandbox', resolve)).allowed, true, url);
  }
  assert.equal((await validateDestinationUrl('file:///etc/passwd', 'sandbox', resolve)).allowed, false);
  assert.deepEqual(resolve.calls, []);
});

test('checkedLookup honours the requested family and reports names without addresses', async () => {
  const resolve: ResolveHost = async () => [
    { address: '2606:4700:4700::1111', family: 6 },
    { address: '1.1.1.1', family: 4 },
  ];
  const lookup = checkedLookup('production', resolve);
  const single = await new Promise<[string | LookupAddress[], number | undefined]>((done, fail) =>
    lookup('one.example.com', { family: 4 }, (error, address, family) =>
      error ? fail(error) : done([address, family]),
    ),
  );
  assert.deepEqual(single, ['1.1.1.1', 4]);
  const all = await new Promise<string | LookupAddress[]>((done, fail) =>
    lookup('one.example.com', { all: true }, (error, addresses) => (error ? fail(error) : done(addresses))),
  );
  assert.equal(Array.isArray(all) && all.length, 2);
  const onlyV4 = checkedLookup('production', async () => [{ address: '1.1.1.1', family: 4 }]);
  const missing = await new Promise<NodeJS.ErrnoException | null>((done) =>
    onlyV4('one.example.com', { family: 6 }, (error) => done(error)),
  );
  assert.equal(missing?.code, 'ENOTFOUND');
});

// --- Chunking --------------------------------------------------------------------------------------

test('records are chunked by count', () => {
  const records = Array.from({ length: 23 }, (_, i) => ({ i }));
  const chunks = chunkRecords(records);
  assert.deepEqual(
    chunks.map((chunk) => chunk.length),
    [10, 10, 3],
  );
  assert.deepEqual(chunks.flat(), records, 'order and content are kept');
  assert.deepEqual(
    chunkRecords(records, { maxObjects: 5 }).map((chunk) => chunk.length),
    [5, 5, 5, 5, 3],
  );
  assert.deepEqual(chunkRecords([]), []);
  assert.throws(() => chunkRecords(records, { maxObjects: 0 }), RangeError);
});

test('records are chunked by serialized bytes, counting brackets, commas and the envelope', () => {
  const record = { blob: 'x'.repeat(89) }; // {"blob":"…"} is 100 bytes
  assert.equal(serializedSize(record), 100);
  const records = Array.from({ length: 7 }, () => record);
  // [a,b,c] of 100-byte members is 304 bytes, so three fit in 304; four would need 405.
  const byBytes = chunkRecords(records, { maxBytes: 304 });
  assert.deepEqual(
    byBytes.map((chunk) => chunk.length),
    [3, 3, 1],
  );
  for (const chunk of byBytes) assert.ok(serializedSize(chunk) <= 304);
  // One byte less and only two fit.
  assert.deepEqual(
    chunkRecords(records, { maxBytes: 303 }).map((chunk) => chunk.length),
    [2, 2, 2, 1],
  );
  // Reserving room for the envelope shrinks the array budget.
  assert.deepEqual(
    chunkRecords(records, { maxBytes: 405 }).map((chunk) => chunk.length),
    [4, 3],
  );
  assert.deepEqual(
    chunkRecords(records, { maxBytes: 405, reservedBytes: 101 }).map((chunk) => chunk.length),
    [3, 3, 1],
  );
  // Multi-byte characters count as bytes, not characters.
  const wide = { blob: '☾'.repeat(30) }; // 90 bytes of UTF-8 plus 11 of JSON
  assert.deepEqual(
    chunkRecords([wide, wide], { maxBytes: 150 }).map((chunk) => chunk.length),
    [1, 1],
  );
  // A record bigger than any chunk still travels, alone.
  const huge = { blob: 'y'.repeat(1000) };
  assert.deepEqual(
    chunkRecords([record, huge, record], { maxBytes: 500 }).map((chunk) => chunk.length),
    [1, 1, 1],
  );
});

test('a range over 28 days, or a payload over the size limit, is a large request', () => {
  const start = new Date('2024-01-01T00:00:00Z');
  assert.equal(isLargeRequestRange(start, new Date('2024-01-29T00:00:00Z')), false, '28 days');
  assert.equal(isLargeRequestRange(start, new Date('2024-01-30T00:00:00Z')), true, '29 days');
  assert.equal(isLargeRequestRange(start, new Date('2024-01-29T00:00:01Z')), true, 'just over 28 days');
  const records = Array.from({ length: 25 }, (_, i) => ({ i }));
  const short = { start, end: new Date('2024-01-08T00:00:00Z') };
  const long = { start, end: new Date('2024-03-01T00:00:00Z') };
  assert.deepEqual(planDataDelivery(records, short), { large: false, chunks: [records] });
  const bigRange = planDataDelivery(records, long);
  assert.equal(bigRange.large, true);
  assert.deepEqual(
    bigRange.chunks.map((chunk) => chunk.length),
    [10, 10, 5],
  );
  const bigPayload = planDataDelivery(records, short, { largePayloadBytes: 100 });
  assert.equal(bigPayload.large, true);
  assert.equal(bigPayload.chunks.length, 3);
});
