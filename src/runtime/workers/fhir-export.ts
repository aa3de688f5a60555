// The FHIR bulk export's queues: one job per user of an export (resumable: a worker that dies
// stops its heartbeat and the job comes back within seconds, to continue from the unit's last
// committed step), and the hourly removal of exports past their retention.
import type { AppContext } from '../../features/context.ts';
import { EXPORT_PRUNE_QUEUE, EXPORT_UNIT_QUEUE } from '../../features/fhir-export/service.ts';
import { HEARTBEAT_SECONDS } from './connectors.ts';
import type { RecurringJob } from './recurring.ts';

export function defineFhirExportJobs(ctx: AppContext) {
  ctx.jobs.define({
    name: EXPORT_UNIT_QUEUE,
    options: {
      retryLimit: 10,
      retryDelay: 5,
      retryBackoff: true,
      expireInSeconds: 60 * 60,
      heartbeatSeconds: HEARTBEAT_SECONDS,
    },
    work: { batchSize: 1, localConcurrency: 2 },
    handler: async (jobs) => {
      for (const job of jobs) await ctx.fhir.export.runUnit(job.data);
    },
  });
  ctx.jobs.define({
    name: EXPORT_PRUNE_QUEUE,
    options: { retryLimit: 2, expireInSeconds: 10 * 60 },
    handler: async () => {
      const removed = await ctx.fhir.export.prune();
      if (removed > 0) ctx.log.info({ removed }, 'removed FHIR exports past their retention');
    },
  });
}

export function fhirExportRecurringJobs(): RecurringJob[] {
  return [{ queue: EXPORT_PRUNE_QUEUE, schedule: '41 * * * *' }];
}
