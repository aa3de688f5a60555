import type { AppContext } from '../../features/context.ts';
import { IMPORT_QUEUE, NORMALIZE_UPLOAD_QUEUE } from '../../features/mobile/ports.ts';
import { HEARTBEAT_SECONDS } from './sync.ts';

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
  // back, to resume from the import's checkpoint.
  ctx.jobs.define({
    name: IMPORT_QUEUE,
    options: {
      retryLimit: 5,
      retryDelay: 30,
      retryBackoff: true,
      expireInSeconds: 6 * 3600,
      heartbeatSeconds: HEARTBEAT_SECONDS,
    },
    work: { batchSize: 1, localConcurrency: 1 },
    handler: async (jobs) => {
      for (const job of jobs) await ctx.mobile.runImport(job.data.importId);
    },
  });
}
