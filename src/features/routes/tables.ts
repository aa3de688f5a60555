import type { ColumnType, Generated } from 'kysely';

/** bigint ids: read as text (`id::text`), so no driver turns them into a number or a BigInt. */
type BigId = ColumnType<string, never, never>;
type Json<T> = ColumnType<T, string, string>;

export interface RouteTemplatesTable {
  id: Generated<BigId>;
  developer_id: string;
  /** The route as created or last updated (without its route_id). */
  route: Json<unknown>;
  created_at: Date;
  updated_at: Date;
}

export interface PushedRoutesTable {
  id: Generated<BigId>;
  developer_id: string;
  /** bigint, written as the template id's text; null once the template is deleted. */
  route_id: ColumnType<string | null, string | null, string | null>;
  user_id: string;
  provider: string;
  provider_route_id: string | null;
  created_at: Date;
  updated_at: Date;
}

// This module owns these tables: it adds them to the store's `Database` (see store/schema.ts).
declare module '../../store/schema.ts' {
  interface Database {
    route_templates: RouteTemplatesTable;
    pushed_routes: PushedRoutesTable;
  }
}
