// The lab-report feature's settings (documented in .env.example and docs/lab-reports.md): the
// reading limits checked before work, the isolated process every report is read in, and how many reports
// are read at once — per worker process, and per developer in each.
import { isolationLimitsFromEnv, concurrencyFromEnv, type IsolationLimits } from '../../core/isolation.ts';
import { parseWindowRule } from '../limits/settings.ts';
import type { WindowRule } from '../limits/windows.ts';
import { loadReadingLimits, type ReadingLimits } from './extraction/limits.ts';

export type LabReportSettings = {
  reading: ReadingLimits;
  /** LAB_REPORT_READER_MEMORY_MB, _CPU_SECONDS, _SECONDS. */
  isolation: IsolationLimits;
  /** LAB_REPORT_CONCURRENCY: reports read at once by one worker process. */
  concurrency: number;
  /** LAB_REPORT_DEVELOPER_CONCURRENCY: reports of one developer read at once by one worker process
   *  (below LAB_REPORT_CONCURRENCY, every worker keeps a slot for other developers). */
  developerConcurrency: number;
  /** LAB_REPORT_UPLOAD_RATE: uploads one developer may make, `<count>/<seconds>` (default 120/60):
   *  past it 429, before the file is read, so one developer cannot fill the store or the queue. */
  uploadRate: WindowRule;
};

export function loadLabReportSettings(env: Readonly<Record<string, string | undefined>>): LabReportSettings {
  return {
    reading: loadReadingLimits(env),
    // OCR of a 40 MP photo peaks near 1 GB resident; a text PDF needs ~150 MB.
    isolation: isolationLimitsFromEnv(env, 'LAB_REPORT_READER', {
      memoryMb: 1536,
      cpuSeconds: 240,
      seconds: 600,
    }),
    concurrency: concurrencyFromEnv(env, 'LAB_REPORT_CONCURRENCY', 2),
    developerConcurrency: concurrencyFromEnv(env, 'LAB_REPORT_DEVELOPER_CONCURRENCY', 1),
    uploadRate: parseWindowRule(env, 'LAB_REPORT_UPLOAD_RATE', { limit: 120, windowSeconds: 60 }),
  };
}
