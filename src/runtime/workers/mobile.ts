import type { AppContext } from '../../features/context.ts';
import { IMPORT_QUEUE, NORMALIZE_UPLOAD_QUEUE } from '../../features/mobile/ports.ts';
import { HEARTBEAT_SECONDS } from './connectors.ts';

export function defineMobileJobs(ctx: AppContext) {
  ctx.jobs.define({
    name: NORMALIZE_UPLOAD_QUEUE,
    options: {
      retryLimit: 5,
      retryDelay: 10,
      retryBackoff: true,
      expireInSeconds: 15 * 60,
      heartbeatSeconds: HEARTBEAT_SECONDS,
    },
    work: { batchSize: 1, localConcurrency: 2 },
    handler: async (jobs) => {
      for (const job of jobs) await ctx.mobile.processUpload(job.data.uploadId);
    },
  });
  // A multi-GB import runs for minutes; a worker that dies stops its heartbeat and the job comes
  // back within seconds, to resume from the import's checkpoint. The file is read in a isolated
  // child process (features/mobile/import-isolated.ts); jobs are grouped by developer, so one
  // developer's imports take at most MOBILE_IMPORT_DEVELOPER_CONCURRENCY slots of each worker.
  // Once its retries are spent the queue gives up and the import fails with the reason.
  const { importSettings } = ctx.mobile;
  ctx.jobs.define({
    name: IMPORT_QUEUE,
    options: {
      retryLimit: 5,
      retryDelay: 10,
      retryBackoff: true,
      expireInSeconds: 6 * 3600,
      heartbeatSeconds: HEARTBEAT_SECONDS,
    },
    work: {
      batchSize: 1,
      localConcurrency: importSettings.concurrency,
      // Per process and strict (a job fetched past it is put back): pg-boss's database-wide
      // `groupConcurrency` is read when a job is fetched, so two workers fetching at the same
      // instant both pass it. Every worker process keeps its other slots for other developers.
      localGroupConcurrency: importSettings.developerConcurrency,
    },
    handler: async (jobs) => {
      for (const job of jobs) await ctx.mobile.runImport(job.data.importId);
    },
    givenUp: async ({ data, reason, attempts }) => ctx.mobile.giveUpImport(data.importId, reason, attempts),
  });
}
