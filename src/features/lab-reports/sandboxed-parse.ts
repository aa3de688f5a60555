// Reading a report in the sandbox: the service's default `parse`. A file over a reading limit, or
// one whose reading runs out of memory or time, is unreadable (a terminal `file_unreadable` with
// the limit named); a sandbox that crashed is an ordinary failure, retried by the job.
import { runInSandbox, SandboxError, SandboxTaskError } from '../../core/sandbox.ts';
import { UnreadableFileError } from './extraction/errors.ts';
import type { MediaType } from './media-types.ts';
import type { ReadInput } from './read-task.ts';
import type { ParsedReport } from './result-types.ts';
import type { LabReportSettings } from './settings.ts';

const TASK = new URL('./read-task.ts', import.meta.url);
const UNREADABLE = new Set(['UnreadableFileError', 'LimitExceededError']);

export type ReportParser = (
  bytes: Buffer,
  mediaType: MediaType,
  signal?: AbortSignal,
) => Promise<ParsedReport>;

export function sandboxedParse(settings: LabReportSettings): ReportParser {
  return async (bytes, mediaType, signal) => {
    try {
      const { result } = await runInSandbox<ParsedReport, ReadInput>({
        task: TASK,
        input: { bytes, mediaType, limits: settings.reading },
        limits: settings.sandbox,
        ...(signal ? { signal } : {}),
      });
      return result;
    } catch (error) {
      if (error instanceof SandboxTaskError && UNREADABLE.has(error.errorName))
        throw new UnreadableFileError(error.message);
      if (error instanceof SandboxError && error.reason === 'out_of_memory')
        throw new UnreadableFileError(`reading it ${error.message} (LAB_REPORT_SANDBOX_MEMORY_MB)`);
      if (error instanceof SandboxError && error.reason === 'time_limit')
        throw new UnreadableFileError(
          `reading it ${error.message} (LAB_REPORT_SANDBOX_CPU_SECONDS, LAB_REPORT_SANDBOX_SECONDS)`,
        );
      throw error;
    }
  };
}
