import type { ColumnType, Generated } from 'kysely';

export interface WidgetSessionsTable {
  id: string;
  developer_id: string;
  /** The developer's subset for this session; null means every provider enabled for them. */
  providers: string[] | null;
  language: string;
  reference_id: string | null;
  success_redirect_url: string | null;
  failure_redirect_url: string | null;
  expires_at: Date;
  completed_at: Date | null;
  created_at: Generated<Date>;
}

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

export interface DeveloperProvidersTable {
  developer_id: string;
  provider: string;
  enabled: boolean;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

export interface SdkAuthTokensTable {
  token_hash: string;
  developer_id: string;
  expires_at: Date;
  used_at: Date | null;
  created_at: Generated<Date>;
}

export interface ConnectionTables {
  widget_sessions: WidgetSessionsTable;
  auth_sessions: AuthSessionsTable;
  provider_tokens: ProviderTokensTable;
  developer_providers: DeveloperProvidersTable;
  sdk_auth_tokens: SdkAuthTokensTable;
}
