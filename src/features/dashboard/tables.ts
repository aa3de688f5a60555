import type { Generated } from 'kysely';

export type DashboardSessionKind = 'developer' | 'operator';

export interface DashboardSessionsTable {
  /** SHA-256 (hex) of the session id; the id itself lives only in the browser's cookie. */
  id_hash: string;
  kind: DashboardSessionKind;
  developer_id: string | null;
  /** The API key the session was made with: revoking the key ends the session. */
  api_key_id: string | null;
  created_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
}

export interface AuditLogTable {
  id: Generated<number>;
  actor: DashboardSessionKind;
  /** The developer acted on (for an operator, the developer its action concerned, if any). */
  developer_id: string | null;
  /** A short, non-secret reference to the session (the start of its hash). */
  session_ref: string;
  action: string;
  target: string | null;
  at: Date;
}

// This module owns these tables: it adds them to the store's `Database` (see store/schema.ts).
declare module '../../store/schema.ts' {
  interface Database {
    dashboard_sessions: DashboardSessionsTable;
    audit_log: AuditLogTable;
  }
}
