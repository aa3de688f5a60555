// Export readers forked when an upload starts spooling, for this process's run of that import to
// take (issue 44: the upload spooled, then the reader booted and loaded its provider, one after the
// other, with nothing else of the import running meanwhile: 0.4 s and 0.7 s of a 32 MB import). A
// reader waits at most WARM_READER_MS: an import run later, or by another worker process, forks its
// own, and the waiting one is killed. At most MOBILE_IMPORT_CONCURRENCY wait at once, so uploads
// arriving together fork no more readers than the imports this process runs at once.
import type { PreparedIsolation } from '../../core/isolation.ts';
import { type ImportSettings, prepareExportReader } from './import-isolated.ts';

/** How long a warm reader waits for its import's run (a queued job is usually taken within seconds). */
export const WARM_READER_MS = 30_000;

export type WarmReaders = {
  /** Forks a reader for the import about to be spooled (unless as many wait already). */
  prepare(importId: string, provider: string): void;
  /** The import's warm reader, if one waits for it in this process. */
  take(importId: string): PreparedIsolation | undefined;
  /** Kills the import's warm reader, if any (its upload failed). */
  discard(importId: string): void;
};

export function createWarmReaders(settings: ImportSettings): WarmReaders {
  const waiting = new Map<string, { reader: PreparedIsolation; timer: NodeJS.Timeout }>();
  const take = (importId: string) => {
    const warm = waiting.get(importId);
    if (!warm) return undefined;
    clearTimeout(warm.timer);
    waiting.delete(importId);
    return warm.reader;
  };
  const discard = (importId: string) => take(importId)?.discard();
  return {
    prepare(importId, provider) {
      if (waiting.size >= settings.concurrency) return;
      const reader = prepareExportReader(provider, settings);
      const timer = setTimeout(() => discard(importId), WARM_READER_MS);
      timer.unref();
      waiting.set(importId, { reader, timer });
    },
    take,
    discard,
  };
}
