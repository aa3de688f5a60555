import type { ColumnType, Generated } from 'kysely';

/** `YYYY-MM-DD`: date columns are read and written as text (see the casts in repo.ts). */
type Day = ColumnType<string, string, string>;

/** One normalized record of one user and data type; see migration 0005 for why `json`. */
export interface DataRecordsTable {
  user_id: string;
  /** A historical data type name, or `athlete`. */
  type: string;
  identity_key: string;
  anchor_at: Date;
  /** The local calendar day of the anchor (the date written in the anchor datetime). */
  anchor_day: Day;
  /** The record with every sample array emptied, as JSON text. */
  summary: string;
  /** Only the non-empty sample arrays, keyed by dotted path, as JSON text; null when none. */
  samples: string | null;
  /**
   * Where the sample arrays go back: triples (offset of the emptied `[]` in `summary`, start and
   * end of the array's text in `samples`), in summary order; null when there are no samples.
   */
  sample_splices: number[] | null;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

export interface RawPayloadsTable {
  id: Generated<number>;
  user_id: string;
  provider: string;
  type: string;
  fetched_at: Date;
  payload: ColumnType<unknown, string, string>;
}

export interface SyncCoverageTable {
  id: Generated<number>;
  user_id: string;
  type: string;
  start_day: Day;
  end_day: Day;
  settled: boolean;
  synced_at: Date;
}

export interface RateBucketsTable {
  user_id: string;
  bucket_start: Date;
  used: number;
}

/** A companion kind the connection's provider refused on its own path (4xx): skipped from then on. */
export interface UnreadableCompanionsTable {
  user_id: string;
  /** The provider's own name of the kind (e.g. Garmin's `pulseox`). */
  kind: string;
  /** The unified type whose records lack it. */
  type: string;
  /** The HTTP status the provider answered. */
  status: number;
  detail: string;
  recorded_at: Date;
}

// This module owns these tables: it adds them to the store's `Database` (see store/schema.ts).
declare module '../../store/schema.ts' {
  interface Database {
    data_records: DataRecordsTable;
    raw_payloads: RawPayloadsTable;
    sync_coverage: SyncCoverageTable;
    rate_buckets: RateBucketsTable;
    unreadable_companions: UnreadableCompanionsTable;
  }
}
