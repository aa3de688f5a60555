// Table rows rebuilt from positions. Words on one baseline form a row (OCR words sit on their
// line's baseline with the page's slant undone, see ocr.ts); within a row, words closer than a
// space-and-a-bit join into a cell, and wider gaps separate cells (table columns, and the columns
// of a multi-column page, which the row parser then reads as several results on one row).
import type { PageText, TextToken } from './tokens.ts';

export type Cell = {
  text: string;
  x0: number;
  x1: number;
  /** OCR only: the lowest confidence of the cell's words (0–100). */
  confidence?: number;
};
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

/**
 * Text drawn several times over itself (bold by overprinting: the same word again a fraction of a
 * point to the side) kept once; otherwise a name would come out two or four times.
 */
export function withoutOverprint(tokens: TextToken[]): TextToken[] {
  const kept: TextToken[] = [];
  for (const token of tokens) {
    const near = Math.max(token.height * 0.3, 0.5);
    const copy = kept.find(
      (held) =>
        held.text === token.text &&
        Math.abs(held.x0 - token.x0) <= near &&
        Math.abs(held.y - token.y) <= near,
    );
    if (!copy) kept.push(token);
  }
  return kept;
}

/**
 * A superscript (a lab code or footnote mark printed small and raised right after a word) is no
 * part of the name or value it follows: it is dropped.
 */
function isSuperscript(token: TextToken, before: TextToken | undefined, height: number): boolean {
  if (!before || token.text.length > 3) return false;
  const small = token.height < height * 0.75 && token.height < before.height * 0.8;
  const raised = before.y - token.y > before.height * 0.2;
  return small && raised && token.x0 - before.x1 < height * 0.5;
}

function cellsOf(line: TextToken[]): Cell[] {
  const height = median(line.map((token) => token.height)) || 10;
  const sorted = [...line].sort((a, b) => a.x0 - b.x0);
  const cells: Cell[] = [];
  let before: TextToken | undefined;
  for (const token of sorted) {
    if (isSuperscript(token, before, height)) continue;
    before = token;
    const last = cells[cells.length - 1];
    if (last && token.x0 - last.x1 <= height * SAME_CELL) {
      last.text = `${last.text} ${token.text}`;
      last.x1 = Math.max(last.x1, token.x1);
      if (token.confidence !== undefined)
        last.confidence = Math.min(last.confidence ?? 100, token.confidence);
    } else {
      cells.push({
        text: token.text,
        x0: token.x0,
        x1: token.x1,
        ...(token.confidence === undefined ? {} : { confidence: token.confidence }),
      });
    }
  }
  return cells;
}

/** The page's rows, top to bottom, each with its cells left to right. */
export function buildRows(page: PageText): Row[] {
  const lines = linesByBaseline(withoutOverprint(page.tokens));
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
