// The hourly data budget against the real store, below HTTP: r1 and r2 in the order the contract
// states, what a rejected read is charged (nothing), what each rejection reports, and pruning.
// The HTTP path (headers on real reads, concurrent reads on PostgreSQL) is data-rate-limits.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AppError } from '../../src/core/errors.ts';
import {
  bucketUsed,
  chargeBucket,
  enforceReadBudget,
  pruneBuckets,
} from '../../src/features/data/rate-limit.ts';
import { createDeveloper, startTestService, type TestService } from '../helpers/app.ts';
import { insertUser } from '../helpers/users.ts';

const DAY = 86_400_000;
const AT = new Date('2026-02-03T10:15:30Z');
const HOUR_START = new Date('2026-02-03T10:00:00Z');

describe('hourly data budget in the store', () => {
  let service: TestService;
  let developerId: string;
  const newUser = () => insertUser(service.ctx, { developerId, provider: 'SANDBOX' });
  const enforce = (userId: string, windowMs: number | null, limit = 100, now = AT) =>
    enforceReadBudget(service.ctx.db, { userId, windowMs, limit, now });

  /** The AppError a rejected read throws. */
  async function rejection(promise: Promise<unknown>): Promise<AppError> {
    try {
      await promise;
    } catch (error) {
      assert.ok(error instanceof AppError, String(error));
      return error;
    }
    assert.fail('the read was accepted');
  }

  before(async () => {
    service = await startTestService({ work: false });
    developerId = (await createDeveloper(service.ctx)).devId;
  });
  after(async () => {
    await service?.close();
  });

  test('an accepted read is charged its cost and reports the budget left', async () => {
    const userId = await newUser();
    assert.deepEqual(await enforce(userId, 30 * DAY), {
      'X-Service-RateLimit-Limit': '100',
      'X-Service-RateLimit-Remaining': '70',
      'X-Service-RateLimit-Reset-After': '2670',
    });
    assert.deepEqual(await enforce(userId, null), {
      'X-Service-RateLimit-Limit': '100',
      'X-Service-RateLimit-Remaining': '69',
      'X-Service-RateLimit-Reset-After': '2670',
    });
    assert.equal(await bucketUsed(service.ctx.db, userId, HOUR_START), 31);
    assert.equal(await bucketUsed(service.ctx.db, await newUser(), HOUR_START), 0, 'no bucket: nothing used');
  });

  test('r1: over 1,825 days is rejected before anything is charged; 1,825 exactly is a cost like any other', async () => {
    const userId = await newUser();
    const over = await rejection(enforce(userId, 1825 * DAY + 1, 10_000));
    assert.equal(over.status, 429);
    assert.equal(over.headers['X-Service-RateLimit-Rule'], 'r1');
    assert.equal(await bucketUsed(service.ctx.db, userId, HOUR_START), 0);
    assert.equal((await enforce(userId, 1825 * DAY, 10_000))['X-Service-RateLimit-Remaining'], '8175');
    // r1 comes first: a window over r1 that would also exceed r2 reports r1.
    const both = await rejection(enforce(userId, 1900 * DAY, 100));
    assert.equal(both.headers['X-Service-RateLimit-Rule'], 'r1');
  });

  test('r2: a read that would overshoot is rejected whole, charges nothing, and says how much was used', async () => {
    const userId = await newUser();
    await enforce(userId, 60 * DAY);
    const refused = await rejection(enforce(userId, 41 * DAY));
    assert.equal(refused.status, 429);
    assert.deepEqual(refused.headers, {
      'X-Service-RateLimit-Rule': 'r2',
      'Retry-After': '2670',
      'X-Service-RateLimit-Limit': '100',
      'X-Service-RateLimit-Remaining': '40',
      'X-Service-RateLimit-Reset-After': '2670',
    });
    assert.equal(
      refused.message,
      `hourly data budget of user ${userId} exhausted: 60 of 100 days used in this UTC hour, ` +
        'this request costs 41 (rule r2); the budget resets in 2670 s',
    );
    assert.equal(await bucketUsed(service.ctx.db, userId, HOUR_START), 60, 'nothing charged');
    assert.equal(
      (await enforce(userId, 40 * DAY))['X-Service-RateLimit-Remaining'],
      '0',
      'the rest still fits',
    );
  });

  test('a read costing more than the whole limit is rejected without touching the bucket', async () => {
    const userId = await newUser();
    await enforce(userId, 10 * DAY);
    const refused = await rejection(enforce(userId, 101 * DAY));
    assert.equal(refused.headers['X-Service-RateLimit-Rule'], 'r2');
    assert.equal(refused.headers['X-Service-RateLimit-Remaining'], '90', 'reports what was used before');
    assert.match(refused.message, /: 10 of 100 days used in this UTC hour, this request costs 101 /);
    assert.equal(await bucketUsed(service.ctx.db, userId, HOUR_START), 10);
    const fresh = await newUser();
    const first = await rejection(enforce(fresh, 101 * DAY));
    assert.equal(first.headers['X-Service-RateLimit-Remaining'], '100');
    assert.equal(await bucketUsed(service.ctx.db, fresh, HOUR_START), 0, 'no bucket was created');
  });

  test('each UTC hour has its own bucket', async () => {
    const userId = await newUser();
    await enforce(userId, 100 * DAY);
    await rejection(enforce(userId, DAY));
    const nextHour = new Date('2026-02-03T11:00:00Z');
    assert.equal((await enforce(userId, DAY, 100, nextHour))['X-Service-RateLimit-Reset-After'], '3600');
    assert.equal(await bucketUsed(service.ctx.db, userId, nextHour), 1);
  });

  test('chargeBucket adds only when the total stays within the limit', async () => {
    const userId = await newUser();
    const charge = (cost: number) =>
      chargeBucket(service.ctx.db, { userId, bucketStart: HOUR_START, cost, limit: 10 });
    assert.deepEqual(await charge(4), { accepted: true, used: 4 });
    assert.deepEqual(await charge(6), { accepted: true, used: 10 }, 'up to the limit exactly');
    assert.deepEqual(await charge(1), { accepted: false, used: 10 });
  });

  test('pruning deletes the buckets of hours before the cutoff and counts them', async () => {
    const userId = await newUser();
    const hours = ['2026-01-01T00:00:00Z', '2026-01-01T01:00:00Z', '2026-01-01T02:00:00Z'].map(
      (iso) => new Date(iso),
    );
    for (const hour of hours)
      await chargeBucket(service.ctx.db, { userId, bucketStart: hour, cost: 1, limit: 5 });
    const pruned = await pruneBuckets(service.ctx.db, hours[2]!);
    assert.equal(pruned, 2, "two hours before the cutoff, nobody else's buckets that old");
    assert.equal(await bucketUsed(service.ctx.db, userId, hours[0]!), 0);
    assert.equal(await bucketUsed(service.ctx.db, userId, hours[1]!), 0);
    assert.equal(await bucketUsed(service.ctx.db, userId, hours[2]!), 1, 'the cutoff hour itself stays');
    assert.equal(await bucketUsed(service.ctx.db, userId, HOUR_START), 0);
    assert.equal(await pruneBuckets(service.ctx.db, hours[2]!), 0, 'nothing left to prune');
  });
});
