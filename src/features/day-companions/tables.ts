import type { ColumnType } from 'kysely';

/** `YYYY-MM-DD`: the date column is written as text and never read back. */
type Day = ColumnType<string, string, string>;

/** The latest copy of one summary of a connection's day of one type (migration 0052). */
export interface DayCompanionsTable {
  connection_id: string;
  /** The unified type the day's record is (`daily`, `sleep`, …). */
  type: string;
  day: Day;
  /** The provider's own name of the summary's kind. */
  kind: string;
  summary_id: string;
  /** When the provider delivered this copy: an earlier copy never replaces it. */
  delivered_at: Date;
  /** When the row was last written (the day's retention counts from its newest row). */
  kept_at: Date;
  /** The summary as JSON text. */
  summary: string;
}

// This module owns this table: it adds it to the store's `Database` (see store/schema.ts).
declare module '../../store/schema.ts' {
  interface Database {
    day_companions: DayCompanionsTable;
  }
}
