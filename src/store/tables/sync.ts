import type { ColumnType } from 'kysely';

/** `YYYY-MM-DD`: date columns are read and written as text (cast in the queries). */
type Day = ColumnType<string, string, string>;

export interface ConnectorTokenHealthTable {
  user_id: string;
  consecutive_failures: number;
  last_error: string | null;
  last_failure_at: Date | null;
  refreshed_at: Date | null;
}

export interface ConnectorRequestBudgetTable {
  scope: string;
  window_seconds: number;
  window_start: Date;
  used: number;
}

export interface ConnectorProviderPausesTable {
  provider: string;
  until: Date;
  reason: string;
}

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

export interface ConnectorTables {
  connector_token_health: ConnectorTokenHealthTable;
  connector_request_budget: ConnectorRequestBudgetTable;
  connector_provider_pauses: ConnectorProviderPausesTable;
  connector_backfills: ConnectorBackfillsTable;
  connector_subscriptions: ConnectorSubscriptionsTable;
}
