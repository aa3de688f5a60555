// Which database answers a data read: a PostgreSQL streaming replica (DATABASE_READ_URL) when the
// replica can be shown to hold everything the read needs, the primary otherwise.
//
// The rule is causal, not timed: a read goes to the replica only when the replica's own
// `sync_coverage` says every day of the window is settled and synced. A sync commits a range's
// records before the coverage row that records it (provider-fetch `fetchDays`, then `addSynced`),
// and a replica replays commits in order, so a replica that shows the coverage also holds the
// records. A read that had to sync first (its own writes), or whose window reaches today or
// yesterday (still changing, never settled), or that the replica has not caught up with, is
// answered by the primary: reads that must see their own writes stay there.
//
// Replica lag tolerated: settled days still change when a provider pushes a correction or a
// mobile upload rebuilds a day. Until the replica replays such a write (normally milliseconds, as
// long as the replica streams), a read routed there answers what the primary answered just before
// that write: the answer a read a moment earlier would have had. The data event that announces
// the write carries the records itself, so nothing is lost to the developer. Lag is not measured
// here: a replica that stops replaying serves settled days as they were until it is repaired.
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.ts';
import { dayNumberToIsoDate, MS_PER_DAY } from '../../model/time.ts';
import type { Db } from '../../store/db.ts';
import { uncoveredDays } from './provider-fetch.ts';
import * as coverageRepo from './coverage-repo.ts';
import { createSettledCoverage } from './settled-coverage.ts';

export type ReadRouting = {
  /** The database to read `type` records of local days [fromDay, toDay) of the connection from. */
  dbFor(userId: string, type: string, fromDay: string, toDay: string): Promise<Db>;
};

export function createReadRouting(deps: {
  primary: Db;
  replica: Db | undefined;
  clock: Clock;
  log: Logger;
}): ReadRouting {
  const { primary, replica, clock, log } = deps;
  if (!replica || replica === primary) return { dbFor: async () => primary };
  // What the replica has shown to be settled; settled coverage only grows, so this never goes stale.
  const onReplica = createSettledCoverage();
  return {
    async dbFor(userId, type, fromDay, toDay) {
      const yesterday = dayNumberToIsoDate(Math.floor(clock.now().getTime() / MS_PER_DAY) - 1);
      // Days from yesterday on are never settled: no point asking the replica.
      if (fromDay >= toDay || toDay > yesterday) return primary;
      if (uncoveredDays(fromDay, toDay, onReplica.known(userId, type)).length === 0) return replica;
      try {
        onReplica.learn(
          userId,
          type,
          await coverageRepo.settledCoverageIn(replica, { userId, type, fromDay, toDay }),
        );
      } catch (error) {
        // An unreachable replica costs the primary a read, not the client an error.
        log.warn({ err: error }, 'read replica unavailable; reading from the primary');
        return primary;
      }
      return uncoveredDays(fromDay, toDay, onReplica.known(userId, type)).length === 0 ? replica : primary;
    },
  };
}
