// A connection's day companions (provider-kit/day-companions.ts) over the day_companions table:
// the days' exclusive sections, what a fetch brought kept and the whole day read back, and how
// long they are kept.
import type { DaySummary } from '../../provider-kit/day-companions.ts';
import type { Db } from '../../store/db.ts';
import {
  type DayKey,
  DayCompanionsTooLarge,
  dayEntries,
  keepSummaries,
  pruneDays,
  readSummaries,
} from './repo.ts';

export { DayCompanionsTooLarge, lockDays as enterDaySections } from './repo.ts';
export type { DayKey } from './repo.ts';

/** A summary a fetch brought, held as its JSON text until it is kept (the parsed copy let go). */
export type BroughtSummary = { kind: string; id: string; deliveredAt: number; json: string };

const keyOf = (kind: string, id: string) => `${kind}\u0000${id}`;

/**
 * What a fetch brought of a day, one per kind and id (of two copies the later delivered, then the
 * later listed). Only the copies kept are serialized: one fetch's callbacks may overlap (in the
 * 30-day backfill bench each summary came about three times), and serializing every copy was most
 * of the garbage the day sections added: long strings, allocated straight in the old generation.
 */
export function broughtSummaries(summaries: readonly DaySummary[]): BroughtSummary[] {
  const latest = new Map<string, DaySummary>();
  for (const item of summaries) {
    const known = latest.get(keyOf(item.kind, item.id));
    if (known && known.deliveredAt > item.deliveredAt) continue;
    latest.set(keyOf(item.kind, item.id), item);
  }
  return [...latest.values()].map((item) => ({
    kind: item.kind,
    id: item.id,
    deliveredAt: item.deliveredAt,
    json: JSON.stringify(item.summary) ?? 'null',
  }));
}

/**
 * Keeps what a fetch brought of a day, each replacing an earlier delivered copy of itself, and
 * returns every summary the day now holds, by kind (those it brought included). Throws
 * DayCompanionsTooLarge when the day holds more than `maxBytes` of JSON (what the caller may hold
 * in memory at once). Run inside the day's exclusive section (`enterDaySections`), so no other
 * fetch keeps or writes the day between this read and the caller's write.
 */
export async function keepAndReadDay(
  db: Db,
  at: Date,
  key: DayKey,
  brought: readonly BroughtSummary[],
  maxBytes: number,
): Promise<Record<string, unknown[]>> {
  if (brought.length > 0)
    await keepSummaries(
      db,
      key,
      brought.map((item) => ({
        kind: item.kind,
        summaryId: item.id,
        deliveredAt: new Date(item.deliveredAt),
        summary: item.json,
      })),
      at,
    );
  const own = new Map(brought.map((item) => [keyOf(item.kind, item.id), item]));
  const entries = await dayEntries(db, key);
  const total = entries.reduce((sum, entry) => sum + entry.bytes, 0);
  if (total > maxBytes)
    throw new DayCompanionsTooLarge(`${entries.length} summaries of ${total} bytes, over ${maxBytes}`);
  // Only what this fetch did not bring is read (or what a later copy kept before replaced).
  const others = entries.filter((entry) => {
    const mine = own.get(keyOf(entry.kind, entry.summaryId));
    return !mine || mine.deliveredAt < entry.deliveredAt.getTime();
  });
  const read = new Map<string, string>();
  await readSummaries(db, key, others, maxBytes, (row) =>
    read.set(keyOf(row.kind, row.summaryId), row.summary),
  );
  const byKind: Record<string, unknown[]> = {};
  for (const entry of entries) {
    const id = keyOf(entry.kind, entry.summaryId);
    const json = read.get(id) ?? own.get(id)?.json;
    // Gone since it was listed (its day pruned): not part of the day any more.
    if (json !== undefined) (byKind[entry.kind] ??= []).push(JSON.parse(json));
  }
  return byKind;
}

/**
 * Removes the days none of whose summaries was written in the last `retentionDays` (daily
 * maintenance; DAY_COMPANIONS_RETENTION_DAYS); returns the summaries removed.
 */
export const pruneDayCompanions = (db: Db, now: Date, retentionDays: number) =>
  pruneDays(db, new Date(now.getTime() - retentionDays * 86_400_000));
