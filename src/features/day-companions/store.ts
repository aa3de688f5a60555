// A connection's day companions (provider-kit/day-companions.ts) over the day_companions table,
// and how long they are kept.
import type { Clock } from '../../core/clock.ts';
import type { DayCompanions, DaySummary } from '../../provider-kit/day-companions.ts';
import type { Db } from '../../store/db.ts';
import { DayCompanionsTooLarge } from '../../provider-kit/day-companions.ts';
import { dayEntries, keepSummaries, pruneDays, readSummaries } from './repo.ts';

/**
 * A day's summaries are kept this long after the last of them was written. Companions of a day
 * arrive within minutes to hours of each other (a sync's pings of each type, a backfill's answer
 * of each type), and a day keeps changing while the watch syncs it, that day and the next ones;
 * a month covers that many times over. A day changed later still (an activity edited in the
 * provider's app weeks on) is normalized from what that notification brings, as before. Kept no
 * longer, as raw payloads are not (RAW_PAYLOAD_RETENTION_DAYS, 30 by default): they are the same
 * provider data, and the records are what is stored for good.
 */
export const DAY_COMPANIONS_RETENTION_DAYS = 30;

const keyOf = (kind: string, id: string) => `${kind}\u0000${id}`;

/** The `DataSourceContext.dayCompanions` of a connection. */
export const dayCompanionsOf =
  (db: Db, clock: Clock, connectionId: string) =>
  (type: string): DayCompanions => ({
    async keepAndRead(day: string, summaries: readonly DaySummary[], maxBytes: number) {
      const key = { connectionId, type, day };
      // One per kind and id: of two copies in one batch the later delivered (then the later in it).
      const brought = new Map<string, DaySummary>();
      for (const item of summaries) {
        const known = brought.get(keyOf(item.kind, item.id));
        if (!known || known.deliveredAt <= item.deliveredAt) brought.set(keyOf(item.kind, item.id), item);
      }
      if (brought.size > 0)
        await keepSummaries(
          db,
          key,
          [...brought.values()].map((item) => ({
            kind: item.kind,
            summaryId: item.id,
            deliveredAt: new Date(item.deliveredAt),
            summary: JSON.stringify(item.summary),
          })),
          clock.now(),
        );
      const entries = await dayEntries(db, key);
      const total = entries.reduce((sum, entry) => sum + entry.bytes, 0);
      if (total > maxBytes)
        throw new DayCompanionsTooLarge(`${entries.length} summaries of ${total} bytes, over ${maxBytes}`);
      // Only what this batch did not bring is read (or what a later copy replaced meanwhile).
      const others = entries.filter((entry) => {
        const own = brought.get(keyOf(entry.kind, entry.summaryId));
        return !own || own.deliveredAt < entry.deliveredAt.getTime();
      });
      const read = new Map<string, unknown>();
      await readSummaries(db, key, others, maxBytes, (row) =>
        read.set(keyOf(row.kind, row.summaryId), JSON.parse(row.summary)),
      );
      const byKind: Record<string, unknown[]> = {};
      for (const entry of entries) {
        const id = keyOf(entry.kind, entry.summaryId);
        const summary = read.has(id) ? read.get(id) : brought.get(id)?.summary;
        // Gone since it was listed (its day pruned): not part of the day any more.
        if (summary !== undefined) (byKind[entry.kind] ??= []).push(summary);
      }
      return byKind;
    },
  });

/** Removes the days past their retention (daily maintenance); returns the summaries removed. */
export const pruneDayCompanions = (db: Db, now: Date) =>
  pruneDays(db, new Date(now.getTime() - DAY_COMPANIONS_RETENTION_DAYS * 86_400_000));
