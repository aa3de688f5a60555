import type { Db } from '../../store/db.ts';
import './tables.ts';

export type OriginalFileRow = { summaryId: string; bytes: Uint8Array };

/** Stores (or replaces, as a provider's edit replaces the activity) a connection's files. */
export async function upsertOriginalFiles(
  db: Db,
  input: { connectionId: string; developerId: string; files: readonly OriginalFileRow[]; at: Date },
): Promise<void> {
  if (input.files.length === 0) return;
  await db
    .insertInto('original_files')
    .values(
      input.files.map((file) => ({
        connection_id: input.connectionId,
        developer_id: input.developerId,
        summary_id: file.summaryId,
        format: 'fit' as const,
        bytes: file.bytes,
        fetched_at: input.at,
      })),
    )
    .onConflict((conflict) =>
      conflict.columns(['connection_id', 'summary_id']).doUpdateSet((row) => ({
        bytes: row.ref('excluded.bytes'),
        fetched_at: row.ref('excluded.fetched_at'),
      })),
    )
    .execute();
}

/** The original FIT file of one activity, only for the connection's own developer; null when none. */
export async function findOriginalFit(
  db: Db,
  owner: { developerId: string; connectionId: string; summaryId: string },
): Promise<Uint8Array | null> {
  const row = await db
    .selectFrom('original_files')
    .select('bytes')
    .where('connection_id', '=', owner.connectionId)
    .where('developer_id', '=', owner.developerId)
    .where('summary_id', '=', owner.summaryId)
    .where('format', '=', 'fit')
    .executeTakeFirst();
  return row?.bytes ?? null;
}
