import type { ColumnType } from 'kysely';

/** `YYYY-MM-DD`: date columns are read and written as text (cast in the queries). */
type Day = ColumnType<string, string, string>;

/** `running` (a chunk job is queued or working), `waiting` (rate-limited), `done`, `failed`, `stopped`. */
export type BackfillStatus = 'running' | 'waiting' | 'done' | 'failed' | 'stopped';

export interface ConnectorBackfillsTable {
  user_id: string;
  type: string;
  start_day: Day;
  end_day: Day;
  cursor_day: Day;
  chunk_days: number;
  status: BackfillStatus;
  chunks_done: number;
  chunks_total: number;
  last_error: string | null;
  updated_at: Date;
}

export interface ConnectorSubscriptionsTable {
  provider: string;
  external_id: string;
  data_type: string | null;
  event_type: string | null;
  callback_url: string;
  expires_at: Date | null;
  created_at: Date;
}

// This module owns these tables: it adds them to the store's `Database` (see store/schema.ts).
declare module '../../store/schema.ts' {
  interface Database {
    connector_backfills: ConnectorBackfillsTable;
    connector_subscriptions: ConnectorSubscriptionsTable;
  }
}
