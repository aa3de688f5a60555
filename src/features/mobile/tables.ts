import type { ColumnType } from 'kysely';

type Day = ColumnType<string, string, string>;
/** bigint columns: read as strings by node-postgres, written as numbers. */
type Count = ColumnType<string | number, number | undefined, number>;

export interface MobileConnectionsTable {
  user_id: string;
  /** SHA-256 of the upload token (a bearer secret). */
  upload_token_hash: string;
  platform: string;
  device: ColumnType<unknown, string | null, string | null>;
  created_at: Date;
}

/** An accepted upload waiting for (or being processed by) its normalization job. */
export interface MobileUploadsTable {
  id: string;
  user_id: string;
  body: string;
  received_at: Date;
}

/** One platform record of a user, in the platform-neutral form (provider-kit/mobile/samples.ts). */
export interface MobileSamplesTable {
  user_id: string;
  sample_id: string;
  kind: string;
  local_day: Day;
  start_at: Date;
  end_at: Date;
  /** The MobileSample as JSON text. */
  body: string;
}

/** Local days whose unified records must be rebuilt from the samples. */
export interface MobileDirtyDaysTable {
  user_id: string;
  local_day: Day;
  generation: ColumnType<string | number, number | undefined, number>;
}

export type ImportStatus = 'queued' | 'running' | 'completed' | 'failed';

export interface MobileImportsTable {
  id: string;
  developer_id: string;
  user_id: string;
  format: string;
  status: ImportStatus;
  file_path: string;
  total_bytes: Count | null;
  bytes_read: Count;
  records_read: Count;
  records_imported: Count;
  /** Elements of the document already stored: a resumed run skips this many. */
  checkpoint: Count;
  error: string | null;
  created_at: Date;
  updated_at: Date;
}

// This module owns these tables: it adds them to the store's `Database` (see store/schema.ts).
declare module '../../store/schema.ts' {
  interface Database {
    mobile_connections: MobileConnectionsTable;
    mobile_uploads: MobileUploadsTable;
    mobile_samples: MobileSamplesTable;
    mobile_dirty_days: MobileDirtyDaysTable;
    mobile_imports: MobileImportsTable;
  }
}
