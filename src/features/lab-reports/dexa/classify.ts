// Telling a DXA scan from a lab report, as the vendor does on upload (no parameter declares it):
// a scan has at least one region table that reads (read.ts) and says what it is somewhere on the
// page (the method, the scanner, or what the scan measures). A lab report with a "Region" column
// and a word like "density" in it would need both to pass.
import type { Row } from '../extraction/rows.ts';
import type { DexaReading } from './read.ts';

const SCAN_WORDS =
  /\b(DXA|DEXA|densitometry|absorptiometry|Hologic|Lunar|iDXA|Prodigy|Horizon|body composition|bone (mineral )?density)\b/i;

/** Results read from fewer cells than this are no scan. */
const MIN_RESULTS = 2;

export function isDexaScan(rows: Row[], reading: DexaReading): boolean {
  return reading.results.length >= MIN_RESULTS && rows.some((row) => SCAN_WORDS.test(row.text));
}
