// Reads and rewrites of stored records for enrichers (features/scores): the summaries of some days,
// the athlete profile, and an in-place rewrite of derived fields that announces nothing (no change
// hook, no event), so an enricher never triggers itself.
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.ts';
import type { DataTypeName } from '../../model/index.ts';
import type { Db } from '../../store/db.ts';
import type { StoredRecordValue } from './record-loads.ts';
import { ATHLETE_KEY, mergeSamples, type PreparedRecord, prepareRecord, schemaProblem } from './records.ts';
import * as repo from './repo.ts';

/** Summaries (samples left out) of a connection's records of a type anchored on local days [fromDay, toDay). */
export async function summariesOnDays(
  trx: Db,
  input: { userId: string; type: DataTypeName; fromDay: string; toDay: string },
): Promise<StoredRecordValue[]> {
  const rows = await repo.recordsOnDays(trx, input);
  return rows.map((row) => ({
    key: row.identity_key,
    record: JSON.parse(row.summary) as Record<string, unknown>,
  }));
}

/** A connection's stored athlete profile (summary), or null: for enrichers that need the person's sex or age. */
export async function storedAthlete(trx: Db, userId: string): Promise<Record<string, unknown> | null> {
  const [row] = await repo.recordsByKeys(trx, {
    userId,
    type: 'athlete',
    keys: [ATHLETE_KEY],
    withSamples: false,
  });
  return row ? (JSON.parse(row.summary) as Record<string, unknown>) : null;
}

/** Records rewritten per read and write (each read with its samples). */
const REWRITE_CHUNK = 8;

/**
 * What moved among a connection's records of several types on local days [fromDay, toDay) since
 * they were read under the row versions `known` (repo.ts): the rows under other versions, parsed,
 * and the known versions gone from the range. One statement.
 */
export async function movedOnDays(
  trx: Db,
  input: {
    userId: string;
    types: readonly DataTypeName[];
    fromDay: string;
    toDay: string;
    known: readonly string[];
  },
): Promise<{
  moved: { type: DataTypeName; key: string; day: string; version: string; record: Record<string, unknown> }[];
  gone: string[];
}> {
  const { moved, gone } = await repo.movedOnDays(trx, input);
  return {
    moved: moved.map((row) => ({
      type: row.type as DataTypeName,
      key: row.identity_key,
      day: row.day,
      version: row.version,
      record: JSON.parse(row.summary) as Record<string, unknown>,
    })),
    gone,
  };
}

/** A rewritten record's top-level fields that changed (undefined: taken out), to apply to a copy of it. */
export type RewrittenFields = Record<string, unknown>;

function changedFields(before: Record<string, unknown>, after: Record<string, unknown>): RewrittenFields {
  const fields: RewrittenFields = {};
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)]))
    if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) fields[key] = after[key];
  return fields;
}

/**
 * The splices of a summary rewritten from `before` to `after` text: each emptied sample array
 * (`[]` at a splice's offset) lies in the text both share at the start or at the end, and moves by
 * the change in length when it is after the edit. Null when an array lies where the texts differ
 * (the edit touched it, or the stored text was not written as the store writes it now).
 */
export function resplice(before: string, after: string, splices: readonly number[] | null): number[] | null {
  if (splices === null || splices.length === 0) return splices === null ? null : [];
  let prefix = 0;
  const shortest = Math.min(before.length, after.length);
  while (prefix < shortest && before.charCodeAt(prefix) === after.charCodeAt(prefix)) prefix++;
  let suffix = 0;
  while (
    suffix < shortest - prefix &&
    before.charCodeAt(before.length - 1 - suffix) === after.charCodeAt(after.length - 1 - suffix)
  )
    suffix++;
  const shift = after.length - before.length;
  const moved: number[] = [];
  for (let index = 0; index < splices.length; index += 3) {
    const at = splices[index]!;
    if (at + 2 <= prefix) moved.push(at);
    else if (at >= before.length - suffix) moved.push(at + shift);
    else return null;
    moved.push(splices[index + 1]!, splices[index + 2]!);
  }
  return moved;
}

/**
 * A record about to be stored with some top-level fields set (an enricher's, before the write
 * stores it): its summary written again around the same samples, validated like any record. Null
 * when the model refuses the result (the caller keeps the record as it was).
 */
