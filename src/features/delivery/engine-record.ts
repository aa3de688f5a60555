// Writing a wave: the outcomes, attempt log, the destinations' health, the after-delivery hook
// and the next attempts (retries, diverted events, holds no longer warranted) as one statement in
// the common case, else one transaction. Separate from deciding them (engine-answers.ts): this is
// the engine's only write of outcomes.
import type { Clock } from '../../core/clock.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Db } from '../../store/db.ts';
import { type DestinationRow, recordHealth } from './destination-repo.ts';
import { divertedJobs, type Wave } from './engine-work.ts';
import type { WebhookHooks } from './hooks.ts';
import { firstAttemptJobs, SLOW_DELIVERY_QUEUE } from './outbox.ts';
import { recordOutcomes, recordOutcomesCounted } from './outcome-rows.ts';
import type { WebhookSettings } from './settings.ts';

/** A destination's `last_success_at` is refreshed at most this often, so healthy traffic does not rewrite its row per batch. */
export const SUCCESS_STAMP_MS = 10_000;
/** Destinations whose last stamp this process remembers; past it the memory starts over. */
const REMEMBERED_STAMPS = 10_000;

export function createWaveRecorder(deps: {
  db: Db;
  jobs: JobQueue;
  clock: Clock;
  settings: WebhookSettings;
  hooks: WebhookHooks;
}) {
  const { db, clock, settings } = deps;
  /**
   * By destination id: the `last_success_at` this process last wrote. A batch's destinations are
   * read when it starts (and each second), so without this every wave of the batches that read
   * the row before the stamp saw it unstamped and wrote it again, each as a transaction of its
   * own instead of the one outcome statement: 37 of 169 waves in the bench, with two workers'
   * transactions queueing on the destination's row lock.
   */
  const stamped = new Map<string, number>();

  /** Whether this wave changes the destination's health row (healthy traffic mostly does not). */
  function healthChanges(
    destination: DestinationRow | undefined,
    health: { successes: number; failures: number },
    at: Date,
  ) {
    if (!destination || health.successes === 0) return true;
    const lastStamp = Math.max(destination.last_success_at?.getTime() ?? 0, stamped.get(destination.id) ?? 0);
    return (
      destination.consecutive_failures > 0 ||
      destination.status === 'failing' ||
      at.getTime() - lastStamp > SUCCESS_STAMP_MS
    );
  }

  async function record(wave: Wave, routes: Map<string, DestinationRow>) {
    const at = clock.now();
    const destinations = new Map([...routes.values()].map((row) => [row.id, row]));
    const health = [...wave.health].filter(([destinationId, counts]) =>
      healthChanges(destinations.get(destinationId), counts, at),
    );
    const simple =
      wave.outcomes.every((outcome) => outcome.status !== 'held') &&
      health.length === 0 &&
      wave.retries.size === 0 &&
      wave.diverted.length === 0 &&
      wave.deliveredUsers.length === 0;
    // The common case (everything delivered, nothing else to update) is one statement, no transaction.
    if (simple) {
      await recordOutcomesCounted(db, wave.outcomes);
      return;
    }
    await db.transaction().execute(async (trx) => {
      if (wave.outcomes.some((outcome) => outcome.status === 'held')) {
        // Wait for any change to these destinations in flight (a URL being set, a resume) and see
        // its result: recordOutcomes' next statement then holds only what still has to wait, and
        // whatever a release has already passed over goes out again below.
        await trx
          .selectFrom('webhook_destinations')
          .select('developer_id')
          .where(
            'developer_id',
            'in',
            [...new Set([...destinations.values()].map((row) => row.developer_id))].sort(),
          )
          .orderBy('developer_id')
          .forShare()
          .execute();
      }
      const applied = await recordOutcomes(trx, wave.outcomes);
      const touched = new Map<string, Date>();
      for (const { eventId, userId, at: deliveredAt } of wave.deliveredUsers) {
        const previous = touched.get(userId);
        if (applied.has(eventId) && (!previous || previous < deliveredAt)) touched.set(userId, deliveredAt);
      }
      if (touched.size > 0) await deps.hooks.afterDelivery(trx, touched);
      for (const [destinationId, counts] of health) {
        await recordHealth(trx, destinationId, {
          ...counts,
          at,
          failingAfterMs: settings.failingAfterMs,
          disableAfterMs: settings.disableAfterMs,
        });
      }
      const retries = [...wave.retries].filter(([eventId]) => applied.has(eventId)).map(([, retry]) => retry);
      const diverted = divertedJobs(wave.diverted);
      // Holds the destination no longer warrants (it got a URL meanwhile) go out again instead.
      const unheld = firstAttemptJobs(
        wave.outcomes
          .filter((outcome) => outcome.status === 'held' && !applied.has(outcome.id))
          .map(({ id, generation }) => ({ id, generation })),
      );
      await deps.jobs.sendMany(SLOW_DELIVERY_QUEUE, [...retries, ...diverted, ...unheld], trx);
    });
    // Committed: these destinations' rows now say they succeeded at `at` (or later).
    for (const [destinationId, counts] of health) {
      if (counts.successes === 0) continue;
      if (stamped.size >= REMEMBERED_STAMPS) stamped.clear();
      stamped.set(destinationId, at.getTime());
    }
  }

  return record;
}
