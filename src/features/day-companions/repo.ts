// The day_companions table: kept summaries of a connection's days, written a day's summaries at a
// time and read back one day at a time, in pages bounded by bytes.
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../../store/db.ts';
import './tables.ts';

/** A day whose kept summaries are more than the reader may hold. */
export class DayCompanionsTooLarge extends Error {
  override name = 'DayCompanionsTooLarge';
}

export type KeptSummaryRow = {
  kind: string;
  summaryId: string;
  deliveredAt: Date;
  /** JSON text. */
  summary: string;
};

export type DayKey = { connectionId: string; type: string; day: string };

/**
 * The advisory lock of a day's exclusive section: PostgreSQL's two-key form (so it never meets the
 * one-key locks the job queue and the delivery kinds take), the two keys 64 bits of a hash of the
 * connection, type and day, so sections of different days, types or connections do not wait on
 * each other (short of a 64-bit collision, which would only make one wait for the other's section).
 */
export function sectionLockOf(key: DayKey): [number, number] {
  const hash = createHash('sha256').update(`${key.connectionId}\u0000${key.type}\u0000${key.day}`).digest();
  return [hash.readInt32BE(0), hash.readInt32BE(4)];
}

/**
 * Enters the exclusive sections of these days for the rest of `trx` (transaction-level advisory
 * locks, released when it ends), waiting for any other transaction in them. Taken in one order
 * (sorted by lock), so two transactions entering overlapping days never wait on each other in a
 * cycle; a caller takes them before any other lock of its transaction.
 */
export async function lockDays(trx: Db, keys: readonly DayKey[]): Promise<void> {
  if (keys.length === 0) return;
  const locks = [...new Map(keys.map(sectionLockOf).map((lock) => [lock.join(':'), lock])).values()].sort(
    (a, b) => a[0] - b[0] || a[1] - b[1],
  );
  // unnest yields its rows in array order, and each row takes its lock as it is produced.
  await sql`SELECT pg_advisory_xact_lock(k1, k2) FROM unnest(${locks.map((lock) => lock[0])}::int4[], ${locks.map((lock) => lock[1])}::int4[]) AS locks(k1, k2)`.execute(
    trx,
  );
}

/** Bytes of summaries one statement writes or reads (at least one summary). */
const STATEMENT_BYTES = 4 * 1024 ** 2;
/** Rows one statement writes (eight parameters each, well under PostgreSQL's 65 535). */
const STATEMENT_ROWS = 1_000;

