import type { ColumnType, Generated } from 'kysely';
import type { ParsedReport, ReportType } from './result-types.ts';

/** bigint ids: read as text (`id::text`), so no driver turns them into a number or a BigInt. */
type BigId = ColumnType<string, never, never>;
type Json<T> = ColumnType<T, string, string>;
type NullableJson<T> = ColumnType<T | null, string | null, string | null>;
/** `YYYY-MM-DD`, read as text (see the casts in repo.ts). */
type NullableDay = ColumnType<string | null, string | null, string | null>;

export type SessionStatus = 'processing' | 'completed' | 'failed';
export type StatusEntry = { status: string; timestamp: string; note?: string };
export type FailureReason = {
  code: 'file_unreadable' | 'extraction_failed' | 'standardization_failed' | 'internal';
  message: string;
  retriable: boolean;
};

export interface LabReportSessionsTable {
  id: Generated<BigId>;
  developer_id: string;
  upload_id: string;
  reference_id: string | null;
  status: SessionStatus;
  status_history: Json<StatusEntry[]>;
  media_type: string;
  file_name: string | null;
  input_bytes: number;
  /** Processing attempts started (a job retried after a crash or a fault counts again). */
  attempts: ColumnType<number, number | undefined, number>;
  report: NullableJson<ParsedReport>;
  results_count: number | null;
  report_date: NullableDay;
  error: NullableJson<FailureReason>;
  /** What the read found the file to be (`lab` until a read says otherwise; migration 0043). */
  report_type: ColumnType<ReportType, ReportType | undefined, ReportType>;
  /** The lab-reports API version the upload was served by (X-Terra-Version or the pin). */
  api_version: ColumnType<string, string | undefined, string>;
  /** The webhook event (completed or failed) this session produced. */
  event_id: string | null;
  uploaded_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

/**
 * The uploaded file, sealed with the secret box (AES-256-GCM) under the service key, as bytes
 * (`bytea`: the file's size plus SEALED_BYTES_OVERHEAD). Node's PostgreSQL driver reads a Buffer
 * (a Uint8Array).
 */
export interface LabReportFilesTable {
  session_id: string;
  sealed: Uint8Array;
  /**
   * Rows stored before migration 0023 sealed the file's base64 text rather than its bytes: one more
   * decode after opening.
   */
  legacy_base64: ColumnType<boolean, boolean | undefined, boolean>;
}

/** A developer's pinned lab-reports API version: what requests without X-Terra-Version get. */
export interface LabReportVersionPinsTable {
  developer_id: string;
  api_version: string;
  updated_at: Date;
}

// This module owns these tables: it adds them to the store's `Database` (see store/schema.ts).
declare module '../../store/schema.ts' {
  interface Database {
    lab_report_sessions: LabReportSessionsTable;
    lab_report_files: LabReportFilesTable;
    lab_report_version_pins: LabReportVersionPinsTable;
  }
}
