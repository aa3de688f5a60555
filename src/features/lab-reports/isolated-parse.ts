// Reading a report in an isolated child process: the service's default `parse`. A file over a reading limit, or
// one whose reading runs out of memory or time, is unreadable (a terminal `file_unreadable` with
// the limit named); a reader process that crashed is an ordinary failure, retried by the job.
import { runIsolated, IsolationError, IsolatedTaskError } from '../../core/isolation.ts';
import { UnreadableFileError } from './extraction/errors.ts';
import type { MediaType } from './media-types.ts';
import type { ReadInput } from './read-task.ts';
import type { ParsedReport } from './result-types.ts';
import type { LabReportSettings } from './settings.ts';

const TASK = new URL('./read-task.ts', import.meta.url);
const UNREADABLE = new Set(['UnreadableFileError', 'LimitExceededError']);

/** `scans`: tell DXA scans apart (the upload's API version says whether). */
export type ReportParser = (
  bytes: Buffer,
  mediaType: MediaType,
  options?: { scans?: boolean; signal?: AbortSignal },
) => Promise<ParsedReport>;

export function isolatedParse(settings: LabReportSettings): ReportParser {
  return async (bytes, mediaType, options = {}) => {
    const { signal, scans = false } = options;
    try {
      const { result } = await runIsolated<ParsedReport, ReadInput>({
        task: TASK,
        input: { bytes, mediaType, limits: settings.reading, scans },
        limits: settings.isolation,
        ...(signal ? { signal } : {}),
      });
      return result;
    } catch (error) {
      if (error instanceof IsolatedTaskError && UNREADABLE.has(error.errorName))
        throw new UnreadableFileError(error.message);
      if (error instanceof IsolationError && error.reason === 'out_of_memory')
        throw new UnreadableFileError(`reading it ${error.message} (LAB_REPORT_READER_MEMORY_MB)`);
      if (error instanceof IsolationError && error.reason === 'time_limit')
        throw new UnreadableFileError(
          `reading it ${error.message} (LAB_REPORT_READER_CPU_SECONDS, LAB_REPORT_READER_SECONDS)`,
        );
      throw error;
    }
  };
}
