import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseBound, windowOf } from '../../src/features/data/params.ts';
import {
  bucketStartOf,
  budgetHeaders,
  costOf,
  DEFAULT_HOURLY_DAYS_LIMIT,
  HEADER_RULE,
  hourlyLimitOf,
  R1_MAX_WINDOW_DAYS,
  r1Rejection,
  r2Rejection,
  secondsToNextHour,
  violatesR1,
} from '../../src/features/data/rate-limit.ts';

const DAY = 86_400_000;
const windowMs = (start: string, end: string) => {
  const window = windowOf(parseBound('start_date', start), parseBound('end_date', end));
  return window.endMs - window.startMs;
};

describe('read cost', () => {
  test('end_date − start_date in days: 2024-01-01..2024-01-31 costs 30', () => {
    assert.equal(costOf(windowMs('2024-01-01', '2024-01-31')), 30);
  });

  test('no read is free: no dates (the athlete) costs 1, and so does an empty window', () => {
    assert.equal(costOf(null), 1);
    assert.equal(costOf(windowMs('2024-01-01', '2024-01-01')), 1);
    assert.equal(costOf(windowMs('1704067200', '1704067200')), 1);
  });

  test('an empty window syncs nothing, whatever its bounds are', () => {
    for (const [start, end] of [
      ['2024-01-01', '2024-01-01'],
      ['1704067200', '1704067200'],
      ['2024-01-01', '1704067200'],
    ] as const) {
      const window = windowOf(parseBound('start_date', start), parseBound('end_date', end));
      assert.equal(window.syncStartDay, window.syncEndDay, `${start}..${end}`);
    }
  });

  test('unix seconds: a partial day counts as a day', () => {
    assert.equal(costOf(windowMs('1704067200', '1704070800')), 1);
    assert.equal(costOf(windowMs('1704067200', '1704153600')), 1);
    assert.equal(costOf(windowMs('1704067200', '1704153601')), 2);
  });

  test('dates and unix seconds mix (dates are UTC midnight)', () => {
    assert.equal(costOf(windowMs('2024-01-01', '1704153600')), 1);
  });
});

describe('r1', () => {
  test('exactly 1,825 days is accepted, 1,826 rejected', () => {
    assert.equal(R1_MAX_WINDOW_DAYS, 1825);
    assert.equal(violatesR1(1825 * DAY), false);
    assert.equal(violatesR1(1826 * DAY), true);
    assert.equal(violatesR1(windowMs('2020-01-01', '2024-12-30')), false);
    assert.equal(violatesR1(windowMs('2020-01-01', '2024-12-31')), true);
  });

  test('a second over 1,825 days is over', () => {
    assert.equal(violatesR1(1825 * DAY + 1000), true);
  });

  test('no dates never violates r1', () => {
    assert.equal(violatesR1(null), false);
  });

  test('the r1 rejection names the rule and has no Retry-After', () => {
    const error = r1Rejection(1826 * DAY);
    assert.equal(error.status, 429);
    assert.deepEqual(error.headers, { [HEADER_RULE]: 'r1' });
    assert.match(error.message, /1826 days exceeds the maximum of 1825/);
  });
});

describe('r2 buckets', () => {
  test('fixed UTC hours', () => {
    assert.equal(
      bucketStartOf(new Date('2025-03-10T10:59:59.999Z')).toISOString(),
      '2025-03-10T10:00:00.000Z',
    );
    assert.equal(
      bucketStartOf(new Date('2025-03-10T11:00:00.000Z')).toISOString(),
      '2025-03-10T11:00:00.000Z',
    );
  });

  test('seconds to the next UTC hour', () => {
    assert.equal(secondsToNextHour(new Date('2025-03-10T10:59:30Z')), 30);
    assert.equal(secondsToNextHour(new Date('2025-03-10T10:59:59.500Z')), 1);
    assert.equal(secondsToNextHour(new Date('2025-03-10T11:00:00Z')), 3600);
    assert.equal(secondsToNextHour(new Date('2025-03-10T10:00:00.001Z')), 3600);
  });

  test('the limit is 6,000 unless the dev-id raises it', () => {
    assert.equal(DEFAULT_HOURLY_DAYS_LIMIT, 6000);
    assert.equal(hourlyLimitOf({ hourlyDaysLimit: null }), 6000);
    assert.equal(hourlyLimitOf({ hourlyDaysLimit: 20_000 }), 20_000);
  });

  test('headers of an accepted read', () => {
    assert.deepEqual(budgetHeaders({ limit: 6000, used: 5970, resetAfterSeconds: 42 }), {
      'X-Service-RateLimit-Limit': '6000',
      'X-Service-RateLimit-Remaining': '30',
      'X-Service-RateLimit-Reset-After': '42',
    });
  });

  test('the r2 rejection carries Retry-After and the budget headers', () => {
    const error = r2Rejection('u1', 30, { limit: 6000, used: 5990, resetAfterSeconds: 30 });
    assert.equal(error.status, 429);
    assert.deepEqual(error.headers, {
      [HEADER_RULE]: 'r2',
      'Retry-After': '30',
      'X-Service-RateLimit-Limit': '6000',
      'X-Service-RateLimit-Remaining': '10',
      'X-Service-RateLimit-Reset-After': '30',
    });
    assert.match(error.message, /5990 of 6000 days used/);
  });
});
