// DXA scans (body composition and bone density; the vendor's `report_type: dexa`): the pages a
// report's reader read (read-pages.ts), classified and read into results keyed by body region.
// `readScan` answers undefined when the pages are no scan, and the lab reader reads them instead.
import { readMetadata } from '../extraction/metadata.ts';
import type { ReadReport } from '../read-pages.ts';
import type { ParsedReport } from '../result-types.ts';
import { isDexaScan } from './classify.ts';
import { readDexaTables } from './read.ts';

export function readScan(read: ReadReport, notes: string | undefined): ParsedReport | undefined {
  const rows = read.pages.flatMap((page) => page.rows);
  const reading = readDexaTables(rows);
  if (!isDexaScan(rows, reading)) return undefined;
  return {
    reportType: 'dexa',
    results: reading.results,
    panels: [],
    ...readMetadata(rows),
    pages: read.total,
    ocrPages: read.ocrPages,
    ...(notes ? { notes } : {}),
    ...(reading.unmatched.length > 0 ? { unmatched: reading.unmatched } : {}),
  };
}
