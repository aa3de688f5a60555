// What the engine asks of the features whose events it carries, given to it at composition
// (runtime/context.ts). The engine reads and writes only its own tables; whatever it must know or
// change about an event's user goes through these, one call per batch.
import type { Db } from '../../store/db.ts';

/** A suppressible event about to be written (`emit`) or sent (`delivery`). */
export type SuppressionCandidate = { id: string; userId: string | null };

export type WebhookHooks = {
  /**
   * The suppressible events that must not go out, each with the reason the log shows; the
   * others go ahead. Runs in `db` (the emitting transaction at `emit`), once per batch.
   */
  suppress(
    db: Db,
    events: readonly SuppressionCandidate[],
    moment: 'emit' | 'delivery',
  ): Promise<Map<string, string>>;
  /** The users who just received a delivery, each with the latest time, in the recording transaction. */
  afterDelivery(trx: Db, deliveries: ReadonlyMap<string, Date>): Promise<void>;
};
