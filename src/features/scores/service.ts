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

type ScoresData = Pick<
  DataService,
  'registerEnricher' | 'summariesOfTypesOnDays' | 'storedAthlete' | 'rewriteRecords'
>;

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

export function createScoresService(deps: { data: ScoresData; log: Logger }) {
  const { data } = deps;
  const sexes = new Map<string, { sex: { sex?: Sex }; until: number }>();

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
    // One read of all three types' summaries.
    const rows = await data.summariesOfTypesOnDays(trx, {
      userId,
      types: ['daily', 'sleep', 'activity'],
      fromDay: historyFrom,
      toDay: to,
    });
    // What the write is storing stands in for what the store holds under the same identity.
    const arriving = (type: DataTypeName) =>
      (options.incoming?.(type) ?? []).filter((record) => record.day >= historyFrom && record.day < to);
    const ofType = (type: DataTypeName) => {
      const incoming = arriving(type);
      const replaced = new Set(incoming.map((record) => record.key));
      const stored = rows.filter((row) => row.type === type && !replaced.has(row.key));
      return { all: [...stored, ...incoming], incoming: replaced };
    };
    const daily = ofType('daily');
    const sleep = ofType('sleep');
    const dailies = daily.all;
    const sleeps = sleep.all;
    const activities = ofType('activity').all;
    const history = {
      ...historyOf({ dailies, sleeps, activities }),
      ...(await sexOfUser(trx, userId, options.athleteChanged)),
    };

    const dailyEdits = new Map<string, Record<string, unknown>>();
    for (const { key, record } of dailies) {
      const facts = dayFacts(record);
      if (!facts || facts.day < from) continue;
      const next = applyDaily(record, computeDay(facts.day, history));
      if (scoredPart(next) !== scoredPart(record)) dailyEdits.set(key, next);
    }
    const sleepEdits = new Map<string, Record<string, unknown>>();
    const sleepFrom = addDays(from, -1);
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
