// Re-enqueues pending events whose delivery job is gone. An event is pending exactly while a job
// for its current generation should exist: the outbox writes both in one transaction, and every
// attempt records the next job with its outcome. A job can still be lost for good: a batch that
// fails on every one of the queue's retries (about 25 minutes of them, e.g. through a database
// outage) ends `failed` in the queue while its events stay pending. An event whose attempt came due
// longer ago than WEBHOOK_STUCK_AFTER is taken to be such an event and queued again, under a new
// generation, so the old job, should it run after all, does nothing and no second chain starts.
import type { Clock } from '../../core/clock.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Db } from '../../store/db.ts';
import { DELIVERY_QUEUE, type DeliveryJob, EVENTS_PER_JOB, SLOW_DELIVERY_QUEUE } from './outbox.ts';
import { rescheduleStuck } from './delivery-moves.ts';
import { MAX_DELIVERY_ATTEMPTS } from './retry-policy.ts';
import type { NoPayload } from '../../jobs/queues.ts';

export const STUCK_SWEEP_QUEUE = 'webhooks.sweep-stuck';

/** Events rescheduled per transaction; a pass loops until none is left. */
const SLICE = 500;

export type StuckSweepDeps = { db: Db; jobs: JobQueue; clock: Clock };

/** Returns how many events were queued again. */
export async function sweepStuckEvents(deps: StuckSweepDeps, stuckAfterMs: number): Promise<number> {
  let total = 0;
  for (;;) {
    const slice = await deps.db.transaction().execute(async (trx) => {
      const now = deps.clock.now();
      const rows = await rescheduleStuck(trx, new Date(now.getTime() - stuckAfterMs), now, SLICE);
      // A first attempt goes where first attempts go; a retry to the slow lane, as the next try of
      // its round. Which try that was is not stored; the attempts made so far bound it from above,
      // so the rest of the schedule is never longer than it would have been.
      const first = rows.filter((row) => row.attempts === 0);
      const retries = rows.filter((row) => row.attempts > 0);
      const firstJobs: { data: DeliveryJob }[] = [];
      for (let i = 0; i < first.length; i += EVENTS_PER_JOB) {
        const events = first
          .slice(i, i + EVENTS_PER_JOB)
          .map((row): [string, number] => [row.id, row.generation]);
        firstJobs.push({ data: { events, try: 1 } });
      }
      await deps.jobs.sendMany(DELIVERY_QUEUE, firstJobs, trx);
      await deps.jobs.sendMany(
        SLOW_DELIVERY_QUEUE,
        retries.map((row) => ({
          data: {
            events: [[row.id, row.generation]],
            try: Math.min(row.attempts + 1, MAX_DELIVERY_ATTEMPTS),
          } satisfies DeliveryJob,
        })),
        trx,
      );
      return rows.length;
    });
    total += slice;
    if (slice < SLICE) return total;
  }
}

// The queues this module owns, with their payloads (see jobs/queues.ts).
declare module '../../jobs/queues.ts' {
  interface QueuePayloads {
    [STUCK_SWEEP_QUEUE]: NoPayload;
  }
}
