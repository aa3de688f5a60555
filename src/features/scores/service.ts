// Scores Tributary computes (docs/scores.md): registered with the data feature as an enricher, it
// recomputes once per write, in its transaction, the daily and sleep scores of every day the
// write's changes can move (the changed days of every input type and the windows that include
// them), and rewrites the records whose scores changed. Reads and webhook events then carry them
// with the record.
import type { Logger } from 'pino';
import { addDays } from '../../model/time.ts';
import type { DataTypeName } from '../../model/index.ts';
import type { Db } from '../../store/db.ts';
import type { ConnectionRow } from '../connections/service.ts';
import type { DataService, RewrittenRecord, StoredRecordValue, WriteInProgress } from '../data/service.ts';
import { applyDaily, applySleep, scoredPart } from './engine/apply.ts';
import { computeDay, computeSleep, FORWARD_DAYS, HISTORY_DAYS, type History } from './engine/day-scores.ts';
import type { Sex } from './engine/training-load.ts';
import {
  dayFacts,
  type DayFacts,
  type SessionFacts,
  sessionFacts,
  type SleepFacts,
  sleepFacts,
} from './engine/facts.ts';

type ScoresData = Pick<DataService, 'registerEnricher' | 'movedOnDays' | 'storedAthlete' | 'rewriteRecords'>;

type SpanOptions = {
  /** The athlete is being written: its sex is read afresh. */
  athleteChanged?: boolean;
  /** The records a write is about to store (not yet in the store). */
  incoming?: WriteInProgress['incoming'];
};

/** The longest span of changed days recomputed from one read of their history. */
const SPAN_DAYS = 62;

/** Days recomputed per transaction by `recomputeRange`. */
const RECOMPUTE_CHUNK_DAYS = 31;

/** The record types whose changes move scores. */
const INPUT_TYPES: ReadonlySet<string> = new Set(['daily', 'sleep', 'activity']);

/** A connection's history as the formulas read it, from stored summaries. */
export function historyOf(input: {
  dailies: readonly StoredRecordValue[];
  sleeps: readonly StoredRecordValue[];
  activities: readonly StoredRecordValue[];
}): History {
  const days = new Map<string, DayFacts>();
  for (const { record } of input.dailies) {
    const facts = dayFacts(record);
    if (facts) days.set(facts.day, facts);
  }
  const sleeps: SleepFacts[] = [];
  for (const { key, record } of input.sleeps) {
    const facts = sleepFacts(key, record);
    if (facts) sleeps.push(facts);
  }
  const sessions: SessionFacts[] = [];
  for (const { record } of input.activities) {
    const facts = sessionFacts(record);
    if (facts) sessions.push(facts);
  }
  return { days, sleeps, sessions };
}

/** The athlete profile's sex, when it says one (Banister's coefficients differ by sex). */
export function sexOf(athlete: Record<string, unknown> | null): { sex?: Sex } {
  const stated = [athlete?.sex, athlete?.gender].find(
    (value) => typeof value === 'string' && value.trim() !== '',
  );
  if (typeof stated !== 'string') return {};
  if (/^(f|female|woman)$/i.test(stated.trim())) return { sex: 'female' };
  if (/^(m|male|man)$/i.test(stated.trim())) return { sex: 'male' };
  return {};
}

/** What the formulas take from one stored record, remembered by the row version it was read from. */
type KnownFacts = {
  key: string;
  /** The record's local day: a record on a day that may be rewritten is read whole. */
  day: string;
  facts: { type: DataTypeName; value: DayFacts | SleepFacts | SessionFacts | null };
};

function factsOf(type: DataTypeName, key: string, record: Record<string, unknown>): KnownFacts['facts'] {
  if (type === 'daily') return { type, value: dayFacts(record) };
  if (type === 'sleep') return { type, value: sleepFacts(key, record) };
  return { type, value: sessionFacts(record) };
}

const byDayThenKey = (a: KnownFacts, b: KnownFacts) =>
  a.day < b.day ? -1 : a.day > b.day ? 1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0;

