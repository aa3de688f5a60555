// Table rows rebuilt from positions. Words on one baseline form a row (OCR words sit on their
// line's baseline with the page's slant undone, see ocr.ts); within a row, words closer than a
// space-and-a-bit join into a cell, and wider gaps separate cells (table columns, and the columns
// of a multi-column page, which the row parser then reads as several results on one row).
import type { PageText, TextToken } from './tokens.ts';

export type Cell = { text: string; x0: number; x1: number };
export type Row = { page: number; y: number; cells: Cell[]; text: string };

/** Baselines closer than this share a row (in font heights). */
const SAME_LINE = 0.45;
/** Words closer than this share a cell (in font heights). */
const SAME_CELL = 0.75;

const median = (values: number[]) => {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

function linesByBaseline(tokens: TextToken[]): TextToken[][] {
  const height = median(tokens.map((token) => token.height)) || 10;
  const sorted = [...tokens].sort((a, b) => a.y - b.y || a.x0 - b.x0);
  const lines: { y: number; tokens: TextToken[] }[] = [];
  for (const token of sorted) {
    const line = lines[lines.length - 1];
    if (line && Math.abs(token.y - line.y) <= height * SAME_LINE) {
      line.tokens.push(token);
      line.y = (line.y * (line.tokens.length - 1) + token.y) / line.tokens.length;
    } else {
      lines.push({ y: token.y, tokens: [token] });
    }
  }
  return lines.map((line) => line.tokens);
}

function cellsOf(line: TextToken[]): Cell[] {
  const height = median(line.map((token) => token.height)) || 10;
  const sorted = [...line].sort((a, b) => a.x0 - b.x0);
  const cells: Cell[] = [];
  for (const token of sorted) {
    const last = cells[cells.length - 1];
    if (last && token.x0 - last.x1 <= height * SAME_CELL) {
      last.text = `${last.text} ${token.text}`;
      last.x1 = Math.max(last.x1, token.x1);
    } else {
      cells.push({ text: token.text, x0: token.x0, x1: token.x1 });
    }
  }
  return cells;
}

/** The page's rows, top to bottom, each with its cells left to right. */
export function buildRows(page: PageText): Row[] {
  const lines = linesByBaseline(page.tokens);
  return lines
    .filter((line) => line.length > 0)
    .map((line) => {
      const cells = cellsOf(line);
      return {
        page: page.page,
        y: median(line.map((token) => token.y)),
        cells,
        text: cells.map((cell) => cell.text).join('  '),
      };
    });
}
