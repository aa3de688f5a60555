import type { ColumnType, Generated } from 'kysely';

/** Tokens sealed with the service key (AES-256-GCM); never readable from the row alone. */
export interface ProviderTokensTable {
  user_id: string;
  access_token: string;
  refresh_token: string | null;
  expires_at: Date | null;
  scopes: string | null;
  provider_user_id: string | null;
  created_at: Generated<Date>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

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

/** A provider setting the operator stored (dashboard), sealed; the environment wins over it. */
export interface ProviderSettingsTable {
  provider: string;
  /** The setting's suffix: `CLIENT_ID`, `CLIENT_SECRET`, or one the provider's declaration names. */
  name: string;
  value_sealed: string;
  updated_at: Date;
}

// This module owns these tables: it adds them to the store's `Database` (see store/schema.ts).
declare module '../store/schema.ts' {
  interface Database {
    provider_tokens: ProviderTokensTable;
    connector_token_health: ConnectorTokenHealthTable;
    connector_request_budget: ConnectorRequestBudgetTable;
    connector_provider_pauses: ConnectorProviderPausesTable;
    provider_settings: ProviderSettingsTable;
  }
}
