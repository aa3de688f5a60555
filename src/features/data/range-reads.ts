// The read path's statements over stored records: pages of a range in (anchor_at, identity_key)
// order (keyset pages, bounded by days so the month partitions are pruned), the sizes that plan a
// delivery's chunks, and records by identity. JSON columns are read as text (`::text`) so a read
// can pass them through untouched. The writes and the day-scoped statements of the write path
// stay in repo.ts.
import { sql } from 'kysely';
import { dayNumberToIsoDate, MS_PER_DAY } from '../../model/time.ts';
import type { Db } from '../../store/db.ts';
import { type QueryTemplate, queryTemplate } from '../../store/query-template.ts';
import type { RecordFilter } from './params.ts';
export type StoredRecord = {
  anchor_at: Date;
  identity_key: string;
  summary: string;
  samples: string | null;
  sample_splices: number[] | null;
};

export type Keyset = { at: Date; key: string };

/** with_samples=false never reads the samples column at all (unqualified: a page's outer select takes them too). */
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
  return queryTemplate(names, (db, input: PageInput) =>
    pageRecordsQuery(db, input, { withSamples, hasAfter, hasSince }),
  );
}

/** The statement of `pageRecords` for one shape (its keyset and `since` only when the shape has them). */
export function pageRecordsQuery(
  db: Db,
  input: PageInput,
  shape: { withSamples: boolean; hasAfter: boolean; hasSince: boolean },
) {
  const { withSamples, hasAfter, hasSince } = shape;
  let page = inRange(db, input.userId, input.type, {
    fromAt: input.fromAt,
    toAt: input.toAt,
    fromDay: input.fromDay,
    toDay: input.toDay,
  }).select(
    withSamples
      ? ['anchor_at', 'identity_key', 'summary', 'samples', 'sample_splices']
      : ['anchor_at', 'identity_key', 'summary'],
  );
  if (hasSince) page = page.where('updated_at', '>=', input.since!);
  if (hasAfter) {
    page = page.where((eb) =>
      eb(eb.refTuple('anchor_at', 'identity_key'), '>', eb.tuple(input.afterAt!, input.afterKey!)),
    );
  }
  page = page.orderBy('anchor_at').orderBy('identity_key').limit(input.limit);
  // The json columns become text (an I/O conversion: detoasted, decompressed and copied) only
  // once the page is cut. In the scan, each month partition after the keyset had its first row
  // converted too (the merge of the partitions reads one row ahead in each): a 5-year
  // with_samples page converted up to ~60 records' samples to send 16 (issue 44: 35-62 ms
  // against 9-15 ms a page, EXPLAIN ANALYZE, a page in the read's second year).
  return db
    .selectFrom(page.as('page'))
    .select([
      'page.anchor_at',
      'page.identity_key',
      sql<string>`page.summary::text`.as('summary'),
      ...sampleColumns(withSamples),
    ])
    .orderBy('page.anchor_at')
    .orderBy('page.identity_key');
}

/**
 * One page of summaries (with_samples=false), its records' JSON already joined by commas in
 * (anchor_at, identity_key) order by the database, as the pieces of the answer's text: `lead`,
 * then (when the page has records) `separator` and the joined records, then `tail` when the page
 * is the range's last (fewer than `limit` records). One row of one text value instead of a row
 * per record: the driver decodes one string per page, only once the whole page has arrived, so no
 * half-read page sits in the heap between socket reads (issue 44: with the service's 2 MB young
 * generation, the rows of the reads in flight were promoted, and scavenges took ~20 % of a read's
 * CPU). `lead`, `separator` and `tail` are put around it here, not by the database: each `||`
 * there copied the page's text once more in the backend (issue 44: ~0.1 ms of a 30-day read's
 * 0.8 ms statement). `last` is the page's last keyset, to read on from.
 */
