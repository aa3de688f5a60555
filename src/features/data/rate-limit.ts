// The data-read budget, exactly as the contract states it:
// - cost of a read = end_date − start_date in days, and never less than 1: a read without dates
//   (the athlete) costs 1, and so does an empty window (start_date == end_date), so no read is free;
// - r1: a window over 1,825 days is rejected (exactly 1,825 is accepted);
// - r2: the cumulative cost per user per fixed UTC hour may not exceed the developer's limit
//   (6,000 unless raised per dev-id); a request that would exceed it is rejected and costs nothing.
// The budget lives in the database and is charged by one conditional upsert, so parallel
// requests on any number of processes share it exactly.
import { sql } from 'kysely';
import { AppError } from '../../core/errors.ts';
import type { Db } from '../../store/db.ts';
import { type ConnectionRow, connectionQuery, userIdsOfDeveloper } from '../connections/repo.ts';
import { queryTemplate } from '../../store/query-template.ts';
import {
  PAGE_TEXT_INPUTS,
  type PageInput,
  type PageOfText,
  type PageTextInput,
  pageTextOf,
  pageTextQuery,
} from './range-reads.ts';

export const R1_MAX_WINDOW_DAYS = 1825;
export const DEFAULT_HOURLY_DAYS_LIMIT = 6000;

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

export const HEADER_RULE = 'X-Service-RateLimit-Rule';
export const HEADER_LIMIT = 'X-Service-RateLimit-Limit';
export const HEADER_REMAINING = 'X-Service-RateLimit-Remaining';
export const HEADER_RESET_AFTER = 'X-Service-RateLimit-Reset-After';

/** Cost in days of a window of `windowMs`; a partial day counts as a day. At least 1, as without dates. */
export function costOf(windowMs: number | null): number {
  if (windowMs === null) return 1;
  return Math.max(1, Math.ceil(windowMs / DAY_MS));
}

export function violatesR1(windowMs: number | null): boolean {
  return windowMs !== null && windowMs > R1_MAX_WINDOW_DAYS * DAY_MS;
}

export function bucketStartOf(now: Date): Date {
  return new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS);
}

/** Whole seconds until the next UTC hour starts (3600 exactly on the hour). */
export function secondsToNextHour(now: Date): number {
  const next = bucketStartOf(now).getTime() + HOUR_MS;
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
}

export function hourlyLimitOf(developer: { hourlyDaysLimit: number | null }): number {
  return developer.hourlyDaysLimit ?? DEFAULT_HOURLY_DAYS_LIMIT;
}

export type BudgetState = { limit: number; used: number; resetAfterSeconds: number };

export function budgetHeaders(state: BudgetState): Record<string, string> {
  return {
    [HEADER_LIMIT]: String(state.limit),
    [HEADER_REMAINING]: String(Math.max(0, state.limit - state.used)),
    [HEADER_RESET_AFTER]: String(state.resetAfterSeconds),
  };
}

export function r1Rejection(windowMs: number): AppError {
  const days = Math.round((windowMs / DAY_MS) * 1000) / 1000;
  return new AppError(
    'rate_limited',
    `requested window of ${days} days exceeds the maximum of ${R1_MAX_WINDOW_DAYS} days per request (rule r1)`,
    { headers: { [HEADER_RULE]: 'r1' } },
  );
}

export function r2Rejection(userId: string, cost: number, state: BudgetState): AppError {
  return new AppError(
    'rate_limited',
    `hourly data budget of user ${userId} exhausted: ${state.used} of ${state.limit} days used in this UTC hour, ` +
      `this request costs ${cost} (rule r2); the budget resets in ${state.resetAfterSeconds} s`,
    {
      headers: {
        [HEADER_RULE]: 'r2',
        'Retry-After': String(state.resetAfterSeconds),
        ...budgetHeaders(state),
      },
    },
  );
}

/**
 * Adds `cost` to the user's bucket for this hour only if the total stays within `limit`: the
 * WHERE on the conflict branch makes check-and-add one atomic step. No row back means rejected,
 * and nothing was charged. A first request of the hour inserts; the caller guarantees
 * `cost <= limit`, so that insert never overshoots.
 */
