// The lab-report processing queue: one job per uploaded session.
export const LAB_REPORT_QUEUE = 'lab-reports.process';

export type LabReportJob = { sessionId: string };

declare module '../../jobs/queues.ts' {
  interface QueuePayloads {
    [LAB_REPORT_QUEUE]: LabReportJob;
  }
}
