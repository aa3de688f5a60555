import type { Generated } from 'kysely';

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

/**
 * The providers a developer's widget offers when a session names none (set on the dashboard's
 * Providers page). No row: every provider enabled for the developer.
 */
export interface WidgetProviderSelectionsTable {
  developer_id: string;
  providers: string[];
  updated_at: Date;
}

// This module owns these tables: it adds them to the store's `Database` (see store/schema.ts).
declare module '../../store/schema.ts' {
  interface Database {
    widget_sessions: WidgetSessionsTable;
    widget_provider_selections: WidgetProviderSelectionsTable;
  }
}
