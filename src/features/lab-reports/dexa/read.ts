// A DXA report's tables read into results keyed by measure and body region. A table starts at a
// header row with a "Region" title and at least one DXA quantity (measures.ts), its units on the
// same title or alone on the line below; each row under it that names a region (regions.ts)
// gives one result per numeric cell, the cell given to the column whose title sits nearest. A
// new header starts a new table; rows that name no region are left alone (headings, notes).
import type { Cell, Row } from '../extraction/rows.ts';
import { NEEDS_REVIEW_BELOW } from '../plausibility.ts';
import type { LabResult, UnmatchedRow } from '../result-types.ts';
import { interpretScore } from './interpretation.ts';
import { type Column, columnOf, unitLine } from './measures.ts';
import { type RegionKey, regionOf, totalIn } from './regions.ts';

/** A title over a column; `read` is absent for titles the reader does not take (their values are skipped). */
type HeaderColumn = { x: number; title: string; read?: Column };
type Table = { columns: HeaderColumn[]; rows: { row: Row; name: string; region: RegionKey | 'total?' }[] };

const center = (cell: Cell) => (cell.x0 + cell.x1) / 2;
const NUMBER = /^[-−–]?\d{1,3}(,\d{3})+(\.\d+)?$|^[-−–]?\d+(\.\d+)?$/;

/** A printed number (thousands commas, a typographic minus), or undefined. */
export function numberOf(text: string): number | undefined {
  const trimmed = text.trim();
  if (!NUMBER.test(trimmed)) return undefined;
  return Number(trimmed.replace(/[−–]/, '-').replace(/,/g, ''));
}

/** The table a header row opens, or undefined when the row is no DXA header. */
function headerOf(row: Row, below: Row | undefined): HeaderColumn[] | undefined {
  const regionAt = row.cells.findIndex((cell) => /^region$/i.test(cell.text.trim()));
  if (regionAt < 0) return undefined;
  // Every other title is a column, read or not, so a value under one the reader does not take
  // (a "Young-Adult (%)" beside the T-score) is never given to its neighbour.
  const columns: HeaderColumn[] = row.cells
    .filter((_, index) => index !== regionAt)
    .map((cell) => {
      const read = columnOf(cell.text);
      return { x: center(cell), title: cell.text.trim(), ...(read ? { read } : {}) };
    });
  if (!columns.some((column) => column.read)) return undefined;
  // Units printed on a second line under their titles.
  if (below && below.cells.length > 0 && below.cells.every((cell) => unitLine(cell.text))) {
    for (const cell of below.cells) {
      const nearest = nearestColumn(columns, center(cell));
      if (!nearest) continue;
      const retitled = columnOf(`${nearest.title} (${unitLine(cell.text)})`);
      if (retitled) nearest.read = retitled;
    }
  }
  return columns;
}

function nearestColumn<T extends { x: number }>(columns: T[], x: number): T | undefined {
  let best: T | undefined;
  for (const column of columns) if (!best || Math.abs(column.x - x) < Math.abs(best.x - x)) best = column;
  return best;
}

export type DexaReading = { results: LabResult[]; unmatched: UnmatchedRow[]; tables: number };

/** Every DXA table on the pages read into results. */
export function readDexaTables(rows: Row[]): DexaReading {
  const tables: Table[] = [];
  let current: Table | undefined;
  let skipUnitLine = false;
  rows.forEach((row, index) => {
    if (skipUnitLine) {
      skipUnitLine = false;
      return;
    }
    const header = headerOf(row, rows[index + 1]);
    if (header) {
      current = { columns: header, rows: [] };
      tables.push(current);
      const below = rows[index + 1];
      skipUnitLine = !!below && below.cells.length > 0 && below.cells.every((cell) => unitLine(cell.text));
      return;
    }
    if (!current || row.cells.length < 2) return;
    const name = row.cells[0]!.text.trim();
    if (/^total$/i.test(name)) current.rows.push({ row, name, region: 'total?' });
    else {
      const region = regionOf(name);
      if (region) current.rows.push({ row, name, region });
    }
  });

  const results: LabResult[] = [];
  const unmatched: UnmatchedRow[] = [];
  for (const table of tables) {
    const known = table.rows.flatMap((entry) => (entry.region === 'total?' ? [] : [entry.region]));
    for (const { row, name, region } of table.rows) {
      const scoped = region === 'total?' ? totalIn(known) : region;
      const taken = new Set<HeaderColumn>();
      for (const cell of row.cells.slice(1)) {
        const value = numberOf(cell.text);
        const column = nearestColumn(table.columns, center(cell));
        if (value === undefined || !column) {
          if (cell.text.trim() !== '' && !/^[-—]+$/.test(cell.text.trim()))
            unmatched.push({
              page: row.page,
              text: row.text,
              reason: `"${cell.text.trim()}" under no DXA column`,
            });
          continue;
        }
        // Two cells nearest one column: the row does not line up with the table; its second is not guessed.
        if (taken.has(column)) {
          unmatched.push({ page: row.page, text: row.text, reason: `two values under "${column.title}"` });
          continue;
        }
        taken.add(column);
        const read = column.read;
        if (!read) {
          unmatched.push({
            page: row.page,
            text: row.text,
            reason: `"${column.title}" is not a quantity the scan reader takes`,
          });
          continue;
        }
        const confidence = cell.confidence === undefined ? 1 : Math.round(cell.confidence) / 100;
        results.push({
          source: { name, value: cell.text.trim(), ...(read.units ? { units: read.units } : {}) },
          biomarker: { key: read.measure.key, display_name: read.measure.displayName, region: scoped },
          measurement: {
            type: 'numeric',
            numeric: value,
            ...(read.units ? { units: read.units } : {}),
            ...(read.ucum ? { ucum_code: read.ucum } : {}),
          },
          interpretation: interpretScore(read.measure, value),
          confidence,
          needs_review: confidence < NEEDS_REVIEW_BELOW,
        });
      }
    }
  }
  return { results, unmatched, tables: tables.length };
}
