import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addDays } from '../../src/model/time.ts';
import {
  createDeveloper,
  problemOf,
  startTestService,
  type TestDeveloper,
  type TestService,
} from '../helpers/app.ts';
import { authenticateUser, connectSandboxUser } from '../helpers/connections.ts';
import { dataRowCounts } from '../helpers/users.ts';

/** A clock the test moves; everything budget-related reads it. */
const clock = {
  current: new Date('2025-03-10T10:59:30.000Z'),
  now() {
    return new Date(this.current);
  },
};

/** Far in the clock's future: no provider has data there, so reads are cheap and only the budget matters. */
const FUTURE = '2031-01-01';

describe('data-read rate limits', () => {
  let service: TestService;
  let developer: TestDeveloper;

  before(async () => {
    service = await startTestService({ clock, env: { SANDBOX_ARRIVAL_MINUTES: 'off' } });
    developer = await createDeveloper(service.ctx);
  });
  after(async () => {
    await service?.close();
  });

  const read = (
    userId: string,
    days: number,
    options: { type?: string; start?: string; who?: TestDeveloper } = {},
  ) => {
    const start = options.start ?? FUTURE;
    return service.app.inject({
      method: 'GET',
      url: `/v2/${options.type ?? 'activity'}?user_id=${userId}&start_date=${start}&end_date=${addDays(start, days)}&to_webhook=false`,
      headers: (options.who ?? developer).headers,
    });
  };

  const used = async (userId: string) =>
    (
      await service.ctx.db
        .selectFrom('rate_buckets')
        .select(['bucket_start', 'used'])
        .where('user_id', '=', userId)
        .execute()
    ).map((row) => ({ at: row.bucket_start.toISOString(), used: row.used }));

  test('r1: exactly 1,825 days is accepted (a real read); 1,826 is rejected, without Retry-After, and costs nothing', async () => {
    clock.current = new Date('2025-03-10T10:15:00Z');
    const { userId } = await connectSandboxUser(service.app, developer);
    const accepted = await read(userId, 1825, { type: 'hormone', start: '2020-01-01' });
    assert.equal(accepted.statusCode, 200, accepted.body);
    assert.equal(JSON.parse(accepted.body).data.length, 1825);
    assert.equal(accepted.headers['x-service-ratelimit-remaining'], String(6000 - 1825));

    const rejected = await read(userId, 1826, { type: 'hormone', start: '2020-01-01' });
    const problem = problemOf(rejected);
    assert.equal(problem.status, 429);
    assert.equal(rejected.headers['x-service-ratelimit-rule'], 'r1');
    assert.equal(rejected.headers['retry-after'], undefined);
    assert.match(problem.body.detail, /1826 days exceeds the maximum of 1825/);
    assert.deepEqual(await used(userId), [{ at: '2025-03-10T10:00:00.000Z', used: 1825 }]);
  });

  test('r2: reached exactly at 6,000; the next request gets 429 r2 with Retry-After to the next UTC hour', async () => {
    clock.current = new Date('2025-03-10T10:59:30Z');
    const { userId } = await connectSandboxUser(service.app, developer);
    for (const days of [1825, 1825, 1825]) assert.equal((await read(userId, days)).statusCode, 200);
    // 5,475 used: a request that would overshoot is rejected and costs nothing...
    const overshoot = await read(userId, 526);
    assert.equal(overshoot.statusCode, 429);
    assert.equal(overshoot.headers['x-service-ratelimit-rule'], 'r2');
    // ...so exactly the rest still fits.
    const last = await read(userId, 525);
    assert.equal(last.statusCode, 200, last.body);
    assert.equal(last.headers['x-service-ratelimit-limit'], '6000');
    assert.equal(last.headers['x-service-ratelimit-remaining'], '0');
    assert.equal(last.headers['x-service-ratelimit-reset-after'], '30');
    assert.deepEqual(await used(userId), [{ at: '2025-03-10T10:00:00.000Z', used: 6000 }]);

    const rejected = await read(userId, 1);
    const problem = problemOf(rejected);
    assert.equal(problem.status, 429);
    assert.equal(problem.contentType, 'application/problem+json; charset=utf-8');
    assert.match(problem.body.detail, /6000 of 6000 days used/);
    assert.equal(rejected.headers['x-service-ratelimit-rule'], 'r2');
    assert.equal(rejected.headers['retry-after'], '30');
    assert.equal(rejected.headers['x-service-ratelimit-limit'], '6000');
    assert.equal(rejected.headers['x-service-ratelimit-remaining'], '0');
    assert.equal(rejected.headers['x-service-ratelimit-reset-after'], '30');

    // The athlete costs 1 as well, so it is over budget too.
    const athlete = await service.app.inject({
      method: 'GET',
      url: `/v2/athlete?user_id=${userId}&to_webhook=false`,
      headers: developer.headers,
    });
    assert.equal(athlete.statusCode, 429);

    // A fixed UTC hour: the next one starts empty.
    clock.current = new Date('2025-03-10T11:00:00Z');
    const nextHour = await read(userId, 1);
    assert.equal(nextHour.statusCode, 200);
    assert.equal(nextHour.headers['x-service-ratelimit-remaining'], '5999');
    assert.equal(nextHour.headers['x-service-ratelimit-reset-after'], '3600');
  });

  test('identical replays count again; the athlete costs 1; v3 shares the budget', async () => {
    clock.current = new Date('2025-03-10T12:05:00Z');
    const { userId } = await connectSandboxUser(service.app, developer);
    assert.equal((await read(userId, 30)).headers['x-service-ratelimit-remaining'], '5970');
    assert.equal((await read(userId, 30)).headers['x-service-ratelimit-remaining'], '5940');
    const athlete = await service.app.inject({
      method: 'GET',
      url: `/v2/athlete?user_id=${userId}&to_webhook=false`,
      headers: developer.headers,
    });
    assert.equal(athlete.statusCode, 200, athlete.body);
    assert.equal(athlete.headers['x-service-ratelimit-remaining'], '5939');
    const v3 = await service.app.inject({
      method: 'GET',
      url: `/v3/connections/${userId}/sleep?start_date=${FUTURE}&end_date=${addDays(FUTURE, 9)}`,
      headers: developer.headers,
    });
    assert.equal(v3.statusCode, 200, v3.body);
    assert.equal(v3.headers['x-service-ratelimit-remaining'], '5930');
  });

  test('200 concurrent reads for one user admit at most 6,000 days, and exactly what was admitted is charged', async () => {
    clock.current = new Date('2025-03-10T13:00:00Z');
    const { userId } = await connectSandboxUser(service.app, developer);
    // Sync the range in an earlier hour so the concurrent reads serve stored data.
    const warm = await read(userId, 60, { type: 'hormone', start: '2024-06-01' });
    assert.equal(warm.statusCode, 200);
    clock.current = new Date('2025-03-10T14:10:00Z');
    const responses = await Promise.all(
      Array.from({ length: 200 }, () => read(userId, 60, { type: 'hormone', start: '2024-06-01' })),
    );
    const admitted = responses.filter((response) => response.statusCode === 200);
    const rejected = responses.filter((response) => response.statusCode === 429);
    assert.equal(admitted.length + rejected.length, 200);
    assert.ok(admitted.length * 60 <= 6000);
    assert.equal(admitted.length, 100, 'the budget is used up exactly');
    for (const response of admitted) assert.equal(JSON.parse(response.body).data.length, 60);
    for (const response of rejected) assert.equal(response.headers['x-service-ratelimit-rule'], 'r2');
    const buckets = await used(userId);
    assert.deepEqual(
      buckets.find((bucket) => bucket.at === '2025-03-10T14:00:00.000Z')?.used,
      admitted.length * 60,
    );
  });

  test('the limit can be raised (or lowered) per dev-id', async () => {
    clock.current = new Date('2025-03-10T15:00:00Z');
    const raised = await createDeveloper(service.ctx);
    await service.ctx.developers.setHourlyDaysLimit(raised.devId, 10_000);
    const { userId } = await connectSandboxUser(service.app, raised);
    for (let index = 0; index < 5; index++)
      assert.equal((await read(userId, 1825, { who: raised })).statusCode, 200);
    const over = await read(userId, 1000, { who: raised });
    assert.equal(over.statusCode, 429);
    assert.equal(over.headers['x-service-ratelimit-limit'], '10000');
    assert.equal(over.headers['x-service-ratelimit-remaining'], String(10_000 - 5 * 1825));

    const lowered = await createDeveloper(service.ctx);
    await service.ctx.developers.setHourlyDaysLimit(lowered.devId, 100);
    const other = await connectSandboxUser(service.app, lowered);
    assert.equal((await read(other.userId, 100, { who: lowered })).statusCode, 200);
    const rejected = await read(other.userId, 1, { who: lowered });
    assert.equal(rejected.statusCode, 429);
    assert.equal(rejected.headers['x-service-ratelimit-limit'], '100');
    // A single request over the whole limit is an r2 rejection too (and costs nothing).
    const huge = await read(other.userId, 101, { who: lowered });
    assert.equal(huge.headers['x-service-ratelimit-rule'], 'r2');
  });

  test('users still pending authentication are not budgeted', async () => {
    const { userId } = await authenticateUser(service.app, developer, 'SANDBOX');
    for (const days of [1, 2000]) {
      const response = await read(userId, days);
      const problem = problemOf(response);
      assert.equal(problem.status, 400);
      assert.match(problem.body.detail, /has not completed authentication/);
      assert.equal(response.headers['x-service-ratelimit-limit'], undefined);
      assert.equal(response.headers['x-service-ratelimit-rule'], undefined);
    }
    assert.equal((await dataRowCounts(service.ctx, userId)).buckets, 0);
  });

  test('parameter errors and unknown users cost nothing', async () => {
    clock.current = new Date('2025-03-10T16:00:00Z');
    const { userId } = await connectSandboxUser(service.app, developer);
    const bad = await service.app.inject({
      method: 'GET',
      url: `/v2/activity?user_id=${userId}&start_date=2024-13-01`,
      headers: developer.headers,
    });
    assert.equal(bad.statusCode, 400);
    const stranger = await createDeveloper(service.ctx);
    assert.equal((await read(userId, 10, { who: stranger })).statusCode, 404);
    assert.deepEqual(await used(userId), []);
  });
});
