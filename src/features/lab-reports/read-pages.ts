// The words of every page with their positions: a PDF's text layer where it has one; otherwise
// (photos, scans) OCR over the image made ready for it (ocr-image.ts), with a second page
// segmentation tried when the first finds little, and a digit-only pass over the numeric cells
// of the tables found (digit-pass.ts). The OCR choices are options so the bench can measure each.
import { findBiomarker } from './dictionary/match.ts';
import { findTables, tablesInForce } from './extraction/columns.ts';
import { rereadNumbers } from './extraction/digit-pass.ts';
import { readRow } from './extraction/read-table.ts';
import { ALL_STEPS, prepareImage, type PrepareSteps } from './extraction/ocr-image.ts';
import { recognise } from './extraction/ocr.ts';
import { readPdf } from './extraction/pdf-text.ts';
import { buildRows, type Row } from './extraction/rows.ts';
import type { PageText } from './extraction/tokens.ts';
import type { MediaType } from './media-types.ts';

/** Pages read per report; the rest are left out and said so in the report notes. */
export const MAX_PAGES = 20;

export type ReaderOptions = {
  /** Image preparation before OCR: upscaling, shadow removal, deskewing. */
  prepare: PrepareSteps;
  /** `best`: automatic segmentation, and sparse-text segmentation too when that reads next to nothing. */
  segmentation: 'auto' | 'sparse' | 'best';
  /** Read the numeric cells of tables again with digits only. */
  digitPass: boolean;
};
export const DEFAULT_READER: ReaderOptions = { prepare: ALL_STEPS, segmentation: 'best', digitPass: true };

export type ReadPage = { text: PageText; rows: Row[] };

/** A page with fewer results than this is read with sparse segmentation too. */
const FEW_RESULTS = 3;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/** How many rows of a reading yield a result with a known name (and, read along the row, a unit or range). */
function resultsRead(rows: Row[]): number {
  const tables = findTables(rows);
  return rows.filter((row) =>
    readRow(row, tablesInForce(tables, row)).raws.some(
      (raw) =>
        raw.value !== undefined &&
        (raw.reading === 'table' || raw.units || raw.referenceText) &&
        findBiomarker(raw.name) !== undefined,
    ),
  ).length;
}

async function readImage(bytes: Buffer, page: number, options: ReaderOptions): Promise<ReadPage> {
  const prepared = await prepareImage(bytes, options.prepare);
  const read = async (segmentation: 'auto' | 'sparse') => {
    const text = prepared
      ? await recognise(prepared.png, page, { width: prepared.width, height: prepared.height }, segmentation)
      : await recognise(bytes, page, undefined, segmentation);
    return { text, rows: buildRows(text) };
  };
  let chosen = await read(options.segmentation === 'sparse' ? 'sparse' : 'auto');
  // Next to nothing read as a result: the layout analysis failed on this page; the sparse reading
  // finds text in no particular order. (Tried on every page with a named row short of a value,
  // it lost more than it found on the shared reports: values the digit pass recovers anyway.)
  const first = resultsRead(chosen.rows);
  if (options.segmentation === 'best' && first < FEW_RESULTS) {
    const sparse = await read('sparse');
    if (resultsRead(sparse.rows) > first) chosen = sparse;
  }
  if (!options.digitPass || !prepared) return chosen;
  const tables = findTables(chosen.rows);
  if (tables.length === 0) return chosen;
  const height = median(chosen.text.tokens.map((token) => token.height));
  const { rows } = await rereadNumbers(chosen.rows, tables, prepared, height);
  return { text: chosen.text, rows };
}

/** Every page of a file read, how many by OCR, and how many the file has. */
export type ReadReport = { pages: ReadPage[]; ocrPages: number; total: number };

export async function readPages(
  bytes: Buffer,
  mediaType: MediaType,
  options: ReaderOptions,
): Promise<ReadReport> {
  if (mediaType !== 'application/pdf') {
    return { pages: [await readImage(bytes, 1, options)], ocrPages: 1, total: 1 };
  }
  const pdfPages = await readPdf(bytes, { maxPages: MAX_PAGES });
  const pages: ReadPage[] = [];
  let ocrPages = 0;
  for (const page of pdfPages) {
    if (page.kind === 'text') pages.push({ text: page.text, rows: buildRows(page.text) });
    else {
      ocrPages += 1;
      pages.push(await readImage(page.png, page.page, options));
    }
  }
  return { pages, ocrPages, total: pdfPages.length };
}
