// Data access for stored records, raw payloads and sync coverage. Every function takes the
// database or transaction it runs in. JSON columns are read as text (`::text`) so a read can
// pass them through untouched, and date columns as text so no driver turns them into Dates.
import { sql } from 'kysely';
import { dayNumberToIsoDate, MS_PER_DAY } from '../../model/time.ts';
import type { Db } from '../../store/db.ts';
import { type QueryTemplate, queryTemplate } from '../../store/query-template.ts';
import type { RecordFilter } from './params.ts';
import type { PreparedRecord } from './records.ts';

export type StoredRecord = {
  anchor_at: Date;
  identity_key: string;
  summary: string;
  samples: string | null;
  sample_splices: number[] | null;
};

export type Keyset = { at: Date; key: string };

/**
 * Inserts or replaces records by (user, type, identity): a re-sync overwrites, never duplicates.
 * Postgres refuses to update one row twice in a statement, so a batch keeps the last of equal keys.
 */
export async function upsertRecords(
  db: Db,
  userId: string,
  type: string,
  records: readonly PreparedRecord[],
  now: Date,
): Promise<void> {
  if (records.length === 0) return;
  const byKey = new Map<string, PreparedRecord>();
  for (const record of records) byKey.set(record.identityKey, record);
  const unique = [...byKey.values()];
  // Bounded statements: Postgres takes at most 65,535 parameters, and pushes can be large.
  for (let from = 0; from < unique.length; from += UPSERT_ROWS) {
    await upsertSlice(db, userId, type, unique.slice(from, from + UPSERT_ROWS), now);
  }
}

const UPSERT_ROWS = 500;

/**
 * One statement per slice. `data_records` is partitioned by month of `anchor_day` (migration
 * 0025), so its key, and the conflict target, include the day: a record whose anchor moved to
 * another day would insert a second row. The `moved` step deletes the record's rows under any
 * other day first, in the same statement (one snapshot: it cannot see the row the insert adds).
 * It names no days, so it looks in every partition's key index, a probe per partition.
 *
 * What the old single-column key did and this cannot: two transactions writing the same record
 * under two different days at the same moment each miss the other's uncommitted row and both
 * commit. Within a process the sync serializes a connection's type (provider-fetch `serialized`);
 * across processes that race is left open (it needs the provider to move a record's day between
 * two overlapping fetches), and the next write of that record removes the stray row.
 */
async function upsertSlice(db: Db, userId: string, type: string, records: PreparedRecord[], now: Date) {
  const keys = records.map((record) => record.identityKey);
  const days = records.map((record) => record.anchorDay);
  await db
    .with(
      'moved',
      () =>
        // Kysely puts a raw CTE body in the statement as it is: the parentheses are ours.
        sql`(
        DELETE FROM data_records AS stored
        USING unnest(${keys}::text[], ${days}::date[]) AS incoming (identity_key, anchor_day)
        WHERE stored.user_id = ${userId} AND stored.type = ${type}
          AND stored.identity_key = incoming.identity_key AND stored.anchor_day <> incoming.anchor_day)`,
    )
    .insertInto('data_records')
    .values(
      records.map((record) => ({
        user_id: userId,
        type,
        identity_key: record.identityKey,
        anchor_at: record.anchorAt,
        anchor_day: record.anchorDay,
        summary: record.summary,
        samples: record.samples,
        sample_splices: record.splices,
        updated_at: now,
      })),
    )
    .onConflict((conflict) =>
      conflict.columns(['user_id', 'type', 'identity_key', 'anchor_day']).doUpdateSet({
        anchor_at: (eb) => eb.ref('excluded.anchor_at'),
        summary: (eb) => eb.ref('excluded.summary'),
        samples: (eb) => eb.ref('excluded.samples'),
        sample_splices: (eb) => eb.ref('excluded.sample_splices'),
        updated_at: (eb) => eb.ref('excluded.updated_at'),
      }),
    )
    .execute();
}

/** with_samples=false never reads the samples column at all. */
function sampleColumns(withSamples: boolean) {
  return withSamples
    ? [
        sql<string | null>`samples::text`.as('samples'),
        sql<number[] | null>`sample_splices`.as('sample_splices'),
      ]
    : [sql<null>`null`.as('samples'), sql<null>`null`.as('sample_splices')];
}

