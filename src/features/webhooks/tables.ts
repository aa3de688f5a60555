import type { ColumnType, Generated } from 'kysely';

/**
 * - `pending`: queued, in flight or waiting for its next attempt.
 * - `delivered`: a 2xx came back.
 * - `rejected`: the receiver refused it (4xx other than 408/429, a redirect) or the destination is
 *   forbidden; not retried.
 * - `failed`: every scheduled attempt failed.
 * - `held`: no destination configured, or the destination is disabled; sent once one is (re)enabled.
 * - `dropped`: a data event for a user that is inactive, deauthenticated or deleted.
 */
export type WebhookEventStatus = 'pending' | 'delivered' | 'rejected' | 'failed' | 'held' | 'dropped';
export const WEBHOOK_EVENT_STATUSES: readonly WebhookEventStatus[] = [
  'pending',
  'delivered',
  'rejected',
  'failed',
  'held',
  'dropped',
];

export type AttemptOutcome = 'delivered' | 'retry' | 'rejected' | 'failed';
export type DestinationStatus = 'active' | 'failing' | 'disabled';

/** The outbox: one row per event, holding the exact bytes that are signed and sent. */
export interface WebhookEventsTable {
  id: string;
  seq: Generated<number>;
  developer_id: string;
  type: string;
  /** Plain text, no foreign key: the log outlives deleted users. */
  user_id: string | null;
  reference: string | null;
  is_data: boolean;
  body: string;
  status: WebhookEventStatus;
  /** Bumped whenever the event is (re)scheduled; a job for an older generation is stale and skipped. */
  generation: ColumnType<number, number | undefined, number>;
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  /** Set while `held` (indexed, so releasing a developer's held events never scans the rest). */
  held_at: Date | null;
  created_at: Date;
  updated_at: Date;
  delivered_at: Date | null;
}

export interface WebhookAttemptsTable {
  id: Generated<number>;
  event_id: string;
  developer_id: string;
  attempt: number;
  url: string;
  attempted_at: Date;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  outcome: AttemptOutcome;
  next_attempt_at: Date | null;
}

/**
 * Columns migration 0003 adds to `developers`. The developers module owns that table's type, so
 * webhook code reads these through `withDestination(db)` rather than widening it for everyone.
 */
export interface DestinationColumns {
  webhook_url: string | null;
  webhook_secret: string;
  webhook_secret_previous: string | null;
  webhook_secret_rotated_at: Date | null;
  webhook_status: ColumnType<DestinationStatus, DestinationStatus | undefined, DestinationStatus>;
  webhook_consecutive_failures: ColumnType<number, number | undefined, number>;
  webhook_failing_since: Date | null;
  webhook_disabled_at: Date | null;
  webhook_last_success_at: Date | null;
  webhook_last_failure_at: Date | null;
}

// This module owns these tables: it adds them to the store's `Database` (see store/schema.ts).
declare module '../../store/schema.ts' {
  interface Database {
    webhook_events: WebhookEventsTable;
    webhook_attempts: WebhookAttemptsTable;
  }
}