export function withFields(
  type: DataTypeName,
  prepared: PreparedRecord,
  fields: RewrittenFields,
  now: Date,
  /** `prepared.summary` already parsed (read, never changed), when the caller holds it. */
  parsedSummary?: Record<string, unknown>,
): { prepared: PreparedRecord } | { problem: string } {
  const summaryRecord = {
    ...(parsedSummary ?? (JSON.parse(prepared.summary) as Record<string, unknown>)),
    ...fields,
  };
  const problem = schemaProblem(type, summaryRecord);
  if (problem) return { problem };
  const summary = JSON.stringify(summaryRecord);
  const splices = resplice(prepared.summary, summary, prepared.splices);
  const record =
    prepared.record === null ? null : { ...(prepared.record as Record<string, unknown>), ...fields };
  if (splices === null && prepared.splices !== null) {
    // The fields' text reached an emptied sample array: the whole record is split again.
    const whole = {
      ...(JSON.parse(mergeSamples(prepared.summary, prepared.samples, prepared.splices)) as Record<
        string,
        unknown
      >),
      ...fields,
    };
    const again = prepareRecord(type, whole, now);
    return again.ok ? { prepared: { ...again.value, record } } : { problem: again.problem };
  }
  return {
    prepared: {
      ...prepared,
      summary,
      splices,
      record,
      bytes: summary.length + (prepared.samples?.length ?? 0),
    },
  };
}

/**
 * Rewrites stored records in place with `edit` (an enricher's derived fields): validated like any
 * record, but not announced (no change hook, no event), so an enricher never triggers itself.
 * `edit` sees the record's summary (its sample arrays empty) and must leave the arrays alone:
 * only the summary is written again, never the samples, so a rewrite costs the size of the
 * summary whatever the record's. Returns the fields each rewritten record changed.
 */
export async function rewriteRecords(
  deps: { clock: Clock; log: Logger },
  trx: Db,
  input: {
    userId: string;
    type: DataTypeName;
    keys: readonly string[];
    /** The local days [fromDay, toDay) the records lie on, when known: read from those months only. */
    days?: { fromDay: string; toDay: string };
  },
  edit: (key: string, record: Record<string, unknown>) => Record<string, unknown>,
): Promise<{ key: string; fields: RewrittenFields }[]> {
  const rows = await repo.summariesByKeys(trx, input);
  const now = deps.clock.now();
  const written: { key: string; fields: RewrittenFields }[] = [];
  const whole: string[] = [];
  for (const row of rows) {
    const record = JSON.parse(row.summary) as Record<string, unknown>;
    const edited = edit(row.identity_key, record);
    const problem = schemaProblem(input.type, edited);
    if (problem) {
      deps.log.warn(
        { userId: input.userId, type: input.type, problem },
        'an enriched record failed validation; kept as it was',
      );
      continue;
    }
    const summary = JSON.stringify(edited);
    const splices = resplice(row.summary, summary, row.sample_splices);
    if (splices === null && row.sample_splices !== null) {
      whole.push(row.identity_key);
      continue;
    }
    await repo.replaceSummary(trx, {
      userId: input.userId,
      type: input.type,
      key: row.identity_key,
      day: row.day,
      summary,
      splices,
      now,
    });
    written.push({ key: row.identity_key, fields: changedFields(record, edited) });
  }
  if (whole.length > 0) written.push(...(await rewriteWhole(deps, trx, { ...input, keys: whole }, edit)));
  return written;
}

/** The rewrite of whole records (samples read and written again), where a summary alone cannot be. */
async function rewriteWhole(
  deps: { clock: Clock; log: Logger },
  trx: Db,
  input: { userId: string; type: DataTypeName; keys: readonly string[] },
  edit: (key: string, record: Record<string, unknown>) => Record<string, unknown>,
): Promise<{ key: string; fields: RewrittenFields }[]> {
  const now = deps.clock.now();
  const written: { key: string; fields: RewrittenFields }[] = [];
  // A few records at a time: they are read with their samples (a day's can be half a MB), and a
  // backfill's rescoring may rewrite every day it brought, so all at once grew with the history.
  for (let start = 0; start < input.keys.length; start += REWRITE_CHUNK) {
    const rows = await repo.recordsByKeys(trx, {
      userId: input.userId,
      type: input.type,
      keys: input.keys.slice(start, start + REWRITE_CHUNK),
      withSamples: true,
    });
    const prepared: PreparedRecord[] = [];
    for (const row of rows) {
      const record = JSON.parse(mergeSamples(row.summary, row.samples, row.sample_splices)) as Record<
        string,
        unknown
      >;
      const edited = edit(row.identity_key, record);
      const result = prepareRecord(input.type, edited, now);
      if (!result.ok) {
        deps.log.warn(
          { userId: input.userId, type: input.type, problem: result.problem },
          'an enriched record failed validation; kept as it was',
        );
        continue;
      }
      prepared.push(result.value);
      written.push({ key: row.identity_key, fields: changedFields(record, edited) });
    }
    await repo.upsertRecords(trx, input.userId, input.type, prepared, now);
  }
  return written;
}
