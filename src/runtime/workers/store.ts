// The store's own recurring jobs: VACUUM (ANALYZE) on embedded storage (see store/maintenance.ts),
// and the coming months' partitions of data_records on both stores (store/record-partitions.ts).
import type { AppContext } from '../../features/context.ts';
import {
  EMBEDDED_MAINTENANCE_SCHEDULE,
  maintainEmbeddedStore,
  STORE_MAINTENANCE_QUEUE,
} from '../../store/maintenance.ts';
import type { Store } from '../../store/db.ts';
import {
  ensureRecordPartitions,
  RECORD_PARTITIONS_QUEUE,
  RECORD_PARTITIONS_SCHEDULE,
} from '../../store/record-partitions.ts';
import type { RecurringJob } from './recurring.ts';

export function defineStoreJobs(ctx: AppContext) {
  ctx.jobs.define({
    name: STORE_MAINTENANCE_QUEUE,
    options: { retryLimit: 1, retryDelay: 300, expireInSeconds: 30 * 60 },
    handler: async () => {
      const outcome = await maintainEmbeddedStore(ctx.store, () => Date.now());
      if (outcome.ran) ctx.log.info({ tookMs: outcome.tookMs }, 'vacuumed and analysed the embedded store');
    },
  });
  ctx.jobs.define({
    name: RECORD_PARTITIONS_QUEUE,
    options: { retryLimit: 3, retryDelay: 600, expireInSeconds: 30 * 60 },
    handler: async () => {
      const created = await ensureRecordPartitions(ctx.db, ctx.clock.now());
      if (created.length > 0) ctx.log.info({ months: created }, 'created month partitions of data_records');
    },
  });
}

/** Embedded storage only; on PostgreSQL the schedule is removed (autovacuum does this). */
export function storeRecurringJobs(ctx: { store: Pick<Store, 'kind'> }): RecurringJob[] {
  return [
    {
      queue: STORE_MAINTENANCE_QUEUE,
      schedule: ctx.store.kind === 'pglite' ? EMBEDDED_MAINTENANCE_SCHEDULE : null,
    },
    { queue: RECORD_PARTITIONS_QUEUE, schedule: RECORD_PARTITIONS_SCHEDULE },
  ];
}
