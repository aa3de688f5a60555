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

/** What is known of a kept file without reading its bytes. */
export type OriginalFileEntry = { summaryId: string; format: 'fit'; byteLength: number; fetchedAt: Date };

/** The connection's kept files, metadata only (no bytes), in summary id order. */
export async function listOriginalFiles(db: Db, connectionId: string): Promise<OriginalFileEntry[]> {
  const rows = await db
    .selectFrom('original_files')
    .select([
      'summary_id',
      'format',
      'fetched_at',
      (eb) => eb.fn<number>('octet_length', ['bytes']).as('size'),
    ])
    .where('connection_id', '=', connectionId)
    .orderBy('summary_id')
    .execute();
  return rows.map((row) => ({
    summaryId: row.summary_id,
    format: row.format,
    byteLength: Number(row.size),
    fetchedAt: new Date(row.fetched_at),
  }));
}

/** Which of these activities of the connection already have their file kept. */
export async function keptSummaryIds(
  db: Db,
  connectionId: string,
  summaryIds: readonly string[],
): Promise<Set<string>> {
  if (summaryIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('original_files')
    .select('summary_id')
    .where('connection_id', '=', connectionId)
    .where('summary_id', 'in', [...summaryIds])
    .execute();
  return new Set(rows.map((row) => row.summary_id));
}
