// Original files: the provider's own file of an activity (a FIT recording), kept as given so a
// developer whose output format is `fit` receives it (docs/output-formats.md#fit-files). A
// connector's activity fetch yields them beside the records they belong to (`DataPage.originals`),
// each named by its activity's `metadata.summary_id`; core checks and stores them. A file that
// cannot be had (too large, refused, unreachable) is yielded as a problem instead: it fails
// alone, the activity is stored all the same.
import { type OriginalFile, ProviderDataError } from './data-source.ts';
import type { ProviderHttp, ProviderRequest } from './http.ts';

/**
 * The largest original file kept. A 24-hour activity recorded every second is about 3–5 MB as
 * FIT (a record message of a few dozen bytes per second); four times that is left for richer
 * recordings. Larger files are not fetched past this and not kept (docs/output-formats.md).
 */
export const ORIGINAL_FILE_MAX_BYTES = 16 * 1024 ** 2;

/** Bytes a connector already read (the FIT file it normalized the activity from) as an original. */
export const originalFit = (summaryId: string, bytes: Uint8Array | null): OriginalFile | null =>
  bytes ? { summaryId, format: 'fit', bytes } : null;

/**
 * Fetches an activity's FIT file under the provider HTTP policy (deadlines, retries, budgets) and
 * at most ORIGINAL_FILE_MAX_BYTES. Null when the provider says there is none (`absentOn`). A
 * failure of this one file (too large, unreachable, refused) is a problem, not a failed sync;
 * a rate limit or a dead token still fails the fetch, which is retried as a whole.
 */
export async function fetchOriginalFit(
  http: ProviderHttp,
  summaryId: string,
  request: ProviderRequest,
): Promise<OriginalFile | null> {
  try {
    const bytes = await http.bytes({ ...request, maxBytes: ORIGINAL_FILE_MAX_BYTES });
    return originalFit(summaryId, bytes);
  } catch (error) {
    if (error instanceof ProviderDataError && error.kind !== 'unavailable') throw error;
    return { summaryId, format: 'fit', problem: (error as Error).message };
  }
}
