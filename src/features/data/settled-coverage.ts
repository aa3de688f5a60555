// Settled coverage kept in memory, per connection and type, so that a read of days synced long
// ago asks the database nothing about coverage. Safe without invalidation because settled
// coverage only grows: `addCoverage` merges settled ranges into larger ones and never takes a
// settled day back; it disappears only with its connection, whose reads then end in a 404 before
// any coverage is consulted. Another process's additions are simply not known here yet: the
// database is asked, as without this cache. Recent (unsettled) ranges expire, so they stay out.
import type { CoverageRow } from './coverage-repo.ts';

const MAX_KEYS = 50_000;

export function createSettledCoverage() {
  const ranges = new Map<string, CoverageRow[]>();
  const keyOf = (userId: string, type: string) => `${userId}:${type}`;
  return {
    /** The settled ranges known for the connection's type, sorted by start and disjoint. */
    known(userId: string, type: string): readonly CoverageRow[] {
      return ranges.get(keyOf(userId, type)) ?? [];
    },
    /** Adds settled ranges read from the store; overlapping or touching ones are merged. */
    learn(userId: string, type: string, settled: readonly CoverageRow[]): void {
      if (settled.length === 0) return;
      const key = keyOf(userId, type);
      const all = [...(ranges.get(key) ?? []), ...settled].sort((a, b) =>
        a.start_day < b.start_day ? -1 : a.start_day > b.start_day ? 1 : 0,
      );
      const merged: CoverageRow[] = [];
      for (const row of all) {
        const last = merged[merged.length - 1];
        if (last && row.start_day <= last.end_day) {
          if (row.end_day > last.end_day) merged[merged.length - 1] = { ...last, end_day: row.end_day };
        } else merged.push({ start_day: row.start_day, end_day: row.end_day });
      }
      if (!ranges.has(key) && ranges.size >= MAX_KEYS) ranges.delete(ranges.keys().next().value!);
      ranges.set(key, merged);
    },
  };
}
