// The words of every page with their positions: a PDF's text layer where it has one; otherwise
// (photos, scans) OCR over the image made ready for it (ocr-image.ts: letters scaled to the
// engine's best height, light evened, slant undone), read again at a larger scale when the first
// reading finds few results, two tables printed side by side read again one at a time
// (column-split.ts), and a digit-only pass over the numeric cells of the tables found
// (digit-pass.ts). The OCR choices are options so the bench can measure each.
import { findBiomarker } from './dictionary/match.ts';
import { readColumnsApart } from './extraction/column-split.ts';
import { findTables, tablesInForce } from './extraction/columns.ts';
import { rereadNumbers } from './extraction/digit-pass.ts';
import { rereadUnits } from './extraction/unit-pass.ts';
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
  /**
   * Read a page the engine doubted again at a smaller scale, and check the values of the reading
   * kept against the other one (a value the two read differently goes to review).
   */
  recheck: boolean;
  /** Read each of two tables printed side by side again by itself (column-split.ts). */
  splitColumns: boolean;
};
export const DEFAULT_READER: ReaderOptions = {
  prepare: ALL_STEPS,
  secondScale: true,
  digitPass: true,
  recheck: true,
  splitColumns: true,
};

/**
 * A page's words and rows; `check`: the rows of a second reading of the same page (OCR at another
 * scale), whose values are compared with the kept reading's (report.ts).
 */
export type ReadPage = { text: PageText; rows: Row[]; check?: Row[] };

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/**
 * How a reading went: rows that yield a result with a known name (and, read along the row, a
 * unit or range), rows that name a known test at all, and results the engine read with little
 * confidence (the name or value words below DOUBTFUL_CELL).
 */
function resultsRead(rows: Row[]): ReadingScore {
  const tables = findTables(rows);
  let results = 0;
  let named = 0;
  let doubtful = 0;
  for (const row of rows) {
    const raws = readRow(row, tablesInForce(tables, row)).raws;
    if (raws.some((raw) => raw.name && findBiomarker(raw.name) !== undefined)) named += 1;
    const read = raws.filter(
      (raw) =>
        raw.value !== undefined &&
        (raw.reading === 'table' || raw.units || raw.referenceText) &&
        findBiomarker(raw.name) !== undefined,
    );
    if (read.length === 0) continue;
    results += 1;
    if (read.some((raw) => (raw.ocrConfidence ?? 100) < DOUBTFUL_CELL)) doubtful += 1;
  }
  return { results, named, doubtful };
}

type ReadingScore = { results: number; named: number; doubtful: number };

/** An engine confidence (0–100) below which a result's words are in doubt. */
const DOUBTFUL_CELL = 60;

/**
 * Few results: fewer than three, or fewer than 60% of the rows that name a known test (panel
 * headers such as "PLATELET COUNT" name one without a value, so a complete reading stays below 100%).
 */
const fewResults = ({ results, named }: ReadingScore) => results < 3 || results < named * 0.6;

/**
 * Much doubt: more than a fifth of the results read with little confidence. A sharp page reads
 * with one or two such results; a speckled 200 dpi scan read at its own size came back with half
 * of them doubtful and its points and dashes lost, where the same page shrunk read right.
 */
const muchDoubt = ({ results, doubtful }: ReadingScore) => doubtful >= 3 && doubtful > results * 0.2;

/** The results of a reading the engine is sure of: what decides between two readings of a page. */
const trusted = ({ results, doubtful }: ReadingScore) => results - doubtful;

async function readImage(bytes: Buffer, page: number, options: ReaderOptions): Promise<ReadPage> {
  const image = decode(bytes);
  // GIF, WebP, BMP: the engine reads them as they are.
  if (!image) {
    const text = await recognise(bytes, page);
    return { text, rows: buildRows(text) };
  }
  const measure = measurePage(image);
  const read = async (letterHeight: number, belowFloor = false) => {
    const prepared = prepareDecoded(image, measure, options.prepare, letterHeight, belowFloor);
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
  /** The reading not chosen, when the page was read twice: its values check the chosen one's. */
  let other: typeof chosen | undefined;
  // The first scale missed much of the table (small decimal points and thin type are lost when
  // letters are small, a blurred photo's letters run together): the page is read again larger.
  if (options.secondScale && options.prepare.scale && fewResults(chosen.score)) {
    const second = await read(SECOND_LETTER_HEIGHT);
    if (second.score.results > chosen.score.results) [chosen, other] = [second, chosen];
    else other = second;
  }
  // Read at its own size (pages are not shrunk below 32 px letters, see ocr-image.ts) the engine
  // doubted much of the table: the page is read again with its letters at LETTER_HEIGHT, and the
  // reading with more results it is sure of is kept.
  if (
    options.recheck &&
    !other &&
    options.prepare.scale &&
    measure.letterHeight > LETTER_HEIGHT * 1.25 &&
    muchDoubt(chosen.score)
  ) {
    const smaller = await read(LETTER_HEIGHT, true);
    if (trusted(smaller.score) > trusted(chosen.score)) [chosen, other] = [smaller, chosen];
    else other = smaller;
  }
  const height = median(chosen.text.tokens.map((token) => token.height));
  // Two tables side by side: each read again by itself, kept when it reads at least as many
  // results; the whole-page reading then checks its values (one that differs goes to review).
  if (options.splitColumns) {
    const apart = await readColumnsApart(chosen.text, findTables(chosen.rows), chosen.prepared, height);
    if (apart) {
      const rows = buildRows(apart);
      const score = resultsRead(rows);
      if (score.results >= chosen.score.results) {
        other ??= chosen;
        chosen = { ...chosen, text: apart, rows, score };
      }
    }
  }
  const check = options.recheck && other ? { check: other.rows } : {};
  if (!options.digitPass) return { text: chosen.text, rows: chosen.rows, ...check };
  const tables = findTables(chosen.rows);
  if (tables.length === 0) return { text: chosen.text, rows: chosen.rows, ...check };
  const { rows: numbersRead } = await rereadNumbers(chosen.rows, tables, chosen.prepared, height);
  const { rows } = await rereadUnits(numbersRead, tables, chosen.prepared, height);
  return { text: chosen.text, rows, ...check };
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