export async function chargeBucket(
  db: Db,
  input: { userId: string; bucketStart: Date; cost: number; limit: number },
): Promise<{ accepted: boolean; used: number }> {
  const charged = await db
    .insertInto('rate_buckets')
    .values({ user_id: input.userId, bucket_start: input.bucketStart, used: input.cost })
    .onConflict((conflict) =>
      conflict
        .columns(['user_id', 'bucket_start'])
        .doUpdateSet({ used: sql<number>`rate_buckets.used + excluded.used` })
        .where(sql<number>`rate_buckets.used + excluded.used`, '<=', input.limit),
    )
    .returning('used')
    .executeTakeFirst();
  if (charged) return { accepted: true, used: charged.used };
  return { accepted: false, used: await bucketUsed(db, input.userId, input.bucketStart) };
}

export async function bucketUsed(db: Db, userId: string, bucketStart: Date): Promise<number> {
  const row = await db
    .selectFrom('rate_buckets')
    .select('used')
    .where('user_id', '=', userId)
    .where('bucket_start', '=', bucketStart)
    .executeTakeFirst();
  return row?.used ?? 0;
}

/**
 * Applies r1 then r2 to a read; returns the headers of an accepted read, or throws the 429.
 * The caller has already excluded users still pending authentication (they are not budgeted).
 */
export async function enforceReadBudget(
  db: Db,
  input: { userId: string; windowMs: number | null; limit: number; now: Date },
): Promise<Record<string, string>> {
  if (input.windowMs !== null && violatesR1(input.windowMs)) throw r1Rejection(input.windowMs);
  const cost = costOf(input.windowMs);
  const bucketStart = bucketStartOf(input.now);
  const resetAfterSeconds = secondsToNextHour(input.now);
  if (cost > input.limit) {
    const used = await bucketUsed(db, input.userId, bucketStart);
    throw r2Rejection(input.userId, cost, { limit: input.limit, used, resetAfterSeconds });
  }
  const result = await chargeBucket(db, { userId: input.userId, bucketStart, cost, limit: input.limit });
  const state = { limit: input.limit, used: result.used, resetAfterSeconds };
  if (!result.accepted) throw r2Rejection(input.userId, cost, state);
  return budgetHeaders(state);
}

/**
 * The budget charge of `chargeBucket` made in the statement that finds the connection (one round
 * trip instead of two): the connections feature's query for it (`connectionQuery`) runs as a CTE. The bucket is
 * charged only when the connection exists and may be charged (not pending; active when
 * `requireActive`); `charged_used` is the bucket's total after an accepted charge, else null
 * (not chargeable, or r2 refused: the caller tells which from the row).
 *
 * The statement's commit does not wait for its WAL to reach the disk (`synchronous_commit` off
 * for this transaction alone, set inside the statement so it stays one round trip): a charge
 * lost to a database crash only undercounts that hour's budget, while waiting for the flush made
 * every data read wait for an fsync (issue 44: ~8 ms a commit on the bench machine, against
 * 0.3 ms without, and the reads' largest cost after the response write).
 */
export async function findConnectionAndCharge(
  db: Db,
  ids: { developerId: string; userId: string },
  input: { bucketStart: Date; cost: number; limit: number; requireActive: boolean },
): Promise<(ConnectionRow & { charged_used: number | null }) | undefined> {
  const template = input.requireActive ? chargeActive : chargeAny;
  const rows = await template(db, {
    developerId: ids.developerId,
    userId: ids.userId,
    bucketStart: input.bucketStart,
    cost: input.cost,
    limit: input.limit,
  });
  return rows[0];
}

type ChargeInput = { developerId: string; userId: string; bucketStart: Date; cost: number; limit: number };

/**
 * `chargeAny`'s inputs with those of a first page of summaries read in the same statement
 * (`findChargeAndPage`); the page's own `limit` (records) is `pageLimit` here.
 */
type ChargeAndPageInput = ChargeInput & Omit<PageInput, 'limit'> & { pageLimit: number };

function findAndChargeQuery(db: Db, input: ChargeInput, requireActive: boolean) {
  return db
    .with('c', () => connectionQuery(db, input.developerId, input.userId))
    .with('charged', (qb) =>
      qb
        .insertInto('rate_buckets')
        .columns(['user_id', 'bucket_start', 'used'])
        .expression((eb) =>
          eb
            .selectFrom('c')
            .select([
              'c.id',
              sql<Date>`${input.bucketStart}::timestamptz`.as('bucket_start'),
              sql<number>`${input.cost}::integer`.as('used'),
            ])
            .where('c.status', '<>', 'pending')
            .$if(requireActive, (query) => query.where('c.active', '=', true)),
        )
        .onConflict((conflict) =>
          conflict
            .columns(['user_id', 'bucket_start'])
            .doUpdateSet({ used: sql<number>`rate_buckets.used + excluded.used` })
            .where(sql<number>`rate_buckets.used + excluded.used`, '<=', input.limit),
        )
        .returning('used'),
    );
}

