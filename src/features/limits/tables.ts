/**
 * Fixed-window request counters for public endpoints (hosted pages, unsigned provider
 * notifications): one row per scope and window, so every process counts against the same
 * figure. `scope` names what is limited and for whom, e.g. `widget-ip:203.0.113.7`.
 */
export interface RequestWindowsTable {
  scope: string;
  window_seconds: number;
  window_start: Date;
  hits: number;
}

// This module owns this table: it adds it to the store's `Database` (see store/schema.ts).
declare module '../../store/schema.ts' {
  interface Database {
    request_windows: RequestWindowsTable;
  }
}
