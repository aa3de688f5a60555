// One uploaded file → a parsed report: pages read (text layer, else OCR; read-pages.ts), rows
// read against the table found on the page (its column titles) or along the row where there is
// none, each candidate let through the plausibility gate (plausibility.ts) or kept under
// `unmatched` with the reason, panel headers remembered per column, metadata read.
import { PANEL_NAMES } from './dictionary/biomarkers.ts';
import { findBiomarker, isKnownName, normalName } from './dictionary/match.ts';
import { findTables, tablesInForce } from './extraction/columns.ts';
import { readRow } from './extraction/read-table.ts';
import { isColumnHeader, type RawResult } from './extraction/parse-values.ts';
import { UnreadableFileError } from './extraction/pdf-text.ts';
import { readMetadata } from './extraction/metadata.ts';
import type { Row } from './extraction/rows.ts';
import { rangeForPatient } from './extraction/sex-ranges.ts';
import { interpret } from './interpret.ts';
import type { MediaType } from './media-types.ts';
import { judgeResult } from './plausibility.ts';
import { DEFAULT_READER, MAX_PAGES, readPages, type ReaderOptions, type ReadReport } from './read-pages.ts';
import type { LabPanel, LabResult, ParsedReport, UnmatchedRow } from './result-types.ts';

export { MAX_PAGES, UnreadableFileError };

const PANEL_WORDS =
  /\b(panel|profile|chemistry|hematology|haematology|lipids?|thyroid|count|cbc|cmp|bmp|metabolic|urinalysis|iron|vitamins?|hormones?|liver|kidney|renal|inflammation|coagulation|immunology|diabetes|cardiac|electrolytes|differential|fbc|endocrinology|biochemistry)\b/i;

/** A row that names a group of tests: short, no numbers, a panel word or all capitals, not a test itself. */
function panelHeaderCells(row: Row): Row['cells'] {
  if (isColumnHeader(row) || row.text.includes(':')) return [];
  const cells = row.cells.filter((cell) => {
    const text = cell.text.trim();
    if (/\d/.test(text.replace(/\b(CBC|CMP|BMP)\b/gi, '')) || text.split(/\s+/).length > 7) return false;
    if (isKnownName(text)) return false;
    return (
      PANEL_WORDS.test(text) || (text.length > 3 && text === text.toUpperCase() && /[A-Z]{3}/.test(text))
    );
  });
  return cells.length === row.cells.length ? cells : [];
}

type Gate = { results: LabResult[]; unmatched: UnmatchedRow[] };

/** Plausibility before output: only a dictionary name with a possible value becomes a result. */
function admit(
  printed: RawResult,
  panel: LabPanel | undefined,
  row: Row,
  into: Gate,
  sex: 'female' | 'male' | undefined,
) {
  const raw = printed.referenceBySex
    ? { ...printed, referenceText: rangeForPatient(printed.referenceText!, printed.referenceBySex, sex) }
    : printed;
  const unmatched = (reason: string) => into.unmatched.push({ page: row.page, text: row.text, reason });
  if (!raw.name) return unmatched('a value printed without a test name');
  if (raw.value === undefined) return unmatched(`no value printed for "${raw.name}"`);
  const found = findBiomarker(raw.name, raw.units);
  if (!found) return unmatched(`"${raw.name}" is not a test the dictionary knows`);
  const judged = judgeResult(raw, found.entry, found.fuzzy);
  if (!judged.emit) return unmatched(judged.reason);
  into.results.push(interpret(judged.raw, panel, { entry: found.entry, confidence: judged.confidence }));
}

/**
 * Panel headers ("COMPLETE BLOOD COUNT") and the results under them. A header holds for its own
 * page column until the next header there (two-column pages keep both), across pages.
 */
function panelTracker() {
  const panels: LabPanel[] = [];
  const byKey = new Map<string, LabPanel>();
  /** Headers in force, by the x where their column starts. */
  let active: { x: number; panel: LabPanel }[] = [];
  return {
    panels,
    /** `tolerance`: headers and their rows start at about the same x (skew shifts a photo's edge). */
    header(cell: Row['cells'][number], tolerance: number) {
      const name = cell.text.trim();
      const key = normalName(name)
        .replace(/[^a-z0-9]+/g, '_')
        .replace(/^_|_$/g, '');
      let panel = byKey.get(key);
      if (!panel) {
        panel = { id: panels.length + 1, name, key };
        panels.push(panel);
        byKey.set(key, panel);
      }
      active = active.filter((held) => Math.abs(held.x - cell.x0) > tolerance);
      active.push({ x: cell.x0, panel });
    },
    at(x: number, tolerance: number): LabPanel | undefined {
      return active.filter((held) => held.x <= x + tolerance).sort((a, b) => b.x - a.x)[0]?.panel;
    },
  };
}