function findAndChargeStatement(db: Db, input: ChargeInput, requireActive: boolean) {
  return findAndChargeQuery(db, input, requireActive)
    .selectFrom('c')
    .selectAll('c')
    .select((eb) => eb.selectFrom('charged').select('charged.used').as('charged_used'))
    .where(sql<boolean>`set_config('synchronous_commit', 'off', true) IS NOT NULL`);
}

// The page is read whether or not the charge was accepted (a refused read's page is dropped):
// only a connection of the developer's yields a row at all, so no one else's records come back.
function findChargeAndPageStatement(db: Db, input: ChargeAndPageInput) {
  return findAndChargeQuery(db, input, false)
    .with('first_page', () => pageTextQuery(db, { ...input, limit: input.pageLimit }, false))
    .selectFrom(['c', 'first_page'])
    .selectAll('c')
    .select((eb) => eb.selectFrom('charged').select('charged.used').as('charged_used'))
    .select(['first_page.records', 'first_page.text', 'first_page.last_at', 'first_page.last_key'])
    .where(sql<boolean>`set_config('synchronous_commit', 'off', true) IS NOT NULL`);
}

// One statement per shape, compiled once (store/query-template.ts): a read runs it every time.
const CHARGE_INPUTS = ['developerId', 'userId', 'bucketStart', 'cost', 'limit'] as const;
const chargeActive = queryTemplate(CHARGE_INPUTS, (db, input: ChargeInput) =>
  findAndChargeStatement(db, input, true),
);
const chargeAny = queryTemplate(CHARGE_INPUTS, (db, input: ChargeInput) =>
  findAndChargeStatement(db, input, false),
);
const CHARGE_AND_PAGE_INPUTS = [
  ...CHARGE_INPUTS,
  ...PAGE_TEXT_INPUTS.filter((name) => name !== 'userId' && name !== 'limit'),
  'pageLimit',
] as const;
const chargeAndPage = queryTemplate(CHARGE_AND_PAGE_INPUTS, (db, input: ChargeAndPageInput) =>
  findChargeAndPageStatement(db, input),
);

/**
 * `findConnectionAndCharge` (not requiring an active connection) and the first page of a read of
 * summaries (`repo.pageText`, the `page` input without its keyset) in one statement: a read whose
 * days need no sync makes one round trip to the database instead of two (issue 44: each
 * statement costs the service a socket write and read, the pool's turn and the driver's parsing,
 * and the database a transaction). `limit` is the budget's; the page's is `pageLimit`.
 */
export async function findChargeAndPage(
  db: Db,
  ids: { developerId: string; userId: string },
  input: { bucketStart: Date; cost: number; limit: number },
  page: PageTextInput,
): Promise<(ConnectionRow & { charged_used: number | null; page: PageOfText }) | undefined> {
  if (page.userId !== ids.userId) throw new Error('findChargeAndPage: the page is of another connection');
  // The page's lead, separator and tail ride along unused: the statement takes its inputs by name.
  const rows = await chargeAndPage(db, {
    ...page,
    developerId: ids.developerId,
    bucketStart: input.bucketStart,
    cost: input.cost,
    limit: input.limit,
    pageLimit: page.limit,
  });
  const row = rows[0];
  if (!row) return undefined;
  const { records, text, last_at, last_key, ...connection } = row;
  return { ...connection, page: pageTextOf({ records, text, last_at, last_key }, page) };
}

/** Buckets of past hours are never read again. */
export async function pruneBuckets(db: Db, before: Date): Promise<number> {
  const result = await db.deleteFrom('rate_buckets').where('bucket_start', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** This hour's read budget use of the developer's busiest users (the dashboard's overview). */
export async function busiestBuckets(
  db: Db,
  developerId: string,
  now: Date,
  limit: number,
): Promise<{ userId: string; used: number }[]> {
  const rows = await db
    .selectFrom('rate_buckets')
    .select(['rate_buckets.user_id', 'rate_buckets.used'])
    .where('rate_buckets.user_id', 'in', userIdsOfDeveloper(developerId))
    .where('rate_buckets.bucket_start', '=', bucketStartOf(now))
    .orderBy('rate_buckets.used', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ userId: row.user_id, used: row.used }));
}
