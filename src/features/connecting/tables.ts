import type { ColumnType, Generated } from 'kysely';

/** One OAuth attempt: created with the auth link, consumed exactly once by the callback. */
export interface AuthSessionsTable {
  id: string;
  /** SHA-256 of the `state` parameter. */
  state_hash: string;
  user_id: string;
  developer_id: string;
  provider: string;
  /** PKCE verifier, sealed; null when the provider does not use PKCE. */
  code_verifier: string | null;
  redirect_uri: string;
  /** Comma-separated, as requested (used when the provider does not echo what it granted). */
  requested_scopes: string | null;
  success_redirect_url: string | null;
  failure_redirect_url: string | null;
  reference_id: string | null;
  language: string;
  widget_session_id: string | null;
  expires_at: Date;
  consumed_at: Date | null;
  created_at: Generated<Date>;
}

export interface SdkAuthTokensTable {
  token_hash: string;
  developer_id: string;
  /** Bound by `POST /v2/auth/tokens?reference_id=`: the SDK's connection carries it (migration 0040). */
  reference_id: string | null;
  expires_at: Date;
  used_at: Date | null;
  created_at: Generated<Date>;
}

/** What a deauthentication deleted: row counts per table, no health data; outlives its user. */
export interface ErasureReceiptsTable {
  id: string;
  developer_id: string;
  user_id: string;
  provider: string;
  deleted_at: Date;
  deleted_rows: ColumnType<Record<string, number>, string, string>;
}

// This module owns these tables: it adds them to the store's `Database` (see store/schema.ts).
declare module '../../store/schema.ts' {
  interface Database {
    auth_sessions: AuthSessionsTable;
    sdk_auth_tokens: SdkAuthTokensTable;
    erasure_receipts: ErasureReceiptsTable;
  }
}
