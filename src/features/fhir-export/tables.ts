import type { ColumnType } from 'kysely';

export type ExportStatus = 'in_progress' | 'completed';

/** One bulk export (migration 0028). */
export interface FhirExportsTable {
  id: string;
  developer_id: string;
  /** Null: every user of the developer (`/v2/fhir/$export`). */
  user_id: string | null;
  resource_types: string[];
  since: Date | null;
  output_format: string;
  request_url: string;
  status: ExportStatus;
  units_total: number;
  units_done: ColumnType<number, number | undefined, number>;
  created_at: Date;
  completed_at: Date | null;
  /** When its files are deleted: completion + the retention. */
  expires_at: Date | null;
}

/** One user's share of an export, and where it has got to. */
export interface FhirExportUnitsTable {
  export_id: string;
  user_id: string;
  done: ColumnType<boolean, boolean | undefined, boolean>;
  /** Index into EXPORTED_TYPES of the data type being read. */
  type_index: ColumnType<number, number | undefined, number>;
  /** The last record written of that type (its anchor and identity key); null: from the start. */
  after_at: Date | null;
  after_key: string | null;
  /** Device ids already written for this user (a device appears in many records). */
  devices: ColumnType<string[], string[] | undefined, string[]>;
  patient_written: ColumnType<boolean, boolean | undefined, boolean>;
  next_seq: ColumnType<number, number | undefined, number>;
}

/** NDJSON lines of one user's file of one resource type, in `seq` order. */
export interface FhirExportPartsTable {
  export_id: string;
  user_id: string;
  resource_type: string;
  seq: number;
  lines: number;
  body: string;
}

// This module owns these tables: it adds them to the store's `Database` (see store/schema.ts).
declare module '../../store/schema.ts' {
  interface Database {
    fhir_exports: FhirExportsTable;
    fhir_export_units: FhirExportUnitsTable;
    fhir_export_parts: FhirExportPartsTable;
  }
}
