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

// This module owns these tables: it adds them to the store's `Database` (see store/schema.ts).
declare module '../../store/schema.ts' {
  interface Database {
    widget_sessions: WidgetSessionsTable;
  }
}
