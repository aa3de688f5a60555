/** A provider's original file of one activity (migration 0045). */
export interface OriginalFilesTable {
  connection_id: string;
  /** The connection's developer: reads name it, so only the owner's deliveries find a file. */
  developer_id: string;
  /** The activity's `metadata.summary_id` (its identity among the connection's activities). */
  summary_id: string;
  format: 'fit';
  /** The file as the provider gave it (the driver reads a Buffer, a Uint8Array). */
  bytes: Uint8Array;
  fetched_at: Date;
}

// This module owns this table: it adds it to the store's `Database` (see store/schema.ts).
declare module '../../store/schema.ts' {
  interface Database {
    original_files: OriginalFilesTable;
  }
}
