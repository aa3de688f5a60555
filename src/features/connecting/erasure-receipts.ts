// Erasure receipts: the proof, kept after the user is gone, of what a deauthentication deleted.
import { notFound } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { requireUuid } from '../connections/service.ts';
import type { Db } from '../../store/db.ts';

export type ErasureReceipt = {
  id: string;
  user_id: string;
  provider: string;
  deleted_at: string;
  /** Rows deleted per table (the connection's own row included); no health data. */
  deleted_rows: Record<string, number>;
  total_rows: number;
};

export async function insertReceipt(
  trx: Db,
  row: {
    developerId: string;
    userId: string;
    provider: string;
    at: Date;
    deletedRows: Record<string, number>;
  },
): Promise<void> {
  await trx
    .insertInto('erasure_receipts')
    .values({
      id: newId('erasureReceipt'),
      developer_id: row.developerId,
      user_id: row.userId,
      provider: row.provider,
      deleted_at: row.at,
      deleted_rows: JSON.stringify(row.deletedRows),
    })
    .execute();
}

/** Whether the developer holds a receipt for the user (whose id is known to be well formed). */
export async function hasReceipt(db: Db, developerId: string, userId: string): Promise<boolean> {
  const row = await db
    .selectFrom('erasure_receipts')
    .select('id')
    .where('developer_id', '=', developerId)
    .where('user_id', '=', userId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** The developer's receipt for a user id (the latest, should a user id ever be erased twice), or a 404. */
export async function findReceipt(db: Db, developerId: string, userId: string): Promise<ErasureReceipt> {
  const row = await db
    .selectFrom('erasure_receipts')
    .selectAll()
    .where('developer_id', '=', developerId)
    .where('user_id', '=', requireUuid('user_id', userId))
    .orderBy('deleted_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!row) throw notFound(`no erasure receipt for user_id ${userId}`);
  const deleted = row.deleted_rows;
  return {
    id: row.id,
    user_id: row.user_id,
    provider: row.provider,
    deleted_at: new Date(row.deleted_at).toISOString(),
    deleted_rows: deleted,
    total_rows: Object.values(deleted).reduce((sum, n) => sum + n, 0),
  };
}
