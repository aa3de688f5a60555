// Storage of mobile imports (imports.ts): the row of each, and the checkpoint a batch stores in the
// same statement as its samples (samples-repo.ts).
import { sql } from 'kysely';
import type { Db } from '../../store/db.ts';
import type { ImportStatus } from './tables.ts';

/**
 * Where an import stands after a batch: written by the batch's own statement (`upsertSamples`), so
 * the samples and the checkpoint after them commit together.
 */
export type ImportCheckpoint = {
  importId: string;
  bytesRead: number;
  recordsRead: number;
  recordsImported: number;
  now: Date;
};

/**
 * The checkpoint's update. Its commit does not wait for the WAL to reach the disk
 * (`synchronous_commit` off for this transaction alone, set inside the statement so that a batch
 * is one round trip): losing the last commits to a database crash only makes the import resume
 * from an earlier checkpoint, and the samples it stores again change nothing.
 */
export const checkpointUpdate = (checkpoint: ImportCheckpoint) => sql`
  UPDATE mobile_imports SET
    bytes_read = ${checkpoint.bytesRead}, records_read = ${checkpoint.recordsRead},
    records_imported = ${checkpoint.recordsImported}, checkpoint = ${checkpoint.recordsRead},
    updated_at = ${checkpoint.now}
  WHERE id = ${checkpoint.importId} AND set_config('synchronous_commit', 'off', true) IS NOT NULL`;

export async function storeCheckpoint(db: Db, checkpoint: ImportCheckpoint): Promise<void> {
  await checkpointUpdate(checkpoint).execute(db);
}

export type ImportRow = {
  id: string;
  developer_id: string;
  user_id: string;
  format: string;
  status: ImportStatus;
  file_path: string;
  total_bytes: number | null;
  bytes_read: number;
  records_read: number;
  records_imported: number;
  checkpoint: number;
  error: string | null;
};

const asNumber = (value: string | number | null) => (value === null ? null : Number(value));

export async function insertImport(
  db: Db,
  row: {
    id: string;
    developerId: string;
    userId: string;
    format: string;
    filePath: string;
    totalBytes: number;
    now: Date;
  },
): Promise<void> {
  await db
    .insertInto('mobile_imports')
    .values({
      id: row.id,
      developer_id: row.developerId,
      user_id: row.userId,
      format: row.format,
      status: 'queued',
      file_path: row.filePath,
      total_bytes: row.totalBytes,
      error: null,
      created_at: row.now,
      updated_at: row.now,
    })
    .execute();
}

export async function findImport(db: Db, id: string): Promise<ImportRow | undefined> {
  const row = await db.selectFrom('mobile_imports').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) return undefined;
  return {
    id: row.id,
    developer_id: row.developer_id,
    user_id: row.user_id,
    format: row.format,
    status: row.status,
    file_path: row.file_path,
    total_bytes: asNumber(row.total_bytes),
    bytes_read: Number(row.bytes_read),
    records_read: Number(row.records_read),
    records_imported: Number(row.records_imported),
    checkpoint: Number(row.checkpoint),
    error: row.error,
  };
}

export async function updateImport(
  db: Db,
  id: string,
  changes: Partial<{
    status: ImportStatus;
    total_bytes: number;
    bytes_read: number;
    records_read: number;
    records_imported: number;
    checkpoint: number;
    error: string | null;
  }>,
  now: Date,
): Promise<void> {
  await db
    .updateTable('mobile_imports')
    .set({ ...changes, updated_at: now })
    .where('id', '=', id)
    .execute();
}
