/** One developer's merged-view settings (migration 0026); no row means the defaults. */
export interface MergeSettingsTable {
  developer_id: string;
  /** `{family: [provider id | device kind, …]}`, best first; validated by priorities.ts. */
  priorities: string;
  merged_events: boolean;
  updated_at: Date;
}

// This module owns this table: it adds it to the store's `Database` (see store/schema.ts).
declare module '../../store/schema.ts' {
  interface Database {
    merge_settings: MergeSettingsTable;
  }
}
