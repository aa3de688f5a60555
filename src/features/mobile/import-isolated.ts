// Reading an export in an isolated child process (core/isolation.ts): the import job's parent side. The child reads
// the file and sends batches of samples; `onBatch` stores each with its checkpoint before the child
// reads on. Settings (declared in settings.ts, documented in docs/mobile.md): the reader process's memory and
// progress limits, and how many imports run at once per worker and per developer.
import {
  prepareIsolated,
  runIsolated,
  IsolationError,
  IsolatedTaskError,
  type IsolationLimits,
  type PreparedIsolation,
} from '../../core/isolation.ts';
import { ExportFileError, type ExportProgress } from './export-stream.ts';
import type { ImportTaskInput, ImportTaskMessage } from './import-task.ts';
import type { EncodedSampleRows } from './sample-rows.ts';

const TASK = new URL('./import-task.ts', import.meta.url);

export type ImportSettings = {
  /** MOBILE_IMPORT_READER_MEMORY_MB, _IDLE_SECONDS, _SECONDS, _CPU_SECONDS. */
  isolation: IsolationLimits;
  /** MOBILE_IMPORT_CONCURRENCY: imports run at once by one worker process. */
  concurrency: number;
  /** MOBILE_IMPORT_DEVELOPER_CONCURRENCY: imports of one developer run at once by one worker process
   *  (below MOBILE_IMPORT_CONCURRENCY, every worker keeps a slot for other developers). */
  developerConcurrency: number;
};

export type IsolatedExportOptions = {
  provider: string;
  /** A reader forked ahead for this provider (`prepareExportReader`): taken instead of forking one. */
  prepared?: PreparedIsolation | undefined;
  skip: number;
  batchSize: number;
  onStart(totalBytes: number): Promise<void>;
  onBatch(
    batch: { rows: EncodedSampleRows; elements: number; invalid: number; firstProblem?: string },
    progress: ExportProgress,
  ): Promise<void>;
};

/**
 * A reader process forked before its export is on disk (while the upload spools), its provider's
 * module loading meanwhile, for `readExportIsolated` to take. Unused, it must be discarded.
 */
export function prepareExportReader(provider: string, settings: ImportSettings): PreparedIsolation {
  return prepareIsolated(TASK, settings.isolation, provider);
}

/**
 * Reads the export at `path` in an isolated child process. A file the reader refuses, or whose reading runs out of
 * memory or makes no progress, ends in an `ExportFileError` naming why (the import fails); a
 * reader process that crashed is thrown as it is (the job is retried).
 */
export async function readExportIsolated(
  path: string,
  settings: ImportSettings,
  options: IsolatedExportOptions,
): Promise<ExportProgress> {
  try {
    const { result } = await runIsolated<ExportProgress, ImportTaskInput, ImportTaskMessage>({
      task: TASK,
      input: { path, provider: options.provider, skip: options.skip, batchSize: options.batchSize },
      limits: settings.isolation,
      prepared: options.prepared,
      onMessage: async (message) => {
        if (message.type === 'start') await options.onStart(message.totalBytes);
        else await options.onBatch(message, message.progress);
      },
    });
    return result;
  } catch (error) {
    if (error instanceof IsolatedTaskError)
      throw new ExportFileError(
        error.errorName === 'ExportFileError'
          ? error.message
          : `the export could not be read (${error.message})`,
      );
    if (error instanceof IsolationError && error.reason === 'out_of_memory')
      throw new ExportFileError(`reading the export ${error.message} (MOBILE_IMPORT_READER_MEMORY_MB)`);
    if (error instanceof IsolationError && error.reason === 'time_limit')
      throw new ExportFileError(`reading the export ${error.message} (MOBILE_IMPORT_READER_IDLE_SECONDS)`);
    throw error;
  }
}
