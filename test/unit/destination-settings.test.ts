import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canonicalUrl, parsePostgresqlUrl } from '../../src/features/delivery/kinds/postgresql-url.ts';
import { ownDatabaseReason, ownDatabasesOf } from '../../src/features/delivery/own-database.ts';
import { createShareSlots } from '../../src/features/delivery/engine-shares.ts';
import { createRouteShares } from '../../src/features/delivery/route-shares.ts';
import { loadWebhookSettings } from '../../src/features/delivery/settings.ts';
import { dialAddress } from '../../src/features/delivery/destination-policy.ts';

const noDns = async () => {
  throw Object.assign(new Error('no DNS in unit tests'), { code: 'ENOTFOUND' });
};

test('a PostgreSQL URL is read into its parts; only the allowed options pass', () => {
  const target = parsePostgresqlUrl(
    'postgresql://an%40alyst:p%3Ass@DB.Example.com:6543/ware%20house?sslmode=verify-full&application_name=etl&connect_timeout=7',
  );
  assert.deepEqual(target, {
    host: 'db.example.com',
    port: 6543,
    database: 'ware house',
    user: 'an@alyst',
    password: 'p:ss',
    sslmode: 'verify-full',
    applicationName: 'etl',
    connectTimeout: 7,
  });
  assert.equal(
    canonicalUrl(target, 'mask'),
    'postgres://an%40alyst:***@db.example.com:6543/ware%20house?sslmode=verify-full&application_name=etl&connect_timeout=7',
  );
  // Written back and read again: the same parts (the stored form is read with the same rules).
  assert.deepEqual(parsePostgresqlUrl(canonicalUrl(target, 'include')), target);
  assert.equal(parsePostgresqlUrl('postgres://u@[::1]/d').host, '::1');

  for (const [url, pattern] of [
    ['postgres://u:p@h/d?host=127.0.0.1', /query parameter "host" is not allowed/],
    ['postgres://u:p@h/d?sslmode=require&sslrootcert=/dev/zero', /"sslrootcert"/],
    ['postgres://u:p@h/d?sslmode=require&sslmode=disable', /given twice/],
    ['postgres://u:p@h/d?sslmode=prefer', /sslmode "prefer" is not supported/],
    ['postgres://u:p@h/d?connect_timeout=0', /connect_timeout/],
    ['postgres://u:p@h/d#x', /takes no fragment/],
    ['postgres://u:p@/d', /not a valid absolute URL/],
    ['postgres:///d', /names no host/],
    ['postgres://u:p@%2Ftmp/d', /one DNS name or IP address/],
    ['postgres://u:p@a,b/d', /one DNS name or IP address/],
    ['postgres://u:p@2130706433/d', /one DNS name or IP address/],
    ['postgres://u:p@h/', /names no database/],
    ['postgres://u:p@h/a/b', /one database/],
    ['postgres://:p@h/d', /names no user/],
    ['mysql://u:p@h/d', /unsupported scheme mysql/],
  ] as const) {
    assert.throws(() => parsePostgresqlUrl(url), pattern, url);
  }
});

test("the service's own database: same server and port, and the same database or role", async () => {
  const own = ownDatabasesOf(['postgres://svc:x@127.0.0.1:5432/tributary', undefined]);
  assert.deepEqual(own, [{ host: '127.0.0.1', port: 5432, database: 'tributary', user: 'svc' }]);
  const at = (address: string) => [{ address, family: address.includes(':') ? 6 : 4 }];
  const check = (address: string, port: number, database: string, user: string) =>
    ownDatabaseReason({ addresses: at(address), port, database, user }, own, noDns);
  assert.match((await check('127.0.0.1', 5432, 'tributary', 'other')) ?? '', /own database/);
  assert.match((await check('127.0.0.1', 5432, 'analytics', 'svc')) ?? '', /own database role/);
  assert.match((await check('::ffff:127.0.0.1', 5432, 'tributary', 'x')) ?? '', /own database/);
  assert.equal(await check('127.0.0.1', 5433, 'tributary', 'svc'), null, 'another port is another server');
  assert.equal(await check('127.0.0.1', 5432, 'analytics', 'analyst'), null);
  assert.equal(await check('203.0.113.9', 5432, 'tributary', 'svc'), null, 'another host');

  // A socket directory (or a loopback name) is this machine: any loopback address matches.
  const local = ownDatabasesOf(['postgres:///tributary?host=/var/run/postgresql&user=svc']);
  assert.deepEqual(local, [{ host: null, port: 5432, database: 'tributary', user: 'svc' }]);
  assert.match(
    (await ownDatabaseReason(
      { addresses: at('127.0.0.2'), port: 5432, database: 'tributary', user: 'u' },
      local,
      noDns,
    )) ?? '',
    /own database/,
  );
  assert.match(
    (await ownDatabaseReason(
      { addresses: at('0.0.0.0'), port: 5432, database: 'x', user: 'svc' },
      local,
      noDns,
    )) ?? '',
    /own database role/,
  );
});