function inRange(db: Db, userId: string, type: string, filter: RecordFilter) {
  // Days bound every read so the planner prunes the table's month partitions (migration 0025):
  // the window's own days, or for an instant bound the days any record in it can be anchored on.
  return db
    .selectFrom('data_records')
    .where('user_id', '=', userId)
    .where('type', '=', type)
    .where('anchor_at', '>=', filter.fromAt)
    .where('anchor_at', '<', filter.toAt)
    .where('anchor_day', '>=', filter.fromDay ?? dayNumberToIsoDate(utcDay(filter.fromAt.getTime()) - 1))
    .where('anchor_day', '<', filter.toDay ?? dayNumberToIsoDate(utcDay(filter.toAt.getTime()) + 2));
}

/**
 * A record's local day is the date written in its anchor, whose offset is at most 18 hours (the
 * bound params.ts already relies on for date windows): its instant lies from 18 hours before to
 * 42 hours after the UTC midnight of that day, so the day is the instant's UTC day, the day
 * before or the day after.
 */
const utcDay = (ms: number) => Math.floor(ms / MS_PER_DAY);

/** One page of a range in (anchor_at, identity_key) order, after `after`. */
export async function pageRecords(
  db: Db,
  input: {
    userId: string;
    type: string;
    filter: RecordFilter;
    after: Keyset | null;
    limit: number;
    withSamples: boolean;
    /** Only records written at or after this instant (an export's `_since`). */
    since?: Date;
  },
): Promise<StoredRecord[]> {
  const { after, since } = input;
  // Every read runs this: its statement is compiled once per shape (store/query-template.ts).
  const shape = (input.withSamples ? 4 : 0) + (after ? 2 : 0) + (since ? 1 : 0);
  const template = (pageTemplates[shape] ??= pageTemplate(
    input.withSamples,
    after !== null,
    since !== undefined,
  ));
  return template(db, pageInput(input, after, since ?? null));
}

/** A page read's statement parameters: the range's instants and the days that bound them. */
export function pageInput(
  input: { userId: string; type: string; filter: RecordFilter; limit: number },
  after: Keyset | null,
  since: Date | null,
): PageInput {
  const { filter } = input;
  return {
    userId: input.userId,
    type: input.type,
    fromAt: filter.fromAt,
    toAt: filter.toAt,
    fromDay: filter.fromDay ?? dayNumberToIsoDate(utcDay(filter.fromAt.getTime()) - 1),
    toDay: filter.toDay ?? dayNumberToIsoDate(utcDay(filter.toAt.getTime()) + 2),
    afterAt: after?.at ?? null,
    afterKey: after?.key ?? null,
    since,
    limit: input.limit,
  };
}

export type PageInput = {
  userId: string;
  type: string;
  fromAt: Date;
  toAt: Date;
  fromDay: string;
  toDay: string;
  afterAt: Date | null;
  afterKey: string | null;
  since: Date | null;
  limit: number;
};

/** The inputs every page's statement takes (a keyset and `since` add theirs). */
const PAGE_INPUTS = [
  'userId',
  'type',
  'fromAt',
  'toAt',
  'fromDay',
  'toDay',
  'limit',
] as const satisfies readonly (keyof PageInput & string)[];

const pageTemplates: QueryTemplate<PageInput, StoredRecord>[] = [];

function pageTemplate(withSamples: boolean, hasAfter: boolean, hasSince: boolean) {
  const names: (keyof PageInput & string)[] = [...PAGE_INPUTS];
  if (hasAfter) names.push('afterAt', 'afterKey');
  if (hasSince) names.push('since');
  return queryTemplate(names, (db, input: PageInput) => {
    let query = inRange(db, input.userId, input.type, {
      fromAt: input.fromAt,
      toAt: input.toAt,
      fromDay: input.fromDay,
      toDay: input.toDay,
    }).select([
      'anchor_at',
      'identity_key',
      sql<string>`summary::text`.as('summary'),
      ...sampleColumns(withSamples),
    ]);
    if (hasSince) query = query.where('updated_at', '>=', input.since!);
    if (hasAfter) {
      query = query.where((eb) =>
        eb(eb.refTuple('anchor_at', 'identity_key'), '>', eb.tuple(input.afterAt!, input.afterKey!)),
      );
    }
    return query.orderBy('anchor_at').orderBy('identity_key').limit(input.limit);
  });
}

