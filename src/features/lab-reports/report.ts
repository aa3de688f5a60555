// One uploaded file → a parsed report: pages read (text layer, else OCR), rows rebuilt, rows read
// as results, panel headers remembered per column, results interpreted, metadata read.
import { PANEL_NAMES } from './dictionary/biomarkers.ts';
import { isKnownName, matchBiomarker, normalName } from './dictionary/match.ts';
import { recognise } from './extraction/ocr.ts';
import { isColumnHeader, parseRow, type RawResult } from './extraction/parse-values.ts';
import { readPdf, UnreadableFileError } from './extraction/pdf-text.ts';
import { readMetadata } from './extraction/metadata.ts';
import { buildRows, type Row } from './extraction/rows.ts';
import type { PageText } from './extraction/tokens.ts';
import { interpret } from './interpret.ts';
import type { MediaType } from './media-types.ts';
import type { LabPanel, LabResult, ParsedReport } from './result-types.ts';

export { UnreadableFileError };

/** Pages read per report; the rest are left out and said so in the report notes. */
export const MAX_PAGES = 20;

const PANEL_WORDS =
  /\b(panel|profile|chemistry|hematology|haematology|lipids?|thyroid|count|cbc|cmp|bmp|metabolic|urinalysis|iron|vitamins?|hormones?|liver|kidney|renal|inflammation|coagulation|immunology|diabetes|cardiac|electrolytes|differential|fbc|endocrinology|biochemistry)\b/i;

async function readPages(
  bytes: Buffer,
  mediaType: MediaType,
): Promise<{ pages: PageText[]; ocrPages: number; total: number }> {
  if (mediaType !== 'application/pdf') {
    return { pages: [await recognise(bytes, 1)], ocrPages: 1, total: 1 };
  }
  const pdfPages = await readPdf(bytes, { maxPages: MAX_PAGES });
  const pages: PageText[] = [];
  let ocrPages = 0;
  for (const page of pdfPages) {
    if (page.kind === 'text') pages.push(page.text);
    else {
      ocrPages += 1;
      pages.push(await recognise(page.png, page.page));
    }
  }
  return { pages, ocrPages, total: pdfPages.length };
}

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

export async function parseReport(bytes: Buffer, mediaType: MediaType): Promise<ParsedReport> {
  const { pages, ocrPages, total } = await readPages(bytes, mediaType);
  const rows = pages.flatMap((page) => buildRows(page));
  const panels: LabPanel[] = [];
  const panelByKey = new Map<string, LabPanel>();
  /** Headers in force, by the x where their column starts. */
  let active: { x: number; panel: LabPanel }[] = [];
  const results: LabResult[] = [];
  // Headers and their rows start at about the same x: within 4% of the page's width (points on a
  // text page, pixels on a photo, where skew shifts a column's edge a little down the page).
  const widths = new Map(pages.map((page) => [page.page, page.width]));
  for (const row of rows) {
    const tolerance = (widths.get(row.page) ?? 612) * 0.04;
    const raws: RawResult[] = parseRow(row);
    if (raws.length === 0) {
      const headers = panelHeaderCells(row);
      headers.forEach((cell) => {
        const name = cell.text.trim();
        const key = normalName(name)
          .replace(/[^a-z0-9]+/g, '_')
          .replace(/^_|_$/g, '');
        let panel = panelByKey.get(key);
        if (!panel) {
          panel = { id: panels.length + 1, name, key };
          panels.push(panel);
          panelByKey.set(key, panel);
        }
        // A header replaces the one above it in its own column only (two-column pages keep both).
        active = active.filter((held) => Math.abs(held.x - cell.x0) > tolerance);
        active.push({ x: cell.x0, panel });
      });
      continue;
    }
    for (const raw of raws) {
      // A number beside words ("Harbor Labs  1200 Harbor Way") is no result: an unknown name
      // counts only with a unit or a reference range printed beside its value.
      if (!matchBiomarker(raw.name, raw.units) && !raw.units && !raw.referenceText) continue;
      const panel = active.filter((held) => held.x <= raw.x + tolerance).sort((a, b) => b.x - a.x)[0]?.panel;
      results.push(interpret(raw, panel));
    }
  }
  const metadata = readMetadata(rows);
  const usedPanels = panels.filter((panel) =>
    results.some((result) => result.biomarker.panel_id === panel.id),
  );
  const notes = total >= MAX_PAGES ? `only the first ${MAX_PAGES} pages were read` : undefined;
  return {
    results,
    panels: usedPanels,
    ...metadata,
    pages: total,
    ocrPages,
    ...(notes ? { notes } : {}),
  };
}

export { PANEL_NAMES };
