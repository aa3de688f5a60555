// What core does with the original files a connector yields (provider-kit/original-files.ts):
// each is checked (a FIT file with a valid header and CRC, at most ORIGINAL_FILE_MAX_BYTES) and
// kept for the activity it names, in the transaction that stores the activity, so an activity
// event is never delivered before its file is there. A file that fails the check, or that the
// connector could not fetch, is not kept: it is answered as a problem (logged by the sync), and
// the delivery of that activity falls back to JSON.
import type { OriginalFile } from '../../provider-kit/data-source.ts';
import { fitFileProblem } from '../../provider-kit/fit-file.ts';
import { ORIGINAL_FILE_MAX_BYTES } from '../../provider-kit/original-files.ts';
import { megabytes } from '../../provider-access/answer-size.ts';
import type { Db } from '../../store/db.ts';
import { keptSummaryIds, type OriginalFileRow, upsertOriginalFiles } from './repo.ts';

/** An original file that is not kept, and why. */
export type RefusedOriginal = { summaryId: string; problem: string };

/** Splits what a connector yielded into files to keep and files refused (with the reason). */
export function checkOriginals(originals: readonly OriginalFile[]): {
  keep: OriginalFileRow[];
  refused: RefusedOriginal[];
} {
  const keep = new Map<string, OriginalFileRow>();
  const refused: RefusedOriginal[] = [];
  for (const original of originals) {
    if ('problem' in original) {
      refused.push({ summaryId: original.summaryId, problem: original.problem });
      continue;
    }
    const size = original.bytes.byteLength;
    const problem =
      size > ORIGINAL_FILE_MAX_BYTES
        ? `${size} bytes, over the ${megabytes(ORIGINAL_FILE_MAX_BYTES)} limit of an original file`
        : fitFileProblem(original.bytes);
    if (problem) refused.push({ summaryId: original.summaryId, problem });
    // A file named twice in one batch: the later one (the provider's latest) wins.
    else keep.set(original.summaryId, { summaryId: original.summaryId, bytes: original.bytes });
  }
  return { keep: [...keep.values()], refused };
}

/** Keeps checked files of one connection (in the caller's transaction). */
export async function keepOriginals(
  db: Db,
  input: { connectionId: string; developerId: string; files: readonly OriginalFileRow[]; at: Date },
): Promise<void> {
  await upsertOriginalFiles(db, input);
}

/**
 * A connection's `DataSourceContext.originalsKept`: which activities already have their file, so
 * a connector that fetches files one by one does not fetch them again.
 */
export const originalsKeptOf =
  (db: Db, connectionId: string) =>
  (summaryIds: readonly string[]): Promise<ReadonlySet<string>> =>
    keptSummaryIds(db, connectionId, summaryIds);