/**
 * One page of summaries (with_samples=false) already joined into the answer's text by the
 * database: `lead`, then (when the page has records) `separator` and the records' JSON joined by
 * commas in (anchor_at, identity_key) order, then `tail` when the page is the range's last (fewer
 * than `limit` records). One row of one text value instead of a row per record: the driver decodes
 * one string per page, only once the whole page has arrived, so no half-read page sits in the heap
 * between socket reads (issue 44: with the service's 2 MB young generation, the rows of the reads
 * in flight were promoted, and scavenges took ~20 % of a read's CPU). `last` is the page's last
 * keyset, to read on from.
 */
export async function pageText(
  db: Db,
  input: {
    userId: string;
    type: string;
    filter: RecordFilter;
    after: Keyset | null;
    limit: number;
    lead: string;
    separator: string;
    tail: string;
  },
): Promise<PageOfText> {
  const { after } = input;
  const template = after ? pageTextAfter : pageTextFirst;
  const [row] = await template(db, {
    ...pageInput(input, after, null),
    lead: input.lead,
    separator: input.separator,
    tail: input.tail,
  });
  return pageTextOf(row, input);
}

export type PageTextInput = PageInput & { lead: string; separator: string; tail: string };
export type PageTextRow = { records: number; text: string; last_at: Date | null; last_key: string | null };

/** The inputs of a first page's text (no keyset): the names a template of it takes. */
export const PAGE_TEXT_INPUTS = [
  ...PAGE_INPUTS,
  'lead',
  'separator',
  'tail',
] as const satisfies readonly (keyof PageTextInput & string)[];

/** The statement of `pageText`: one row (records, text, last_at, last_key) for a page. */
export function pageTextQuery(db: Db, input: PageTextInput, hasAfter: boolean) {
  let page = inRange(db, input.userId, input.type, {
    fromAt: input.fromAt,
    toAt: input.toAt,
    fromDay: input.fromDay,
    toDay: input.toDay,
  }).select(['anchor_at', 'identity_key', sql<string>`summary::text`.as('summary')]);
  if (hasAfter) {
    page = page.where((eb) =>
      eb(eb.refTuple('anchor_at', 'identity_key'), '>', eb.tuple(input.afterAt!, input.afterKey!)),
    );
  }
  page = page.orderBy('anchor_at').orderBy('identity_key').limit(input.limit);
  const order = sql`page.anchor_at, page.identity_key`;
  const reversed = sql`page.anchor_at DESC, page.identity_key DESC`;
  return db.selectFrom(page.as('page')).select([
    sql<number>`count(*)::integer`.as('records'),
    sql<string>`${input.lead}::text
          || CASE WHEN count(*) = 0 THEN '' ELSE ${input.separator}::text || string_agg(page.summary, ',' ORDER BY ${order}) END
          || CASE WHEN count(*) < ${input.limit}::integer THEN ${input.tail}::text ELSE '' END`.as('text'),
    sql<Date | null>`(array_agg(page.anchor_at ORDER BY ${reversed}))[1]`.as('last_at'),
    sql<string | null>`(array_agg(page.identity_key ORDER BY ${reversed}))[1]`.as('last_key'),
  ]);
}

export type PageOfText = { records: number; text: string; last: Keyset | null };

/** A page as `pageText` answers it, from its statement's row (none: an empty page). */
export function pageTextOf(row: PageTextRow | undefined, input: { lead: string; tail: string }): PageOfText {
  return {
    records: row?.records ?? 0,
    text: row?.text ?? `${input.lead}${input.tail}`,
    last: row?.last_at && row.last_key !== null ? { at: row.last_at, key: row.last_key } : null,
  };
}

function pageTextTemplate(hasAfter: boolean): QueryTemplate<PageTextInput, PageTextRow> {
  const names: (keyof PageTextInput & string)[] = [...PAGE_TEXT_INPUTS];
  if (hasAfter) names.push('afterAt', 'afterKey');
  return queryTemplate(names, (db, input: PageTextInput) => pageTextQuery(db, input, hasAfter));
}

const pageTextFirst = pageTextTemplate(false);
const pageTextAfter = pageTextTemplate(true);

/** Identity and serialized size of every record in a range, in order: plans webhook chunks without loading records. */
export async function recordSizes(
  db: Db,
  input: { userId: string; type: string; filter: RecordFilter; withSamples: boolean },
): Promise<{ identity_key: string; bytes: number }[]> {
  const size = input.withSamples
    ? sql<number>`octet_length(summary::text) + coalesce(octet_length(samples::text), 0)`
    : sql<number>`octet_length(summary::text)`;
  return inRange(db, input.userId, input.type, input.filter)
    .select(['identity_key', size.as('bytes')])
    .orderBy('anchor_at')
    .orderBy('identity_key')
    .execute();
}

