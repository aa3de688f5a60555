// A row's cells read as results. Each cell is cut into pieces (a number, a number with its flag,
// a range, a unit, a flag, a qualitative answer, a word), and the pieces are read left to right:
// words make a name; the first number (or answer) after a name is its value; then a flag, a unit
// and a reference range may follow in any order. A new name after a value starts the next result
// on the same row, which is how the columns of a multi-column page come apart.
import { isKnownName } from '../dictionary/match.ts';
import { looksLikeUnit } from '../dictionary/units.ts';
import type { Row } from './rows.ts';

/** Ranges printed per sex in one cell (`M: 13.5-17.5 F: 12.0-15.5`), read by sex-ranges.ts. */
export type RangesBySex = { male: string; female: string };

export type RawResult = {
  name: string;
  /** Where the name starts: decides which column's panel header it belongs to. */
  x: number;
  page: number;
  y: number;
  value?: string;
  flag?: string;
  units?: string;
  referenceText?: string;
  /** Ranges printed per sex in one cell; the report decides which applies (sex-ranges.ts). */
  referenceBySex?: RangesBySex;
  /** OCR only: the engine's confidence in the name and value words (0–100, the lower one). */
  ocrConfidence?: number;
  /** Read against a table's columns (its titles found), or read along the row without them. */
  reading?: 'table' | 'row';
};

export type PieceKind = 'number' | 'range' | 'unit' | 'flag' | 'answer' | 'word';
type Piece = { kind: PieceKind; text: string; startsCell: boolean; x: number; flag?: string; unit?: string };

const NUMBER = /^[<>≤≥]?-?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?$|^[<>≤≥]?\.\d+$/;
// Flags as printed: letters, words, marks and arrows (↑ ↓, ▲ ▼ on some lab portals).
const NUMBER_WITH_FLAG = /^((\d{1,3}(,\d{3})+|\d+)(\.\d+)?)(HH|LL|H|L|\*|[↑↓▲▼])$/;
const RANGE = /^(\d+(\.\d+)?)-(\d+(\.\d+)?)$/;
const FLAG =
  /^(HH|LL|H|L|A|AA|\*|\*\*|!|[↑↓▲▼]|↑↑|↓↓|High|Low|HIGH|LOW|Abnormal|ABNORMAL|Abn|ABN|Critical|CRITICAL)$/;
const ANSWER =
  /^(negative|positive|trace|detected|not detected|non-reactive|nonreactive|reactive|normal|abnormal|clear|cloudy|yellow|none|none seen|equivocal|indeterminate)$/i;
const HEADER_WORDS =
  /^(tests?|test name|analyte|component|results?|flags?|units?|reference|reference range|reference interval|ref range|range|normal range|value|your value|standard range|status|lab)$/i;

/** `4.8 - 5.6` → `4.8-5.6`, `< 200` → `<200`, `>OR=60` → `≥60`: one piece each. */
export function tidy(text: string): string {
  return (
    text
      .replace(/([<>])\s*or\s*=\s*/gi, (_, sign: string) => (sign === '<' ? '≤' : '≥'))
      .replace(/<=\s*/g, '≤')
      .replace(/>=\s*/g, '≥')
      .replace(/(\d)\s*[-–—]\s*(\d)/g, '$1-$2')
      // OCR reads a decimal point (before a single digit) or a range's dash as a colon or tilde
      // now and then; a clock time (08:15) stays.
      .replace(/\b(\d+(?:\.\d+)?)[:~](\d+(?:\.\d+)?)\b/g, (whole, low: string, high: string) => {
        if (/^\d{1,2}$/.test(low) && /^\d{2}$/.test(high) && Number(low) < 24 && Number(high) < 60)
          return whole;
        return /^\d$/.test(high) && !low.includes('.') ? `${low}.${high}` : `${low}-${high}`;
      })
      .replace(/([<>≤≥])\s+(\d)/g, '$1$2')
      .replace(/\s+/g, ' ')
      .trim()
  );
}

export function classify(text: string): Pick<Piece, 'kind' | 'flag' | 'unit'> & { text: string } {
  const bare = text.replace(/^\((.*)\)$/, '$1');
  if (NUMBER.test(text)) return { kind: 'number', text };
  const percent = /^(\d+(\.\d+)?)%$/.exec(text);
  if (percent) return { kind: 'number', text: percent[1]!, unit: '%' };
  const flagged = NUMBER_WITH_FLAG.exec(text);
  if (flagged) return { kind: 'number', text: flagged[1]!, flag: flagged[5]! };
  if (RANGE.test(text)) return { kind: 'range', text };
  if (FLAG.test(text)) return { kind: 'flag', text };
  if (ANSWER.test(text)) return { kind: 'answer', text };
  if (looksLikeUnit(bare)) return { kind: 'unit', text: bare };
  return { kind: 'word', text };
}

