// The lab-report processing queue: one job per uploaded session.
import type { NoPayload } from '../../jobs/queues.ts';

export const LAB_REPORT_QUEUE = 'lab-reports.process';

export type LabReportJob = { sessionId: string };

/** Re-seals files stored before migration 0023 (sealed base64 text) as bytes; daily and at start-up. */
export const RESEAL_FILES_QUEUE = 'lab-reports.reseal-files';

declare module '../../jobs/queues.ts' {
  interface QueuePayloads {
    [LAB_REPORT_QUEUE]: LabReportJob;
    [RESEAL_FILES_QUEUE]: NoPayload;
  }
}