export async function pageText(db: Db, input: PageTextRequest): Promise<PageOfText> {
  const { after } = input;
  const template = after ? pageTextAfter : pageTextFirst;
  const [row] = await template(db, pageInput(input, after, null));
  return pageTextOf(row, input);
}

/** What `pageText` reads (a range's page after `after`) and the answer's text around it. */
export type PageTextRequest = {
  userId: string;
  type: string;
  filter: RecordFilter;
  after: Keyset | null;
  limit: number;
} & PageEnvelope;

/** The answer's text around a page: before it, before its records, after the range's last page. */
export type PageEnvelope = { lead: string; separator: string; tail: string };

/** A first page's statement inputs and the text around it (`findChargeAndPage`'s page). */
export type PageTextInput = PageInput & PageEnvelope;
export type PageTextRow = {
  records: number;
  text: string | null;
  last_at: Date | null;
  last_key: string | null;
};

/** The inputs of a first page's text (no keyset): the names a template of it takes. */
export const PAGE_TEXT_INPUTS = PAGE_INPUTS;

/** The statement of `pageText`: one row (records, text, last_at, last_key) for a page. */
export function pageTextQuery(db: Db, input: PageInput, hasAfter: boolean) {
  let page = inRange(db, input.userId, input.type, {
    fromAt: input.fromAt,
    toAt: input.toAt,
    fromDay: input.fromDay,
    toDay: input.toDay,
  }).select(['anchor_at', 'identity_key', 'summary']);
  if (hasAfter) {
    page = page.where((eb) =>
      eb(eb.refTuple('anchor_at', 'identity_key'), '>', eb.tuple(input.afterAt!, input.afterKey!)),
    );
  }
  page = page.orderBy('anchor_at').orderBy('identity_key').limit(input.limit);
  const order = sql`page.anchor_at, page.identity_key`;
  const reversed = sql`page.anchor_at DESC, page.identity_key DESC`;
  // The json column becomes text (an I/O conversion: decompressed and copied) only once the page
  // is cut, so the page's sort carries the stored values rather than their text (issue 44: with
  // the `||` gone, ~0.1 ms of a 30-day read's ~0.7 ms statement, backend CPU).
  return db
    .selectFrom(page.as('page'))
    .select([
      sql<number>`count(*)::integer`.as('records'),
      sql<string | null>`string_agg(page.summary::text, ',' ORDER BY ${order})`.as('text'),
      sql<Date | null>`(array_agg(page.anchor_at ORDER BY ${reversed}))[1]`.as('last_at'),
      sql<string | null>`(array_agg(page.identity_key ORDER BY ${reversed}))[1]`.as('last_key'),
    ]);
}

/**
 * A page's text as pieces in answer order, none empty: written one after the other (or into one
 * buffer, stream.ts `answerBytes`) they are the page's part of the answer.
 */
export type PageOfText = { records: number; pieces: string[]; last: Keyset | null };

/** A page as `pageText` answers it, from its statement's row (none: an empty page). */
export function pageTextOf(
  row: PageTextRow | undefined,
  input: PageEnvelope & { limit: number },
): PageOfText {
  const records = row?.records ?? 0;
  const pieces: string[] = [];
  if (input.lead !== '') pieces.push(input.lead);
  if (records > 0 && row?.text) {
    if (input.separator !== '') pieces.push(input.separator);
    pieces.push(row.text);
  }
  if (records < input.limit && input.tail !== '') pieces.push(input.tail);
  return {
    records,
    pieces,
    last: row?.last_at && row.last_key !== null ? { at: row.last_at, key: row.last_key } : null,
  };
}

function pageTextTemplate(hasAfter: boolean): QueryTemplate<PageInput, PageTextRow> {
  const names: (keyof PageInput & string)[] = [...PAGE_TEXT_INPUTS];
  if (hasAfter) names.push('afterAt', 'afterKey');
  return queryTemplate(names, (db, input: PageInput) => pageTextQuery(db, input, hasAfter));
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
