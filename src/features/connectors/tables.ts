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

/**
 * Signed notifications already taken in, by the provider's event id or the hash of the body, kept
 * for a retention window: a replayed (or re-sent) notification is acknowledged and not queued again.
 */
export interface ConnectorNotificationReceiptsTable {
  provider: string;
  fingerprint: string;
  received_at: Date;
}

/**
 * One pending refetch per account and data kind for providers that do not sign their
 * notifications: later notifications are folded into `notification` (bumping `version`) instead
 * of queueing more jobs. The job removes the row once it has fetched the version it read.
 */
export interface ConnectorPendingRefetchesTable {
  provider: string;
  provider_user_id: string;
  data_kind: string;
  /** The coalesced data notification (provider-kit `DataNotification`). */
  notification: ColumnType<unknown, string, string>;
  version: number;
  /** When a job was last queued for this row (a row whose job was lost is queued again). */
  queued_at: Date;
}

// This module owns these tables: it adds them to the store's `Database` (see store/schema.ts).
declare module '../../store/schema.ts' {
  interface Database {
    connector_backfills: ConnectorBackfillsTable;
    connector_subscriptions: ConnectorSubscriptionsTable;
    connector_notification_receipts: ConnectorNotificationReceiptsTable;
    connector_pending_refetches: ConnectorPendingRefetchesTable;
  }
}
