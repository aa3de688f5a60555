import type { ColumnType, Generated } from 'kysely';
import type { WebhookEnvironment } from './destination-policy.ts';

/**
 * - `pending`: queued, in flight or waiting for its next attempt.
 * - `delivered`: a 2xx came back.
 * - `rejected`: the receiver refused it (4xx other than 408/429, a redirect) or the destination is
 *   forbidden; not retried.
 * - `failed`: every scheduled attempt failed.
 * - `held`: no destination configured, or the destination is disabled; sent once one is (re)enabled.
 * - `dropped`: a suppressible event the suppression hook withheld (a data event for a user that is
 *   inactive or deleted), or dropped by `dropPendingForUser` (the user deauthenticated).
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

/** An event, stored once: what happened, for whom, and the exact bytes every destination is sent. */
export interface EventsTable {
  id: string;
  seq: Generated<number>;
  developer_id: string;
  type: string;
  /** Plain text, no foreign key: the log outlives deleted users. */
  user_id: string | null;
  reference: string | null;
  /** The envelope's `suppressible`: put to the suppression hook, dropped with its user. */
  suppressible: boolean;
  body: string;
  created_at: Date;
}

/** The outbox: one delivery per event × destination, with where it stands. */
export interface DeliveriesTable {
  id: string;
  seq: Generated<number>;
  event_id: string;
  developer_id: string;
  /** Null: the developer's primary webhook. Set: that destination. */
  destination_id: ColumnType<string | null, string | null | undefined, string | null>;
  status: WebhookEventStatus;
  /** Bumped whenever the delivery is (re)scheduled; a job for an older generation is stale and skipped. */
  generation: ColumnType<number, number | undefined, number>;
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  /** Set while `held` (indexed, so releasing a developer's held deliveries never scans the rest). */
  held_at: Date | null;
  /** Pending and not yet queued: the outbox relay (relay.ts) queues its first attempt after commit. */
  awaiting_job: ColumnType<boolean, boolean | undefined, boolean>;
  created_at: Date;
  updated_at: Date;
  delivered_at: Date | null;
  /**
   * The first attempt, when it succeeded (migration 0053): kept here instead of as a row of
   * `delivery_attempts`, and listed with the rows as attempt 1 (`delivered`, no error, no next
   * attempt). Null otherwise: every other attempt is a row.
   */
  first_attempt_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  first_attempt_url: ColumnType<string | null, string | null | undefined, string | null>;
  first_attempt_ms: ColumnType<number | null, number | null | undefined, number | null>;
  first_attempt_status: ColumnType<number | null, number | null | undefined, number | null>;
}

export interface DeliveryAttemptsTable {
  id: Generated<number>;
  delivery_id: string;
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
 * Where a developer's events go: a kind plus its settings, and its health. Each developer has
 * one primary `webhook` (URL and signing secrets in their own columns), and up to
 * MAX_DESTINATIONS more of any kind (secondary webhooks, and the kinds of destination-kinds.ts,
 * whose settings are sealed JSON).
 */
export interface WebhookDestinationsTable {
  id: string;
  developer_id: string;
  kind: ColumnType<string, string | undefined, string>;
  /** The kind's settings as JSON, sealed with the service's encryption key (null for webhooks). */
  settings: ColumnType<string | null, string | null | undefined, string | null>;
  /** A webhook besides the developer's primary one (the one `/v2/webhook` names). */
  secondary: ColumnType<boolean, boolean | undefined, boolean>;
  /** The event types it receives (null: every one). */
  event_types: ColumnType<string[] | null, string[] | null | undefined, string[] | null>;
  /** The developer's label for it (other kinds). */
  name: ColumnType<string | null, string | null | undefined, string | null>;
  /** Which address policy applies (sandbox URLs may point anywhere); the developer's, fixed at creation. */
  environment: WebhookEnvironment;
  /** The webhook's URL; for other kinds, where they deliver with any password left out (the attempt log's `url`). */
  url: string | null;
  /** The webhook's current signing secret, sealed with the service's encryption key (null for other kinds). */
  secret: string | null;
  /** Set while the developer is suspended: its deliveries are held, and released on resume. */
  suspended_at: Date | null;
  status: ColumnType<DestinationStatus, DestinationStatus | undefined, DestinationStatus>;
  consecutive_failures: ColumnType<number, number | undefined, number>;
  failing_since: Date | null;
  disabled_at: Date | null;
  last_success_at: Date | null;
  last_failure_at: Date | null;
  created_at: Generated<Date>;
}

/**
 * Secrets a rotation replaced: each keeps signing, after the current one, until `signs_until`
 * (its overlap, 24 h), so every secret ever handed out signs for as long as the docs promise.
 */
export interface WebhookRetiredSecretsTable {
  id: Generated<number>;
  destination_id: string;
  /** Sealed, like the current one. */
  secret: string;
  retired_at: Date;
  signs_until: Date;
}

/**
 * The stuck sweeper's progress (one row): deliveries created before `first_attempts_swept_to` were
 * looked at for a lost first job (stuck-sweeper.ts, migration 0054).
 */
export interface DeliverySweepsTable {
  id: ColumnType<boolean, boolean | undefined, boolean>;
  first_attempts_swept_to: Date;
}

// This module owns these tables: it adds them to the store's `Database` (see store/schema.ts).
declare module '../../store/schema.ts' {
  interface Database {
    events: EventsTable;
    deliveries: DeliveriesTable;
    delivery_attempts: DeliveryAttemptsTable;
    webhook_destinations: WebhookDestinationsTable;
    webhook_retired_secrets: WebhookRetiredSecretsTable;
    delivery_sweeps: DeliverySweepsTable;
  }
}