test('the dialled address is resolved and checked at connect time, then pinned', async () => {
  let answer = '93.184.216.34';
  const resolve = async () => [{ address: answer, family: 4 }];
  assert.deepEqual(await dialAddress('db.example.com', 'production', resolve), {
    address: answer,
    family: 4,
  });
  // The name now resolves to the metadata address (rebinding): refused at connect.
  answer = '169.254.169.254';
  await assert.rejects(dialAddress('db.example.com', 'production', resolve), /169\.254\.169\.254/);
  assert.deepEqual(await dialAddress('db.example.com', 'sandbox', resolve), { address: answer, family: 4 });
  await assert.rejects(dialAddress('127.0.0.1', 'production', resolve), /loopback/);
});

test('route shares: a destination holds at most its share; a freed slot wakes a waiter', async () => {
  let now = 0;
  const shares = createRouteShares(2, () => now);
  const first = shares.take('c')!;
  const second = shares.take('c')!;
  assert.equal(shares.take('c'), null, 'the share is taken');
  assert.ok(shares.take('b'), 'another destination is not affected');
  now = 700;
  assert.equal(shares.oldestMs('c'), 700);
  const waiting = shares.waitForSlot('c', 60_000);
  first();
  first(); // releasing twice frees one slot only
  await waiting;
  assert.equal(shares.inFlight('c'), 1);
  second();
  assert.equal(shares.inFlight('c'), 0);
});

test('route shares: a freed slot goes to the batch that started first, whenever it began to wait', async () => {
  const shares = createRouteShares(1);
  let release = shares.take('c')!;
  const woken: string[] = [];
  // Batch 7 (the later one) waits first, then batch 3; then batch 3 again and another of batch 7.
  const later = shares.waitForSlot('c', 60_000, 7).then(() => woken.push('batch 7'));
  const earlier = shares.waitForSlot('c', 60_000, 3).then(() => woken.push('batch 3'));
  release();
  await earlier;
  assert.deepEqual(woken, ['batch 3'], 'the earlier batch is served though it came second');
  release = shares.take('c')!;
  const earlierAgain = shares.waitForSlot('c', 60_000, 3).then(() => woken.push('batch 3 again'));
  release();
  await earlierAgain;
  assert.deepEqual(woken, ['batch 3', 'batch 3 again'], 'and again, ahead of the batch waiting longer');
  release = shares.take('c')!;
  release();
  await later;
  assert.deepEqual(woken, ['batch 3', 'batch 3 again', 'batch 7']);
  // Equal ranks keep their order of arrival.
  release = shares.take('c')!;
  const first = shares.waitForSlot('c', 60_000, 5).then(() => woken.push('first of 5'));
  const second = shares.waitForSlot('c', 60_000, 5).then(() => woken.push('second of 5'));
  release();
  await first;
  shares.take('c')!();
  await second;
  assert.deepEqual(woken.slice(3), ['first of 5', 'second of 5']);
  assert.equal(shares.inFlight('c'), 0);
});

test("engine shares: two batches on one busy destination don't advance in step; the earlier one goes first", async () => {
  const { shareSlot } = createShareSlots({
    ...loadWebhookSettings({}),
    destinationConcurrency: 1,
    developerConcurrency: 10,
    batchWaitMs: 60_000,
  });
  const sent: string[] = [];
  // Each batch sends its events one slot at a time, as deliver.ts does with the events that found
  // the destination's share full; every attempt is answered at once.
  const batch = async (name: string, order: number, events: number) => {
    for (let event = 1; event <= events; event++) {
      const slot = shareSlot('primary:dev', 'dev', order);
      const release = slot instanceof Promise ? await slot : slot;
      assert.ok(release, 'a slot, not the slow lane');
      sent.push(`${name}${event}`);
      setImmediate(release);
    }
  };
  // The later batch asks first, then keeps asking beside the earlier one.
  await Promise.all([batch('B', 2, 3), batch('A', 1, 3)]);
  assert.deepEqual(sent, ['B1', 'A1', 'A2', 'A3', 'B2', 'B3']);
});

test('route shares: a freed slot wakes the first waiter only; the limit wakes every waiter', async () => {
  const shares = createRouteShares(1);
  const release = shares.take('c')!;
  const woken: string[] = [];
  const first = shares.waitForSlot('c', 60_000).then(() => woken.push('first'));
  const second = shares.waitForSlot('c', 60_000).then(() => woken.push('second'));
  release();
  await first;
  await new Promise((resolve) => setImmediate(resolve));
  // The second would find the slot the first takes: it waits on for the next one.
  assert.deepEqual(woken, ['first']);
  const again = shares.take('c')!;
  again();
  await second;
  assert.deepEqual(woken, ['first', 'second']);
  // No slot frees: each waiter is woken at the earliest limit, to look again.
  const held = shares.take('c')!;
  const late = shares.waitForSlot('c', 60_000).then(() => woken.push('late'));
  const soon = shares.waitForSlot('c', 5).then(() => woken.push('soon'));
  await Promise.all([late, soon]);
  assert.deepEqual(woken.slice(2).sort(), ['late', 'soon']);
  held();
  assert.equal(shares.inFlight('c'), 0);
});