/** Splits `items` into runs of at most STATEMENT_ROWS and (past the first of each) STATEMENT_BYTES. */
function byStatement<T>(items: readonly T[], bytesOf: (item: T) => number): T[][] {
  const runs: T[][] = [];
  let run: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = bytesOf(item);
    if (run.length > 0 && (run.length >= STATEMENT_ROWS || bytes + size > STATEMENT_BYTES)) {
      runs.push(run);
      run = [];
      bytes = 0;
    }
    run.push(item);
    bytes += size;
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

/**
 * Writes summaries of one day, each replacing the kept copy of itself unless that one was
 * delivered later (so two fetches of the same summary, racing, keep the provider's later copy).
 */
export async function keepSummaries(
  db: Db,
  key: DayKey,
  rows: readonly KeptSummaryRow[],
  at: Date,
): Promise<void> {
  for (const run of byStatement(rows, (row) => Buffer.byteLength(row.summary))) {
    await db
      .insertInto('day_companions')
      .values(
        run.map((row) => ({
          connection_id: key.connectionId,
          type: key.type,
          day: key.day,
          kind: row.kind,
          summary_id: row.summaryId,
          delivered_at: row.deliveredAt,
          kept_at: at,
          summary: row.summary,
        })),
      )
      .onConflict((conflict) =>
        conflict
          .columns(['connection_id', 'type', 'day', 'kind', 'summary_id'])
          .doUpdateSet((row) => ({
            delivered_at: row.ref('excluded.delivered_at'),
            kept_at: row.ref('excluded.kept_at'),
            summary: row.ref('excluded.summary'),
          }))
          .where((eb) => eb('day_companions.delivered_at', '<=', eb.ref('excluded.delivered_at'))),
      )
      .execute();
  }
}

/** What is kept of one summary, without the summary. */
export type KeptEntry = { kind: string; summaryId: string; deliveredAt: Date; bytes: number };

/** The summaries kept for one day, without their text, in (kind, summary id) order. */
export async function dayEntries(db: Db, key: DayKey): Promise<KeptEntry[]> {
  const rows = await db
    .selectFrom('day_companions')
    .select([
      'kind',
      'summary_id',
      'delivered_at',
      (eb) => eb.fn<number>('octet_length', ['summary']).as('bytes'),
    ])
    .where('connection_id', '=', key.connectionId)
    .where('type', '=', key.type)
    .where('day', '=', key.day)
    .orderBy('kind')
    .orderBy('summary_id')
    .execute();
  return rows.map((row) => ({
    kind: row.kind,
    summaryId: row.summary_id,
    deliveredAt: new Date(row.delivered_at),
    bytes: Number(row.bytes),
  }));
}

/**
 * Hands `each` these summaries of one day as now kept, read in statements of about
 * STATEMENT_BYTES, so what is held beside what `each` keeps is one statement's rows. Throws
 * DayCompanionsTooLarge past `maxBytes` (copies written meanwhile may be larger than listed).
 */
export async function readSummaries(
  db: Db,
  key: DayKey,
  entries: readonly KeptEntry[],
  maxBytes: number,
  each: (row: KeptSummaryRow) => void,
): Promise<void> {
  let read = 0;
  for (const run of byStatement(entries, (entry) => entry.bytes)) {
    const rows = await db
      .selectFrom('day_companions')
      .select(['kind', 'summary_id', 'delivered_at', 'summary'])
      .where('connection_id', '=', key.connectionId)
      .where('type', '=', key.type)
      .where('day', '=', key.day)
      .where((eb) =>
        eb(
          eb.refTuple('kind', 'summary_id'),
          'in',
          run.map((entry) => eb.tuple(entry.kind, entry.summaryId)),
        ),
      )
      .execute();
    for (const row of rows) {
      read += Buffer.byteLength(row.summary);
      if (read > maxBytes) throw new DayCompanionsTooLarge(`summaries of more than ${maxBytes} bytes`);
      each({
        kind: row.kind,
        summaryId: row.summary_id,
        deliveredAt: new Date(row.delivered_at),
        summary: row.summary,
      });
    }
  }
}

/**
 * Removes the days none of whose summaries was written since `before` (a day still being written
 * keeps every summary it has). Returns the summaries removed.
 */
export async function pruneDays(db: Db, before: Date): Promise<number> {
  const result = await sql<never>`
    DELETE FROM day_companions old
    WHERE old.kept_at < ${before}
      AND NOT EXISTS (
        SELECT 1 FROM day_companions fresh
        WHERE fresh.connection_id = old.connection_id AND fresh.type = old.type
          AND fresh.day = old.day AND fresh.kept_at >= ${before}
      )`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/** Summaries kept for a connection (the tests' view of the store). */
export async function countKept(db: Db, connectionId: string): Promise<number> {
  const row = await db
    .selectFrom('day_companions')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('connection_id', '=', connectionId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Where a page of a connection's kept summaries ends: the last row's key. */
export type KeptCursor = { type: string; day: string; kind: string; summaryId: string };

/** One page of a connection's kept summaries in key order after `after` (a data-subject export). */
export async function keptPage(
  db: Db,
  connectionId: string,
  after: KeptCursor | null,
  limit: number,
): Promise<
  { type: string; day: string; kind: string; summary_id: string; delivered_at: Date; summary: string }[]
> {
  let query = db
    .selectFrom('day_companions')
    .select(['type', sql<string>`day::text`.as('day'), 'kind', 'summary_id', 'delivered_at', 'summary'])
    .where('connection_id', '=', connectionId);
  if (after)
    query = query.where((eb) =>
      eb(
        eb.refTuple('type', 'day', 'kind', 'summary_id'),
        '>',
        eb.tuple(after.type, after.day, after.kind, after.summaryId),
      ),
    );
  return query.orderBy('type').orderBy('day').orderBy('kind').orderBy('summary_id').limit(limit).execute();
}
