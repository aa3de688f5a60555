import type { OutputFormat } from './formats.ts';

/** A developer's chosen delivery format (no row: `json`). */
export interface DeveloperOutputFormatsTable {
  developer_id: string;
  format: OutputFormat;
  updated_at: Date;
}

// This module owns this table: it adds it to the store's `Database` (see store/schema.ts).
declare module '../../store/schema.ts' {
  interface Database {
    developer_output_formats: DeveloperOutputFormatsTable;
  }
}
