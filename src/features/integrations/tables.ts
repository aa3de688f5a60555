import type { ColumnType } from 'kysely';

/** Which providers a developer offers; absent rows mean the provider's default. */
export interface DeveloperProvidersTable {
  developer_id: string;
  provider: string;
  enabled: boolean;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

// This module owns these tables: it adds them to the store's `Database` (see store/schema.ts).
declare module '../../store/schema.ts' {
  interface Database {
    developer_providers: DeveloperProvidersTable;
  }
}
