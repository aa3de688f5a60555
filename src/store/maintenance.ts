// Housekeeping PostgreSQL's autovacuum does on a server but nobody does on embedded storage: PGlite
// runs as a single-user backend with no background workers, so dead row versions from the busiest
// tables (the job queue, the webhook outbox, rate buckets) pile up and the planner's statistics go
// stale. A recurring job (runtime/workers/store.ts) runs this on embedded storage only.
import { sql } from 'kysely';
import type { Store } from './db.ts';
import type { NoPayload } from '../jobs/queues.ts';

export const STORE_MAINTENANCE_QUEUE = 'store.maintenance';

/** Cron (UTC) for the embedded store's VACUUM (ANALYZE): hourly, off the hour. */
export const EMBEDDED_MAINTENANCE_SCHEDULE = '37 * * * *';

export type MaintenanceOutcome = { ran: boolean; tookMs: number };

/**
 * Reclaims dead rows and refreshes statistics on embedded storage. Plain VACUUM (never FULL) marks
 * space for reuse without rewriting tables or taking exclusive locks; pages untouched since the last
 * run are skipped, so an hourly pass stays short. On PostgreSQL it does nothing: autovacuum runs there.
 */
export async function maintainEmbeddedStore(store: Store, now: () => number): Promise<MaintenanceOutcome> {
  if (store.kind !== 'pglite') return { ran: false, tookMs: 0 };
  const started = now();
  await sql`VACUUM (ANALYZE)`.execute(store.db);
  return { ran: true, tookMs: now() - started };
}

// The queues this module owns, with their payloads (see jobs/queues.ts).
declare module '../jobs/queues.ts' {
  interface QueuePayloads {
    [STORE_MAINTENANCE_QUEUE]: NoPayload;
  }
}
