// The store's own recurring job: VACUUM (ANALYZE) on embedded storage (see store/maintenance.ts).
import type { AppContext } from '../../features/context.ts';
import {
  EMBEDDED_MAINTENANCE_SCHEDULE,
  maintainEmbeddedStore,
  STORE_MAINTENANCE_QUEUE,
} from '../../store/maintenance.ts';
import type { Store } from '../../store/db.ts';
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
}

/** Embedded storage only; on PostgreSQL the schedule is removed (autovacuum does this). */
export function storeRecurringJobs(ctx: { store: Pick<Store, 'kind'> }): RecurringJob[] {
  return [
    {
      queue: STORE_MAINTENANCE_QUEUE,
      schedule: ctx.store.kind === 'pglite' ? EMBEDDED_MAINTENANCE_SCHEDULE : null,
    },
  ];
}