/**
 * One file read into results. `options` (OCR steps) exists for the bench; the service always
 * reads with the defaults.
 */
export async function parseReport(
  bytes: Buffer,
  mediaType: MediaType,
  options: ReaderOptions = DEFAULT_READER,
): Promise<ParsedReport> {
  return parseLabPages(await readPages(bytes, mediaType, options));
}

/** The note a report gets when it has more pages than are read. */
export const pagesNote = (total: number) =>
  total >= MAX_PAGES ? `only the first ${MAX_PAGES} pages were read` : undefined;

/** One page's rows read into results (and unmatched rows), panel headers tracked on the way. */
function readPageRows(
  rows: Row[],
  width: number,
  gate: Gate,
  panels: ReturnType<typeof panelTracker>,
  sex: 'female' | 'male' | undefined,
) {
  const tables = findTables(rows);
  // Within 4% of the page's width: points on a text page, pixels on a photo.
  const tolerance = width * 0.04;
  for (const row of rows) {
    if (tables.some((table) => table.headerY === row.y)) continue;
    const { raws, unread } = readRow(row, tablesInForce(tables, row));
    for (const text of unread)
      gate.unmatched.push({ page: row.page, text, reason: 'no value in the result column' });
    if (raws.length === 0) for (const cell of panelHeaderCells(row)) panels.header(cell, tolerance);
    for (const raw of raws) admit(raw, panels.at(raw.x, tolerance), row, gate, sex);
  }
}

/** What a result's value is, for comparing two readings of it. */
const valueOf = (result: LabResult) => {
  const { measurement } = result as { measurement: { numeric?: number; bounded?: { value: number } } };
  return measurement.numeric ?? measurement.bounded?.value ?? result.source.value;
};

/** The review marking of a value two readings of the page disagree on (below NEEDS_REVIEW_BELOW). */
const DISAGREED = 0.5;

/**
 * The results of a page read twice by OCR, checked against the second reading: a result whose
 * test the other reading also found, with a different value, is marked for review (one of the two
 * readings is wrong, and the kept one is not known to be the right one).
 */
function checkedAgainst(results: LabResult[], check: LabResult[]): void {
  for (const result of results) {
    const key = result.biomarker.key;
    if (!key) continue;
    const others = check.filter((other) => other.biomarker.key === key);
    if (others.length === 0 || others.some((other) => valueOf(other) === valueOf(result))) continue;
    result.confidence = Math.min(result.confidence ?? 1, DISAGREED);
    result.needs_review = true;
  }
}

/** Pages already read (read-pages.ts) parsed as a lab report. */
export function parseLabPages({ pages, ocrPages, total }: ReadReport): ParsedReport {
  const panels = panelTracker();
  const gate: Gate = { results: [], unmatched: [] };
  // Read first: the patient's sex decides which of the ranges printed per sex applies.
  const metadata = readMetadata(pages.flatMap((page) => page.rows));
  for (const { text: page, rows, check } of pages) {
    const from = gate.results.length;
    readPageRows(rows, page.width, gate, panels, metadata.patientSex);
    if (!check) continue;
    const checkGate: Gate = { results: [], unmatched: [] };
    readPageRows(check, page.width, checkGate, panelTracker(), metadata.patientSex);
    checkedAgainst(gate.results.slice(from), checkGate.results);
  }
  const usedPanels = panels.panels.filter((panel) =>
    gate.results.some((result) => result.biomarker.panel_id === panel.id),
  );
  const notes = pagesNote(total);
  return {
    results: gate.results,
    panels: usedPanels,
    ...metadata,
    pages: total,
    ocrPages,
    ...(notes ? { notes } : {}),
    ...(gate.unmatched.length > 0 ? { unmatched: gate.unmatched } : {}),
  };
}

export { PANEL_NAMES };