export async function recordsByKeys(
  db: Db,
  input: { userId: string; type: string; keys: readonly string[]; withSamples: boolean },
): Promise<StoredRecord[]> {
  if (input.keys.length === 0) return [];
  return db
    .selectFrom('data_records')
    .select([
      'anchor_at',
      'identity_key',
      sql<string>`summary::text`.as('summary'),
      ...sampleColumns(input.withSamples),
    ])
    .where('user_id', '=', input.userId)
    .where('type', '=', input.type)
    .where('identity_key', 'in', input.keys)
    .orderBy('anchor_at')
    .orderBy('identity_key')
    .execute();
}

/** Records of a type anchored on a local day in [fromDay, toDay), in day order (small record types). */
export async function recordsOnDays(
  db: Db,
  input: { userId: string; type: string; fromDay: string; toDay: string },
): Promise<{ identity_key: string; summary: string }[]> {
  return db
    .selectFrom('data_records')
    .select(['identity_key', sql<string>`summary::text`.as('summary')])
    .where('user_id', '=', input.userId)
    .where('type', '=', input.type)
    .where('anchor_day', '>=', input.fromDay)
    .where('anchor_day', '<', input.toDay)
    .orderBy('anchor_day')
    .orderBy('identity_key')
    .execute();
}

/** The version of a row as it now stands: its partition, place and writing transaction. */
const rowVersion = sql<string>`tableoid::text || ':' || ctid::text || ':' || xmin::text`;

/**
 * What moved among the records of several types on local days [fromDay, toDay) since a reader saw
 * them under the row versions `known` (a version changes with every write of the record, a second
 * write in the same transaction included): every row of the range under a version not among
 * `known`, with its summary, and every version of `known` no row of the range stands under any
 * more (removed, rewritten, or moved out). One statement, whose answer is the change alone: a
 * reader that keeps what it derived from rows gets a few rows back where the range holds months.
 */
export async function movedOnDays(
  db: Db,
  input: {
    userId: string;
    types: readonly string[];
    fromDay: string;
    toDay: string;
    known: readonly string[];
  },
): Promise<{
  moved: { type: string; identity_key: string; day: string; version: string; summary: string }[];
  gone: string[];
}> {
  if (input.types.length === 0) return { moved: [], gone: [...input.known] };
  const known = [...input.known];
  // The range is scanned once (a CTE named twice is computed once); `gone` rows carry only a version.
  const { rows } = await sql<{
    type: string | null;
    identity_key: string | null;
    day: string | null;
    version: string;
    summary: string | null;
  }>`
    WITH in_range AS (
      SELECT type, identity_key, anchor_day, ${rowVersion} AS version, summary FROM data_records
      WHERE user_id = ${input.userId} AND type = ANY(${[...input.types]}::text[])
        AND anchor_day >= ${input.fromDay} AND anchor_day < ${input.toDay})
    SELECT type, identity_key, anchor_day::text AS day, version, summary::text AS summary
      FROM in_range WHERE version <> ALL(${known}::text[])
    UNION ALL
    SELECT NULL, NULL, NULL, gone, NULL FROM unnest(${known}::text[]) AS gone
      WHERE gone NOT IN (SELECT version FROM in_range)`.execute(db);
  const moved: { type: string; identity_key: string; day: string; version: string; summary: string }[] = [];
  const gone: string[] = [];
  for (const row of rows)
    if (row.type === null) gone.push(row.version);
    else moved.push(row as (typeof moved)[number]);
  return { moved, gone };
}

/**
 * Summaries (samples left out) and the splices that put the samples back, by identity; `days`
 * (local days [fromDay, toDay) the records are known to lie on) spares a probe of every month.
 */
export async function summariesByKeys(
  db: Db,
  input: { userId: string; type: string; keys: readonly string[]; days?: { fromDay: string; toDay: string } },
): Promise<{ identity_key: string; day: string; summary: string; sample_splices: number[] | null }[]> {
  if (input.keys.length === 0) return [];
  let query = db.selectFrom('data_records');
  if (input.days)
    query = query.where('anchor_day', '>=', input.days.fromDay).where('anchor_day', '<', input.days.toDay);
  return query
    .select([
      'identity_key',
      sql<string>`anchor_day::text`.as('day'),
      sql<string>`summary::text`.as('summary'),
      'sample_splices',
    ])
    .where('user_id', '=', input.userId)
    .where('type', '=', input.type)
    .where('identity_key', 'in', input.keys)
    .execute();
}

