// A connection's day companions (provider-kit/day-companions.ts) over the day_companions table,
// and how long they are kept.
import type { Clock } from '../../core/clock.ts';
import type { DayCompanions, DaySummary } from '../../provider-kit/day-companions.ts';
import type { Db } from '../../store/db.ts';
import { type KeptSummaryRow, keepSummaries, pruneDays, readDay } from './repo.ts';

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

/** The `DataSourceContext.dayCompanions` of a connection. */
export const dayCompanionsOf =
  (db: Db, clock: Clock, connectionId: string) =>
  (type: string): DayCompanions => ({
    async keep(day: string, summaries: readonly DaySummary[]) {
      if (summaries.length === 0) return;
      // One row per kind and id: of two copies in one batch the later in it wins, as the store would.
      const latest = new Map<string, KeptSummaryRow>();
      for (const item of summaries) {
        const key = `${item.kind}\u0000${item.id}`;
        const kept = latest.get(key);
        if (kept && kept.deliveredAt.getTime() > item.deliveredAt) continue;
        latest.set(key, {
          kind: item.kind,
          summaryId: item.id,
          deliveredAt: new Date(item.deliveredAt),
          summary: JSON.stringify(item.summary),
        });
      }
      await keepSummaries(db, { connectionId, type, day }, [...latest.values()], clock.now());
    },
    async read(day: string, maxBytes: number) {
      const byKind: Record<string, unknown[]> = {};
      await readDay(db, { connectionId, type, day }, maxBytes, (row) => {
        (byKind[row.kind] ??= []).push(JSON.parse(row.summary));
      });
      return byKind;
    },
  });

/** Removes the days past their retention (daily maintenance); returns the summaries removed. */
export const pruneDayCompanions = (db: Db, now: Date) =>
  pruneDays(db, new Date(now.getTime() - DAY_COMPANIONS_RETENTION_DAYS * 86_400_000));