/**
 * The history of the stored records' facts and the write's own records' after them. Stored ones
 * in day and key order, however many were remembered and however many read, so a process that
 * remembers the history computes exactly what one that remembers nothing does (which of two
 * nights of a day is the main one, the order a day's sessions are added in).
 */
function historyFrom_(stored: Iterable<KnownFacts>, arriving: Iterable<KnownFacts['facts']>): History {
  const days = new Map<string, DayFacts>();
  const sleeps: SleepFacts[] = [];
  const sessions: SessionFacts[] = [];
  const add = ({ type, value }: KnownFacts['facts']) => {
    if (!value) return;
    if (type === 'daily') days.set((value as DayFacts).day, value as DayFacts);
    else if (type === 'sleep') sleeps.push(value as SleepFacts);
    else sessions.push(value as SessionFacts);
  };
  for (const entry of [...stored].sort(byDayThenKey)) add(entry.facts);
  for (const facts of arriving) add(facts);
  return { days, sleeps, sessions };
}

/**
 * How long a process remembers a connection's stated sex. The athlete profile lives in whichever
 * month it was last fetched, so reading it probes every month of the store (milliseconds on every
 * write of a daily record); a write of the athlete in this process forgets it at once, one in
 * another process is seen within this time (scores already wait for their next change to follow a
 * new profile: docs/scores.md).
 */
const SEX_MEMO_MS = 10 * 60_000;
/** Connections remembered at most (the oldest forgotten first). */
const SEX_MEMO_SIZE = 10_000;

/**
 * Connections whose history facts a process remembers (the last window read of each, by row
 * version): a write reads back only the rows of its window that moved since (with their
 * summaries) and the versions that are gone, instead of months of summaries or a row per day.
 * About 250 small entries per connection.
 */
const FACTS_MEMO_SIZE = 128;