function piecesOf(row: Row): Piece[] {
  const pieces: Piece[] = [];
  for (const cell of row.cells) {
    const words = tidy(cell.text).split(' ').filter(Boolean);
    let first = true;
    for (let index = 0; index < words.length; index += 1) {
      let word = words[index]!;
      // Units printed with a space inside ("mL/min/1.73 m2", "x10E3 /uL").
      const next = words[index + 1];
      if (next && classify(word).kind === 'word' && looksLikeUnit(`${word}${next}`)) {
        word = `${word}${next}`;
        index += 1;
      }
      // "not detected", "none seen": two-word answers.
      if (next && ANSWER.test(`${word} ${next}`)) {
        word = `${word} ${next}`;
        index += 1;
      }
      pieces.push({ ...classify(word), startsCell: first, x: cell.x0 });
      first = false;
    }
  }
  return pieces;
}

/** A row of column titles ("Test  Result  Flag  Units  Reference Range"). */
export function isColumnHeader(row: Row): boolean {
  return row.cells.filter((cell) => HEADER_WORDS.test(cell.text.trim())).length >= 2;
}

/**
 * Whether a reading is kept: a nameless value only when a unit or range follows it (a street or
 * page number does not look like a result), a name read from a unit-like word only with a value
 * (`mg/dL 0-99` wrapped onto its own line is not a result), any other name with anything after it.
 */
function worthKeeping(raw: RawResult, unitNamed: boolean): boolean {
  if (raw.name === '') return Boolean(raw.units || raw.referenceText);
  if (unitNamed) return raw.value !== undefined;
  return raw.value !== undefined || Boolean(raw.units || raw.referenceText);
}

export function parseRow(row: Row): RawResult[] {
  if (isColumnHeader(row)) return [];
  const results: RawResult[] = [];
  let current: RawResult | null = null;
  let unitNamed = false;
  const finish = () => {
    if (current && worthKeeping(current, unitNamed)) results.push(current);
    unitNamed = false;
    current = null;
  };
  for (const piece of piecesOf(row)) {
    // A "label: value" cell is report metadata (patient, dates), never a result.
    if (piece.text.endsWith(':')) {
      finish();
      continue;
    }
    const open: RawResult | null = current;
    // A unit-like word with no result open is a name ("Chol/HDLC Ratio", "A/G Ratio"): a unit
    // needs a value before it, and read as a unit the whole row would vanish without a trace.
    if (piece.kind === 'word' || (piece.kind === 'unit' && !open)) {
      if (open && open.value === undefined && !open.units && !open.referenceText) {
        open.name = `${open.name} ${piece.text}`;
      } else {
        finish();
        current = { name: piece.text, x: piece.x, page: row.page, y: row.y };
        unitNamed = piece.kind === 'unit';
      }
      continue;
    }
    if (!open) {
      // A value printed before any name (its name wrapped onto the line above, or unreadable):
      // kept nameless so the gate lists it under `unmatched` instead of dropping it.
      if (piece.kind === 'number')
        current = { name: '', x: piece.x, page: row.page, y: row.y, value: piece.text };
      continue;
    }
    if (open.value === undefined) {
      // Numbers that belong to a name ("CA 19-9", "CA 125") rather than to its value.
      if (
        (piece.kind === 'number' || piece.kind === 'range') &&
        !piece.startsCell &&
        isKnownName(`${open.name} ${piece.text}`)
      ) {
        open.name = `${open.name} ${piece.text}`;
        continue;
      }
      if (
        piece.kind === 'number' ||
        (piece.kind === 'answer' && (piece.startsCell || isKnownName(open.name)))
      ) {
        open.value = piece.text;
        if (piece.flag) open.flag = piece.flag;
        if (piece.unit) open.units = piece.unit;
        continue;
      }
      if (piece.kind === 'answer') {
        open.name = `${open.name} ${piece.text}`;
        continue;
      }
    }
    switch (piece.kind) {
      case 'flag':
        // Before a value, a lone letter is part of the name ("Vitamin A", "Hepatitis A"); a
        // mark or an arrow never is (`Potassium ↑ 6.8`).
        if (open.value === undefined && /^[a-z]/i.test(piece.text)) open.name = `${open.name} ${piece.text}`;
        else if (open.value === undefined) open.flag ??= piece.text;
        else if (open.flag === undefined) open.flag = piece.text;
        break;
      case 'unit':
        if (open.units === undefined) open.units = piece.text;
        break;
      case 'range':
      case 'number':
      case 'answer':
        if (open.referenceText === undefined) open.referenceText = piece.text;
        else if (piece.kind === 'number' && open.value === undefined) open.value = piece.text;
        break;
      default:
        break;
    }
  }
  finish();
  return results.map((result) => ({ ...result, name: result.name.replace(/[,;]$/, '').trim() }));
}
