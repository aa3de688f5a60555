// What bounds the work inbound notifications can cause. Signed ones are taken in once: a receipt
// (by the hash of the body) kept for a retention window turns a replay or a provider's re-send
// into an acknowledgement that queues nothing. Unsigned ones (anyone can post them) coalesce: at
// most one pending refetch per account and data kind, later notifications folded into it.
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { DataNotification } from '../../provider-kit/api.ts';
import type { Db } from '../../store/db.ts';

/** How long a signed notification is remembered: well past any provider's re-send schedule. */
export const RECEIPT_RETENTION_MS = 48 * 3600_000;
/** A pending refetch whose job has not run for this long lost its job; the next notification queues one. */
export const PENDING_REFETCH_STALE_MS = 60 * 60_000;

export const fingerprintOf = (rawBody: Buffer) => createHash('sha256').update(rawBody).digest('hex');

/** Records the receipt; false when this notification was already taken in. */
export async function recordReceipt(trx: Db, provider: string, fingerprint: string, now: Date) {
  const inserted = await trx
    .insertInto('connector_notification_receipts')
    .values({ provider, fingerprint, received_at: now })
    .onConflict((conflict) => conflict.columns(['provider', 'fingerprint']).doNothing())
    .returning('fingerprint')
    .executeTakeFirst();
  return inserted !== undefined;
}

export async function pruneReceipts(db: Db, now: Date): Promise<number> {
  const result = await db
    .deleteFrom('connector_notification_receipts')
    .where('received_at', '<', new Date(now.getTime() - RECEIPT_RETENTION_MS))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export type PendingKey = { provider: string; providerUserId: string; dataKind: string };
export type PendingRefetch = { notification: DataNotification; version: number };

const keyOf = (provider: string, notification: DataNotification): PendingKey => ({
  provider,
  providerUserId: notification.providerUserId,
  dataKind: notification.dataKind,
});

/**
 * Folds `notification` into the account's pending refetch for its kind, creating it if there is
 * none. Returns the key when a job must be queued for it (a new row, or one whose job is stale).
 * Runs in `trx`; the row lock serialises concurrent notifications for the same key.
 */
export async function coalescePending(
  trx: Db,
  provider: string,
  notification: DataNotification,
  coalesce: (pending: DataNotification, next: DataNotification) => DataNotification,
  now: Date,
): Promise<PendingKey | null> {
  const key = keyOf(provider, notification);
  const created = await trx
    .insertInto('connector_pending_refetches')
    .values({
      provider,
      provider_user_id: key.providerUserId,
      data_kind: key.dataKind,
      notification: JSON.stringify(notification),
      version: 1,
      queued_at: now,
    })
    .onConflict((conflict) => conflict.columns(['provider', 'provider_user_id', 'data_kind']).doNothing())
    .returning('version')
    .executeTakeFirst();
  if (created) return key;

  const pending = await trx
    .selectFrom('connector_pending_refetches')
    .select(['notification', 'queued_at'])
    .where('provider', '=', provider)
    .where('provider_user_id', '=', key.providerUserId)
    .where('data_kind', '=', key.dataKind)
    .forUpdate()
    .executeTakeFirst();
  // Taken by its job between the two statements: start a new one.
  if (!pending) return coalescePending(trx, provider, notification, coalesce, now);
  const stale = pending.queued_at.getTime() <= now.getTime() - PENDING_REFETCH_STALE_MS;
  await trx
    .updateTable('connector_pending_refetches')
    .set({
      notification: JSON.stringify(coalesce(pending.notification as DataNotification, notification)),
      version: sql<number>`version + 1`,
      ...(stale ? { queued_at: now } : {}),
    })
    .where('provider', '=', provider)
    .where('provider_user_id', '=', key.providerUserId)
    .where('data_kind', '=', key.dataKind)
    .execute();
  return stale ? key : null;
}

export async function readPending(db: Db, key: PendingKey): Promise<PendingRefetch | undefined> {
  const row = await db
    .selectFrom('connector_pending_refetches')
    .select(['notification', 'version'])
    .where('provider', '=', key.provider)
    .where('provider_user_id', '=', key.providerUserId)
    .where('data_kind', '=', key.dataKind)
    .executeTakeFirst();
  return row ? { notification: row.notification as DataNotification, version: row.version } : undefined;
}

/**
 * Removes the pending refetch if it is still the version that was fetched; false when a newer
 * notification was folded in meanwhile (it needs another run).
 */
export async function settlePending(db: Db, key: PendingKey, version: number): Promise<boolean> {
  const result = await db
    .deleteFrom('connector_pending_refetches')
    .where('provider', '=', key.provider)
    .where('provider_user_id', '=', key.providerUserId)
    .where('data_kind', '=', key.dataKind)
    .where('version', '=', version)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Marks a pending refetch as queued again now (its follow-up job is being sent). */
export async function touchPending(db: Db, key: PendingKey, now: Date): Promise<void> {
  await db
    .updateTable('connector_pending_refetches')
    .set({ queued_at: now })
    .where('provider', '=', key.provider)
    .where('provider_user_id', '=', key.providerUserId)
    .where('data_kind', '=', key.dataKind)
    .execute();
}
