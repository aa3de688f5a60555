// Reads and rewrites of stored records for enrichers (features/scores): what a batch left in the
// store, the summaries of some days, the athlete profile, and an in-place rewrite of derived fields
// that announces nothing (no change hook, no event), so an enricher never triggers itself.
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.ts';
import type { DataTypeName } from '../../model/index.ts';
import type { Db } from '../../store/db.ts';
import type { JsonObject } from './events.ts';
import type { StoredRecordValue } from './record-loads.ts';
import { ATHLETE_KEY, mergeSamples, type PreparedRecord, prepareRecord } from './records.ts';
import * as repo from './repo.ts';

/** Stored records by identity, samples included, parsed: what an enricher left of a batch. */
export async function storedByKeys(
  trx: Db,
  userId: string,
  type: string,
  records: readonly PreparedRecord[],
) {
  const rows = await repo.recordsByKeys(trx, {
    userId,
    type,
    keys: records.map((record) => record.identityKey),
    withSamples: true,
  });
  return new Map(
    rows.map((row) => [
      row.identity_key,
      JSON.parse(mergeSamples(row.summary, row.samples, row.sample_splices)) as JsonObject,
    ]),
  );
}

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
 * Rewrites stored records in place with `edit` (an enricher's derived fields): validated and
 * stored like any record, but not announced (no change hook, no event), so an enricher never
 * triggers itself. Returns how many were rewritten.
 */
export async function rewriteRecords(
  deps: { clock: Clock; log: Logger },
  trx: Db,
  input: { userId: string; type: DataTypeName; keys: readonly string[] },
  edit: (key: string, record: Record<string, unknown>) => Record<string, unknown>,
): Promise<number> {
  const now = deps.clock.now();
  let rewritten = 0;
  // A few records at a time: they are read with their samples (a day's can be half a MB), and a
  // backfill's rescoring rewrites every day it brought, so all at once grew with the history.
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
      const result = prepareRecord(input.type, edit(row.identity_key, record), now);
      if (result.ok) prepared.push(result.value);
      else
        deps.log.warn(
          { userId: input.userId, type: input.type, problem: result.problem },
          'an enriched record failed validation; kept as it was',
        );
    }
    await repo.upsertRecords(trx, input.userId, input.type, prepared, now);
    rewritten += prepared.length;
  }
  return rewritten;
}