/**
 * Replaces a stored record's summary (and the splices into it) and leaves its samples as they
 * are: the samples column is not written again, however large.
 */
export async function replaceSummary(
  db: Db,
  input: {
    userId: string;
    type: string;
    key: string;
    day: string;
    summary: string;
    splices: number[] | null;
    now: Date;
  },
): Promise<void> {
  await db
    .updateTable('data_records')
    .set({ summary: input.summary, sample_splices: input.splices, updated_at: input.now })
    .where('user_id', '=', input.userId)
    .where('type', '=', input.type)
    .where('identity_key', '=', input.key)
    .where('anchor_day', '=', input.day)
    .execute();
}

/** The local days on which a connection holds records of a type, oldest first. */
export async function daysWithRecords(db: Db, userId: string, type: string): Promise<string[]> {
  const rows = await db
    .selectFrom('data_records')
    .select(sql<string>`anchor_day::text`.as('day'))
    .distinct()
    .where('user_id', '=', userId)
    .where('type', '=', type)
    .orderBy('day')
    .execute();
  return rows.map((row) => row.day);
}

/** Identity keys and anchor days of a type's records on local days [fromDay, toDay). */
export async function keysOnDays(
  db: Db,
  input: { userId: string; type: string; fromDay: string; toDay: string },
): Promise<{ key: string; day: string }[]> {
  return db
    .selectFrom('data_records')
    .select(['identity_key as key', sql<string>`anchor_day::text`.as('day')])
    .where('user_id', '=', input.userId)
    .where('type', '=', input.type)
    .where('anchor_day', '>=', input.fromDay)
    .where('anchor_day', '<', input.toDay)
    .execute();
}

export async function existingKeys(
  db: Db,
  userId: string,
  type: string,
  keys: readonly string[],
): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const rows = await db
    .selectFrom('data_records')
    .select('identity_key')
    .where('user_id', '=', userId)
    .where('type', '=', type)
    .where('identity_key', 'in', keys)
    .execute();
  return new Set(rows.map((row) => row.identity_key));
}

/** Deletes records by identity; returns the local days they were anchored on. */
export async function deleteRecords(
  db: Db,
  userId: string,
  type: string,
  keys: readonly string[],
): Promise<string[]> {
  if (keys.length === 0) return [];
  const rows = await db
    .deleteFrom('data_records')
    .where('user_id', '=', userId)
    .where('type', '=', type)
    .where('identity_key', 'in', keys)
    .returning(sql<string>`anchor_day::text`.as('day'))
    .execute();
  return [...new Set(rows.map((row) => row.day))].sort();
}

/** A removed record: its identity, its local day and its summary (JSON text, samples left out). */
export type RemovedRecord = { identity_key: string; day: string; summary: string };

const removedColumns = [
  'identity_key',
  sql<string>`anchor_day::text`.as('day'),
  sql<string>`summary::text`.as('summary'),
] as const;

/** Removes records by identity; returns what was removed (ids not stored are no rows). */
export async function removeRecords(
  db: Db,
  input: { userId: string; type: string; keys: readonly string[] },
): Promise<RemovedRecord[]> {
  if (input.keys.length === 0) return [];
  return db
    .deleteFrom('data_records')
    .where('user_id', '=', input.userId)
    .where('type', '=', input.type)
    .where('identity_key', 'in', input.keys)
    .returning(removedColumns)
    .execute();
}

/** Removes the records of local days [startDate, endDate) whose identity is not in `keep`; returns them. */
export async function deleteRecordsOfDaysExcept(
  db: Db,
  input: { userId: string; type: string; startDate: string; endDate: string; keep: readonly string[] },
): Promise<RemovedRecord[]> {
  let query = db
    .deleteFrom('data_records')
    .where('user_id', '=', input.userId)
    .where('type', '=', input.type)
    .where('anchor_day', '>=', input.startDate)
    .where('anchor_day', '<', input.endDate);
  if (input.keep.length > 0) query = query.where('identity_key', 'not in', input.keep);
  return query.returning(removedColumns).execute();
}
