// The isolated side of reading a report (run by core/isolation.ts in a child process): the limits
// checked before work, the pages read once, then — when the upload's API version tells scans
// apart — a DXA scan read by region (dexa/), anything else by the lab reader. Nothing here touches
// the store or the network.
import { checkImage, checkPdfStreams, type ReadingLimits, useReadingLimits } from './extraction/limits.ts';
import type { MediaType } from './media-types.ts';
import type { ParsedReport } from './result-types.ts';

export type ReadInput = { bytes: Uint8Array; mediaType: MediaType; limits: ReadingLimits; scans?: boolean };

export async function run(input: ReadInput): Promise<ParsedReport> {
  useReadingLimits(input.limits);
  // The channel hands over a plain Uint8Array; the readers expect a Buffer (no copy).
  const bytes = Buffer.from(input.bytes.buffer, input.bytes.byteOffset, input.bytes.byteLength);
  if (input.mediaType === 'application/pdf') await checkPdfStreams(bytes);
  else checkImage(bytes);
  const { readReport } = await import('./read-report.ts');
  return readReport(bytes, input.mediaType, { scans: input.scans ?? false });
}
