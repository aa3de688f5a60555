// The connections feature's answers to the webhook engine's hooks (webhooks/hooks.ts; wired in
// runtime/context.ts). The engine never reads `connections`: it asks here, once per batch. Event user
// ids are whatever the emitter gave; one that is not a UUID names no user.
import type { Db } from '../../store/db.ts';
import * as stamps from './stamps-repo.ts';
import { isUuid } from './service.ts';

/**
 * Suppressible events (data about a user) go out only while their user exists and is active.
 * Returns the reason for each event withheld. A user missing when the event is written was never
 * there; one missing at send time was deleted meanwhile, and the log says which.
 */
export async function withheldByConnectionState(
  db: Db,
  events: readonly { id: string; userId: string | null }[],
  moment: 'emit' | 'delivery',
): Promise<Map<string, string>> {
  const activity = await stamps.findActivity(
    db,
    events.flatMap((event) => (event.userId && isUuid(event.userId) ? [event.userId] : [])),
  );
  const missing = moment === 'emit' ? 'user not found' : 'user deleted';
  const withheld = new Map<string, string>();
  for (const { id, userId } of events) {
    const active = userId ? activity.get(userId) : undefined;
    if (active === undefined) withheld.set(id, missing);
    else if (!active) withheld.set(id, 'user inactive');
  }
  return withheld;
}

/** Each user who just received a delivery gets it as `last_webhook_update` (in the recording transaction). */
export async function recordDeliveries(trx: Db, deliveries: ReadonlyMap<string, Date>): Promise<void> {
  await stamps.stampLastWebhookUpdate(
    trx,
    [...deliveries].filter(([userId]) => isUuid(userId)),
  );
}
