// The isolated side of reading a report (run by core/isolation.ts in a child process): the limits
// checked before work, then the whole parse. Nothing here touches the store or the network.
import { checkImage, checkPdfStreams, type ReadingLimits, useReadingLimits } from './extraction/limits.ts';
import type { MediaType } from './media-types.ts';
import type { ParsedReport } from './result-types.ts';

export type ReadInput = { bytes: Uint8Array; mediaType: MediaType; limits: ReadingLimits };

export async function run(input: ReadInput): Promise<ParsedReport> {
  useReadingLimits(input.limits);
  // The channel hands over a plain Uint8Array; the readers expect a Buffer (no copy).
  const bytes = Buffer.from(input.bytes.buffer, input.bytes.byteOffset, input.bytes.byteLength);
  if (input.mediaType === 'application/pdf') await checkPdfStreams(bytes);
  else checkImage(bytes);
  const { parseReport } = await import('./report.ts');
  return parseReport(bytes, input.mediaType);
}
