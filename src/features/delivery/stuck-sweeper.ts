// Re-enqueues pending events whose delivery job is gone. An event is pending exactly while a job
// for its current generation should exist: the outbox writes both in one transaction, and every
// attempt records the next job with its outcome. A job can still be lost for good: a batch that
// fails on every one of the queue's retries (about 25 minutes of them, e.g. through a database
// outage) ends `failed` in the queue while its events stay pending. An event whose attempt came due
// longer ago than WEBHOOK_STUCK_AFTER is taken to be such an event and queued again, under a new
// generation, so the old job, should it run after all, does nothing and no second chain starts.
//
// No index tells pending deliveries apart: one would name the status (or the time of the last
// write), which every outcome changes, and keep each outcome from being a HOT update (migration
// 0054). A pass finds deliveries due again (retries, resends, releases, earlier sweeps) by their
// `next_attempt_at`, and those still awaiting a first attempt by walking the creations since the
// last pass's walk ended (`delivery_sweeps`): each delivery is looked at about once, however many
// there are.
import type { Clock } from '../../core/clock.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Db } from '../../store/db.ts';
import { DELIVERY_QUEUE, type DeliveryJob, firstAttemptJobs, SLOW_DELIVERY_QUEUE } from './outbox.ts';
import {
  firstAttemptsSweptTo,
  markFirstAttemptsSwept,
  rescheduleStuckFirstAttempts,
  rescheduleStuckRetries,
  type StuckDelivery,
} from './delivery-moves.ts';
import { MAX_DELIVERY_ATTEMPTS } from './retry-policy.ts';
import type { NoPayload } from '../../jobs/queues.ts';

export const STUCK_SWEEP_QUEUE = 'webhooks.sweep-stuck';

/** Deliveries rescheduled per transaction; a pass loops until none is left. */
const SLICE = 500;

/**
 * How far back of where the last walk ended a pass walks again: a delivery that row locks kept
 * from that walk (SKIP LOCKED), or whose creating process's clock runs behind the sweeper's, is
 * looked at once more. A delivery committed up to WEBHOOK_STUCK_AFTER after its creation is seen
 * regardless: no pass walks past creations that recent.
 */
const REWALK_MS = 5 * 60_000;

export type StuckSweepDeps = { db: Db; jobs: JobQueue; clock: Clock };

/** Returns how many events were queued again. */
export async function sweepStuckEvents(deps: StuckSweepDeps, stuckAfterMs: number): Promise<number> {
  const { db } = deps;
  const dueBefore = new Date(deps.clock.now().getTime() - stuckAfterMs);
  let total = 0;
  for (;;) {
    const slice = await db.transaction().execute(async (trx) => {
      const rows = await rescheduleStuckRetries(trx, dueBefore, deps.clock.now(), SLICE);
      await queueAgain(deps.jobs, trx, rows);
      return rows.length;
    });
    total += slice;
    if (slice < SLICE) break;
  }
  let from = new Date((await firstAttemptsSweptTo(db)).getTime() - REWALK_MS);
  for (;;) {
    const slice = await db.transaction().execute(async (trx) => {
      const taken = await rescheduleStuckFirstAttempts(trx, from, dueBefore, deps.clock.now(), SLICE);
      await queueAgain(deps.jobs, trx, taken.rows);
      return taken;
    });
    total += slice.rows.length;
    if (slice.rows.length < SLICE || slice.lastCreatedAt === null) break;
    from = slice.lastCreatedAt;
  }
  await markFirstAttemptsSwept(db, dueBefore);
  return total;
}

/**
 * The new jobs of swept deliveries. A first attempt goes where first attempts go; a retry to the
 * slow lane, as the next try of its round. Which try that was is not stored; the attempts made so
 * far bound it from above, so the rest of the schedule is never longer than it would have been.
 */
async function queueAgain(jobs: JobQueue, trx: Db, rows: readonly StuckDelivery[]): Promise<void> {
  const first = rows.filter((row) => row.attempts === 0);
  const retries = rows.filter((row) => row.attempts > 0);
  await jobs.sendMany(DELIVERY_QUEUE, firstAttemptJobs(first), trx);
  await jobs.sendMany(
    SLOW_DELIVERY_QUEUE,
    retries.map((row) => ({
      data: {
        events: [[row.id, row.generation]],
        try: Math.min(row.attempts + 1, MAX_DELIVERY_ATTEMPTS),
      } satisfies DeliveryJob,
    })),
    trx,
  );
}

// The queues this module owns, with their payloads (see jobs/queues.ts).
declare module '../../jobs/queues.ts' {
  interface QueuePayloads {
    [STUCK_SWEEP_QUEUE]: NoPayload;
  }
}
