// One uploaded file → a parsed report of its kind: the pages read once (read-pages.ts); when scans
// are told apart (the upload's API version, api-version.ts) a DXA scan is read by region
// (dexa/), and everything else — every file when they are not — by the lab reader (report.ts).
import { readScan } from './dexa/index.ts';
import type { MediaType } from './media-types.ts';
import { DEFAULT_READER, readPages } from './read-pages.ts';
import { pagesNote, parseLabPages } from './report.ts';
import type { ParsedReport } from './result-types.ts';

export async function readReport(
  bytes: Buffer,
  mediaType: MediaType,
  options: { scans: boolean },
): Promise<ParsedReport> {
  const read = await readPages(bytes, mediaType, DEFAULT_READER);
  const scan = options.scans ? readScan(read, pagesNote(read.total)) : undefined;
  return scan ?? { reportType: 'lab', ...parseLabPages(read) };
}
