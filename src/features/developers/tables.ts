import type { ColumnType, Generated } from 'kysely';

export type Environment = 'sandbox' | 'production';
export type DeveloperStatus = 'active' | 'suspended';

export interface DevelopersTable {
  id: string;
  name: string;
  environment: Environment;
  status: ColumnType<DeveloperStatus, DeveloperStatus | undefined, DeveloperStatus>;
  order_api_access: ColumnType<boolean, boolean | undefined, boolean>;
  hourly_days_limit: number | null;
  created_at: Generated<Date>;
}

export interface ApiKeysTable {
  id: string;
  developer_id: string;
  display_prefix: string;
  hash: string;
  created_at: Generated<Date>;
  revoked_at: Date | null;
}

// This module owns these tables: it adds them to the store's `Database` (see store/schema.ts).
declare module '../../store/schema.ts' {
  interface Database {
    developers: DevelopersTable;
    api_keys: ApiKeysTable;
  }
}
