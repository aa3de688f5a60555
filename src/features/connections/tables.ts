import type { ColumnType, Generated } from 'kysely';

/**
 * - `pending`: auth link made, consent not completed (not budgeted, gets no data).
 * - `active`: connected.
 * - `broken`: token refresh failed for good (`connection_error` sent); needs reconnecting.
 * - `revoked`: the provider told us access was withdrawn (`access_revoked` sent).
 */
/** A connection (ARCHITECTURE.md, Glossary; the wire calls it a user) goes through these. */
export type ConnectionStatus = 'pending' | 'active' | 'broken' | 'revoked';

export interface ConnectionsTable {
  id: string;
  developer_id: string;
  provider: string;
  status: ColumnType<ConnectionStatus, ConnectionStatus | undefined, ConnectionStatus>;
  /** Developer-controlled: inactive users receive no data updates. */
  active: ColumnType<boolean, boolean | undefined, boolean>;
  reference_id: string | null;
  /** Comma-separated, as granted by the provider. */
  scopes: string | null;
  /** The provider's own account id, to recognise a reconnection of the same account. */
  provider_user_id: string | null;
  created_at: Generated<Date>;
  last_webhook_update: Date | null;
  last_polled_at: Date | null;
  most_recent_data_at: Date | null;
}

// This module owns these tables: it adds them to the store's `Database` (see store/schema.ts).
declare module '../../store/schema.ts' {
  interface Database {
    connections: ConnectionsTable;
  }
}