export function createScoresService(deps: { data: ScoresData; log: Logger }) {
  const { data } = deps;
  const sexes = new Map<string, { sex: { sex?: Sex }; until: number }>();
  const factsMemo = new Map<string, ReadonlyMap<string, KnownFacts>>();
  function rememberFacts(userId: string, facts: ReadonlyMap<string, KnownFacts>) {
    factsMemo.delete(userId);
    if (factsMemo.size >= FACTS_MEMO_SIZE) factsMemo.delete(factsMemo.keys().next().value!);
    factsMemo.set(userId, facts);
  }

  /** The connection's stated sex; `fresh` reads the store and remembers nothing (its athlete is being written). */
  async function sexOfUser(trx: Db, userId: string, fresh = false): Promise<{ sex?: Sex }> {
    const now = performance.now();
    const known = fresh ? undefined : sexes.get(userId);
    if (known && known.until > now) return known.sex;
    const sex = sexOf(await data.storedAthlete(trx, userId));
    sexes.delete(userId);
    if (fresh) return sex;
    if (sexes.size >= SEX_MEMO_SIZE) sexes.delete(sexes.keys().next().value!);
    sexes.set(userId, { sex, until: now + SEX_MEMO_MS });
    return sex;
  }

  /**
   * Recomputes the scores a change of `days` can move and rewrites the records whose scores
   * changed; returns them as now stored.
   */
  async function recompute(
    trx: Db,
    userId: string,
    days: readonly string[],
    options: SpanOptions = {},
  ): Promise<{ rewritten: number; records: RewrittenRecord[]; incoming: RewrittenRecord[] }> {
    // Spans of at most SPAN_DAYS, so a batch whose days lie years apart (an import) never holds
    // more than a few months of summaries at once.
    const sorted = [...new Set(days)].sort();
    const records: RewrittenRecord[] = [];
    const incoming: RewrittenRecord[] = [];
    const run = async (span: readonly string[]) => {
      const result = await recomputeSpan(trx, userId, span, options);
      records.push(...result.rewritten);
      incoming.push(...result.incoming);
    };
    let span: string[] = [];
    for (const day of sorted) {
      if (span.length > 0 && day >= addDays(span[0]!, SPAN_DAYS)) {
        await run(span);
        span = [];
      }
      span.push(day);
    }
    if (span.length > 0) await run(span);
    return { rewritten: records.length, records, incoming };
  }

  async function recomputeSpan(
    trx: Db,
    userId: string,
    sorted: readonly string[],
    options: SpanOptions,
  ): Promise<{ rewritten: RewrittenRecord[]; incoming: RewrittenRecord[] }> {
    // A sleep anchored on a day ends the day after; every window that holds a day reaches FORWARD_DAYS on.
    const from = sorted[0]!;
    const to = addDays(sorted.at(-1)!, FORWARD_DAYS + 2);
    const historyFrom = addDays(from, -(HISTORY_DAYS + 2));
    const sleepFrom = addDays(from, -1);
    // Records whose scores may be rewritten: needed whole (their summaries). The rest of the
    // window is history, of which only the facts count: known ones are kept by row version.
    const editable = (type: DataTypeName, day: string) =>
      (type === 'daily' && day >= from) || (type === 'sleep' && day >= sleepFrom);
    const types: DataTypeName[] = ['daily', 'sleep', 'activity'];
    // What the write is storing stands in for what the store holds under the same identity.
    // (A stored record the write moves out of the window leaves it too.)
    const arrivingKeys = new Map(
      types.map((type) => [type, new Set((options.incoming?.(type) ?? []).map((record) => record.key))]),
    );
    const arriving = new Map(
      types.map((type) => [
        type,
        (options.incoming?.(type) ?? []).filter((record) => record.day >= historyFrom && record.day < to),
      ]),
    );
    // Facts remembered of the window's history by row version. Never the records that may be
    // rewritten (read whole always) nor what the write replaces.
    const remembered = [...(factsMemo.get(userId) ?? [])].filter(
      ([, entry]) =>
        entry.day >= historyFrom &&
        entry.day < to &&
        !editable(entry.facts.type, entry.day) &&
        !arrivingKeys.get(entry.facts.type)!.has(entry.key),
    );
    const read = await data.movedOnDays(trx, {
      userId,
      types,
      fromDay: historyFrom,
      toDay: to,
      known: remembered.map(([version]) => version),
    });
    const gone = new Set(read.gone);
    const seen = new Map<string, KnownFacts>();
    for (const [version, entry] of remembered) if (!gone.has(version)) seen.set(version, entry);
    const records = new Map<DataTypeName, StoredRecordValue[]>(types.map((type) => [type, []]));
    for (const row of read.moved) {
      if (arrivingKeys.get(row.type)!.has(row.key)) continue;
      records.get(row.type)!.push({ key: row.key, record: row.record });
      seen.set(row.version, { key: row.key, day: row.day, facts: factsOf(row.type, row.key, row.record) });
    }
    rememberFacts(userId, seen);
    const arrivingFacts = types.flatMap((type) =>
      arriving.get(type)!.map(({ key, record }) => factsOf(type, key, record)),
    );
    for (const type of types) records.get(type)!.push(...arriving.get(type)!);

    const history: History = {
      ...historyFrom_(seen.values(), arrivingFacts),
      ...(await sexOfUser(trx, userId, options.athleteChanged)),
    };
    const daily = { incoming: arrivingKeys.get('daily')! };
    const sleep = { incoming: arrivingKeys.get('sleep')! };
    const dailies = records.get('daily')!;
    const sleeps = records.get('sleep')!;

    const dailyEdits = new Map<string, Record<string, unknown>>();
    for (const { key, record } of dailies) {
      const facts = dayFacts(record);
      if (!facts || facts.day < from) continue;
      const next = applyDaily(record, computeDay(facts.day, history));
      if (scoredPart(next) !== scoredPart(record)) dailyEdits.set(key, next);
    }
    const sleepEdits = new Map<string, Record<string, unknown>>();
    for (const { key, record } of sleeps) {
      const facts = sleepFacts(key, record);
      if (!facts || facts.startDay < sleepFrom) continue;
      const computed = computeSleep(key, history);
      if (!computed) continue;
      const next = applySleep(record, computed);
      if (scoredPart(next) !== scoredPart(record)) sleepEdits.set(key, next);
    }
    // Records being written take their scores before they are stored; stored ones are rewritten.
    const incoming: RewrittenRecord[] = [];
    const fieldsOf = (next: Record<string, unknown>) => ({
      scores: next.scores,
      data_enrichment: next.data_enrichment,
    });
    for (const [edits, type, arrivingKeys] of [
      [dailyEdits, 'daily', daily.incoming],
      [sleepEdits, 'sleep', sleep.incoming],
    ] as const) {
      for (const [key, next] of edits) {
        if (!arrivingKeys.has(key)) continue;
        incoming.push({ type, key, fields: fieldsOf(next) });
        edits.delete(key);
      }
    }
    // Only the scored parts are carried over: the rest of the stored record (its samples) stays.
    const carry =
      (edits: Map<string, Record<string, unknown>>) => (key: string, record: Record<string, unknown>) => {
        const next = edits.get(key);
        return next ? { ...record, scores: next.scores, data_enrichment: next.data_enrichment } : record;
      };
    const rewritten: RewrittenRecord[] = [];
    if (dailyEdits.size > 0)
      for (const written of await data.rewriteRecords(
        trx,
        { userId, type: 'daily', keys: [...dailyEdits.keys()], days: { fromDay: historyFrom, toDay: to } },
        carry(dailyEdits),
      ))
        rewritten.push({ type: 'daily', ...written });
    if (sleepEdits.size > 0)
      for (const written of await data.rewriteRecords(
        trx,
        { userId, type: 'sleep', keys: [...sleepEdits.keys()], days: { fromDay: historyFrom, toDay: to } },
        carry(sleepEdits),
      ))
        rewritten.push({ type: 'sleep', ...written });
    return { rewritten, incoming };
  }

  /**
   * Once per write, before it stores its records: the changed days of every input type,
   * recomputed together from the store with the write's records in place of what they replace.
   * The write's own records get their scores before they are stored (one write of each); stored
   * records whose scores move are rewritten here.
   */
  async function enrich(trx: Db, user: ConnectionRow, write: WriteInProgress) {
    const days = write.changes
      .filter((change) => INPUT_TYPES.has(change.type))
      .flatMap((change) => change.days);
    if (days.length === 0) return [];
    const athleteChanged = write.changes.some((change) => change.type === 'athlete');
    const result = await recompute(trx, user.id, days, { athleteChanged, incoming: write.incoming });
    if (result.rewritten > 0)
      deps.log.debug({ userId: user.id, rewritten: result.rewritten }, 'scores recomputed');
    return result.incoming;
  }

  data.registerEnricher({ enrich });

  /**
   * Recomputes a connection's stored scores on local days [fromDay, toDay), oldest first, a
   * month per transaction: for records stored before scores existed, or computed by an earlier
   * version (`tributary scores recompute`). Returns how many records were rewritten.
   */
  async function recomputeRange(
    db: Db,
    userId: string,
    fromDay: string,
    toDay: string,
  ): Promise<{ rewritten: number }> {
    let rewritten = 0;
    for (let chunk = fromDay; chunk < toDay; chunk = addDays(chunk, RECOMPUTE_CHUNK_DAYS)) {
      const days: string[] = [];
      for (let day = chunk; day < toDay && day < addDays(chunk, RECOMPUTE_CHUNK_DAYS); day = addDays(day, 1))
        days.push(day);
      rewritten += (await db.transaction().execute((trx) => recompute(trx, userId, days))).rewritten;
    }
    return { rewritten };
  }

  return { recompute, recomputeRange };
}

export type ScoresService = ReturnType<typeof createScoresService>;
