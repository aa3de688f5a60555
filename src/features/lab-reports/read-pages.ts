// The words of every page with their positions: a PDF's text layer where it has one; otherwise
// (photos, scans) OCR over the image made ready for it (ocr-image.ts: letters scaled to the
// engine's best height, light evened, slant undone), read again at a larger scale when the first
// reading finds few results, and a digit-only pass over the numeric cells of the tables found
// (digit-pass.ts). The OCR choices are options so the bench can measure each.
import { findBiomarker } from './dictionary/match.ts';
import { findTables, tablesInForce } from './extraction/columns.ts';
import { rereadNumbers } from './extraction/digit-pass.ts';
import { readRow } from './extraction/read-table.ts';
import {
  ALL_STEPS,
  decode,
  LETTER_HEIGHT,
  measurePage,
  prepareDecoded,
  type PrepareSteps,
  SECOND_LETTER_HEIGHT,
} from './extraction/ocr-image.ts';
import { recognise } from './extraction/ocr.ts';
import { readPdf } from './extraction/pdf-text.ts';
import { buildRows, type Row } from './extraction/rows.ts';
import type { PageText } from './extraction/tokens.ts';
import type { MediaType } from './media-types.ts';

/** Pages read per report; the rest are left out and said so in the report notes. */
export const MAX_PAGES = 20;

export type ReaderOptions = {
  /** Image preparation before OCR: scaling to the engine's letter height, light, deskewing. */
  prepare: PrepareSteps;
  /** Read the page again at a larger letter height when the first reading finds few results. */
  secondScale: boolean;
  /** Read the numeric cells of tables again with digits only. */
  digitPass: boolean;
};
export const DEFAULT_READER: ReaderOptions = { prepare: ALL_STEPS, secondScale: true, digitPass: true };

export type ReadPage = { text: PageText; rows: Row[] };

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/**
 * How a reading went: rows that yield a result with a known name (and, read along the row, a
 * unit or range), and rows that name a known test at all.
 */
function resultsRead(rows: Row[]): { results: number; named: number } {
  const tables = findTables(rows);
  let results = 0;
  let named = 0;
  for (const row of rows) {
    const raws = readRow(row, tablesInForce(tables, row)).raws;
    if (raws.some((raw) => raw.name && findBiomarker(raw.name) !== undefined)) named += 1;
    if (
      raws.some(
        (raw) =>
          raw.value !== undefined &&
          (raw.reading === 'table' || raw.units || raw.referenceText) &&
          findBiomarker(raw.name) !== undefined,
      )
    )
      results += 1;
  }
  return { results, named };
}

/**
 * Few results: fewer than three, or fewer than 60% of the rows that name a known test (panel
 * headers such as "PLATELET COUNT" name one without a value, so a complete reading stays below 100%).
 */
const fewResults = ({ results, named }: { results: number; named: number }) =>
  results < 3 || results < named * 0.6;

async function readImage(bytes: Buffer, page: number, options: ReaderOptions): Promise<ReadPage> {
  const image = decode(bytes);
  // GIF, WebP, BMP: the engine reads them as they are.
  if (!image) {
    const text = await recognise(bytes, page);
    return { text, rows: buildRows(text) };
  }
  const measure = measurePage(image);
  const read = async (letterHeight: number) => {
    const prepared = prepareDecoded(image, measure, options.prepare, letterHeight);
    const text = await recognise(
      prepared.png,
      page,
      { width: prepared.width, height: prepared.height },
      'block',
    );
    const rows = buildRows(text);
    return { prepared, text, rows, score: resultsRead(rows) };
  };
  let chosen = await read(LETTER_HEIGHT);
  // The first scale missed much of the table (small decimal points and thin type are lost when
  // letters are small, a blurred photo's letters run together): the page is read again larger.
  if (options.secondScale && options.prepare.scale && fewResults(chosen.score)) {
    const second = await read(SECOND_LETTER_HEIGHT);
    if (second.score.results > chosen.score.results) chosen = second;
  }
  if (!options.digitPass) return chosen;
  const tables = findTables(chosen.rows);
  if (tables.length === 0) return chosen;
  const height = median(chosen.text.tokens.map((token) => token.height));
  const { rows } = await rereadNumbers(chosen.rows, tables, chosen.prepared, height);
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
