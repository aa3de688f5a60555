// The provider answers kept as fetched (raw_payloads): written beside the records they were read
// into, pruned by age, and read back page by page for a data-subject export.
import type { Db } from '../../store/db.ts';

export async function insertRawPayload(
  db: Db,
  row: { userId: string; provider: string; type: string; fetchedAt: Date } & (
    { payload: unknown } | { payloadJson: string }
  ),
): Promise<void> {
  await db
    .insertInto('raw_payloads')
    .values({
      user_id: row.userId,
      provider: row.provider,
      type: row.type,
      fetched_at: row.fetchedAt,
      payload: 'payloadJson' in row ? row.payloadJson : JSON.stringify(row.payload),
    })
    .execute();
}

export async function pruneRawPayloads(db: Db, before: Date): Promise<number> {
  const result = await db.deleteFrom('raw_payloads').where('fetched_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** One page of a connection's raw payloads in id order after `afterId` (a data-subject export reads them all). */
export async function rawPayloadPage(
  db: Db,
  userId: string,
  afterId: number,
  limit: number,
): Promise<{ id: number; provider: string; type: string; fetched_at: Date; payload: unknown }[]> {
  return db
    .selectFrom('raw_payloads')
    .select(['id', 'provider', 'type', 'fetched_at', 'payload'])
    .where('user_id', '=', userId)
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
}
