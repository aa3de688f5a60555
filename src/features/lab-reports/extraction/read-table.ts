// One row read against its table's columns: the name from the name column, the value (and a flag
// printed before or after it: `L 18`, `High 5.6`, `18 H`) from the current result column only,
// the unit from the unit column (or from inside the range column, or after the value), the range
// from the range column (a flag word printed in front of it, `Low 13.0 - 17.0`, is the flag; two
// numbers whose dash was lost are a range). Earlier results, lab codes and anything else in other
// columns are never a value.
import { looksLikeUnit } from '../dictionary/units.ts';
import { columnOf, type ColumnRole, type TableModel } from './columns.ts';
import { classify, parseRow, tidy, type RawResult } from './parse-values.ts';
import type { Cell, Row } from './rows.ts';
import { rangesBySex } from './sex-ranges.ts';

const FLAG_WORD = /^(HH|LL|H|L|High|Low|HIGH|LOW|Abnormal|ABNORMAL|Abn|ABN|A|\*|\*\*|!|[↑↓▲▼]|↑↑|↓↓)$/;
/** Trailing footnote marks and lab codes left on a name: `*`, `†`, `#`, `(1)`, `[a]`, `¹`. */
const NAME_MARKS = /(\s*([*†‡#§¹²³⁴⁵⁶⁷⁸⁹⁰]+|\(\d\)|\[[a-z0-9]\]))+$/i;

export type TableRow = { raw: RawResult } | { unread: string } | undefined;

function byRole(table: TableModel, row: Row): Map<ColumnRole, Cell[]> {
  const parts = new Map<ColumnRole, Cell[]>();
  for (const cell of row.cells) {
    if (cell.x0 < table.from || cell.x0 >= table.to) continue;
    const role = columnOf(table, cell).role;
    parts.set(role, [...(parts.get(role) ?? []), cell]);
  }
  return parts;
}

const joined = (cells: Cell[] | undefined) => (cells ?? []).map((cell) => cell.text).join(' ');
const wordsOf = (cells: Cell[] | undefined) => tidy(joined(cells)).split(' ').filter(Boolean);

function lowestConfidence(cells: Cell[]): number | undefined {
  const known = cells.map((cell) => cell.confidence).filter((value): value is number => value !== undefined);
  return known.length > 0 ? Math.min(...known) : undefined;
}

/** A unit printed in the name column after the name: `Glucose (mg/dL)`, `Glucose, mg/dL`. */
const UNIT_IN_NAME = /^(.*[a-z].*?)(?:\s*\(([^()]+)\)|,\s*(\S+))$/i;

function unitInName(name: string): { name: string; units?: string } {
  const match = UNIT_IN_NAME.exec(name);
  const units = match?.[2] ?? match?.[3];
  return match && units && looksLikeUnit(units) ? { name: match[1]!.trim(), units } : { name };
}

/** The name as printed, without footnote marks and without a flag letter printed after it. */
function nameOf(cells: Cell[] | undefined): { name: string; flag?: string } {
  const words = joined(cells)
    .replace(NAME_MARKS, '')
    .replace(/[,;:]$/, '')
    .trim()
    .split(/\s+/);
  const last = words[words.length - 1];
  if (words.length > 1 && last && /^(H|L|HH|LL|High|Low|HIGH|LOW|[↑↓▲▼])$/.test(last))
    return {
      name: words
        .slice(0, -1)
        .join(' ')
        .replace(/[,;:]$/, ''),
      flag: last,
    };
  return { name: words.join(' ') };
}

type Reading = { value?: string; flag?: string; units?: string; range?: string; rangeInValue?: boolean };

/** A flag letter run into its value (`L18`, `H212`, `35.7H` is handled by classify). */
const FLAG_ON_VALUE = /^(HH|LL|H|L|[↑↓▲▼])([<>]?\d[\d.,]*)$/;

/**
 * OCR reads a printed asterisk after a value as a degree sign or a plus (`5.8°`, `24+`), and a
 * speck between a value and its flag as a degree sign (`212°H` for `212 H`).
 */
const ASTERISK_READ_AS = /^([<>]?\d[\d.,]*)[°+](HH|LL|H|L)?$/;

function readResultCell(printed: string[], into: Reading, ocr = false) {
  const words = printed.flatMap((word) => {
    const starred = ocr ? ASTERISK_READ_AS.exec(word) : null;
    // Before a flag letter the mark is no asterisk (the flag already says abnormal): a speck.
    if (starred) return starred[2] ? [starred[1]!, starred[2]] : [starred[1]!, '*'];
    const glued = FLAG_ON_VALUE.exec(word);
    return glued ? [glued[1]!, glued[2]!] : [word];
  });
  for (const word of words) {
    const piece = classify(word);
    if (piece.kind === 'flag' || FLAG_WORD.test(word)) into.flag ??= word;
    else if (piece.kind === 'number' && into.value === undefined) {
      into.value = piece.text;
      if (piece.flag) into.flag ??= piece.flag;
      if (piece.unit) into.units ??= piece.unit;
    } else if (piece.kind === 'answer' && into.value === undefined) into.value = piece.text;
    else if (piece.kind === 'range') into.rangeInValue = true;
    else if (piece.kind === 'unit') into.units ??= piece.text;
  }
}

/** OCR lost both the point and the dash of a range (`3.5-5.2` read `3552`): kept for plausibility.ts to split. */
const FUSED_RANGE = /^(\d{2}|\d{3})(\d{2}|\d{3})$/;

function readRangeCell(printed: string[], into: Reading, ocr = false) {
  const numbers: string[] = [];
  // Ranges printed in brackets, `(135-165)`, `[4.0-5.8]`, read as the range inside.
  const words = printed.flatMap((word) => {
    const bare = word
      .replace(/^[([](?=[\d<>≤≥.])|(?<=\d)[)\]]$/g, '')
      // OCR reads a range's dash as a point between two decimals (`3.9.5.5`).
      .replace(/^(\d+\.\d+)\.(\d+\.\d+)$/, '$1-$2');
    // A unit printed against the range (`20-40%`).
    const unit = /^(.*\d)(%)$/.exec(bare);
    return unit ? [unit[1]!, unit[2]!] : [bare];
  });
  const after: string[] = [];
  for (const word of words) {
    const piece = classify(word);
    if (piece.kind === 'range') into.range ??= piece.text;
    else if (piece.kind === 'number') numbers.push(piece.text);
    else if (FLAG_WORD.test(word) && into.range === undefined && numbers.length === 0) into.flag ??= word;
    else if (piece.kind === 'unit') into.units ??= piece.text;
    else if (piece.kind === 'answer') into.range ??= piece.text;
    else if (ocr && (into.range !== undefined || numbers.length > 0)) after.push(word);
  }
  // On a photo, a unit printed after the range that OCR misspelt (`3.9-5.5 mmoliL`): kept as the
  // unit, for plausibility.ts to match against the test's own units (or to keep as printed).
  if (ocr && after.length === 1 && /[a-z]/i.test(after[0]!)) into.units ??= after[0];
  if (into.range !== undefined) return;
  // A bound (`< 2`, `>60`) or two numbers whose dash the print or OCR lost (`1500  7500`).
  if (numbers.length === 1 && /^[<>≤≥]/.test(numbers[0]!)) into.range = numbers[0];
  else if (ocr && numbers.length === 1 && FUSED_RANGE.test(numbers[0]!) && numbers[0]!.length % 2 === 0)
    into.range = numbers[0];
  // Both bounds printed with their signs (`>=0.45 <=4.50`, read `≥0.45 ≤4.50`): inclusive ends.
  else if (numbers.length === 2 && numbers[0]!.startsWith('≥') && numbers[1]!.startsWith('≤'))
    into.range = `${numbers[0]!.slice(1)}-${numbers[1]!.slice(1)}`;
  else if (numbers.length === 2 && !/^[<>≤≥]/.test(numbers[0]!)) into.range = `${numbers[0]}-${numbers[1]}`;
}

/** A row below a table's titles read against its columns; undefined when it holds no value at all. */
export function readTableRow(table: TableModel, row: Row): TableRow {
  const parts = byRole(table, row);
  const printedName = nameOf(parts.get('name'));
  const { name, units: nameUnits } = unitInName(printedName.name);
  const nameFlag = printedName.flag;
  const reading: Reading = {};
  const ocr = row.cells.some((cell) => cell.confidence !== undefined);
  readResultCell(wordsOf(parts.get('result')), reading, ocr);
  readRangeCell(wordsOf(parts.get('range')), reading, ocr);
  for (const word of wordsOf(parts.get('flag'))) if (FLAG_WORD.test(word)) reading.flag ??= word;
  // A long unit runs into the range printed after it (`mL/min/1.73m2 >59`): the range words are the range's.
  const unitWords = joined(parts.get('unit')).trim().split(/\s+/).filter(Boolean);
  const rangeAt = unitWords.findIndex((word, at) => at > 0 && /^[<>≤≥(]?\d/.test(word));
  if (rangeAt > 0) readRangeCell(tidy(unitWords.splice(rangeAt).join(' ')).split(' '), reading);
  if (unitWords.length > 0) reading.units = unitWords.join(' ');
  reading.units ??= nameUnits;
  // A unit printed in the result column's title holds for every row below it.
  reading.units ??= table.columns.find((column) => column.role === 'result')?.units;
  reading.flag ??= nameFlag;
  const printedRange = tidy(joined(parts.get('range')));
  const bySex = rangesBySex(printedRange);
  if (reading.value === undefined) {
    // A range where the result belongs (`>35` in a value column is a value; `20 - 40` is not).
    if (name && reading.rangeInValue) return { unread: joined([...parts.values()].flat()) };
    return undefined;
  }
  if (!name || !/[a-z]{2}/i.test(name)) return { unread: joined([...parts.values()].flat()) };
  const used = [...(parts.get('name') ?? []), ...(parts.get('result') ?? [])];
  const confidence = lowestConfidence(used);
  return {
    raw: {
      name,
      x: parts.get('name')?.[0]?.x0 ?? table.from,
      page: row.page,
      y: row.y,
      value: reading.value,
      ...(reading.flag ? { flag: reading.flag } : {}),
      ...(reading.units ? { units: reading.units } : {}),
      ...(bySex
        ? { referenceText: printedRange, referenceBySex: bySex }
        : reading.range
          ? { referenceText: reading.range }
          : {}),
      ...(confidence === undefined ? {} : { ocrConfidence: confidence }),
      reading: 'table',
    },
  };
}

/**
 * A row's raw results: against the columns of the tables in force (one, or several side by side),
 * and along the row for cells no table covers (a page half whose titles were not read) or for
 * the whole row when there is no table.
 */
export function readRow(row: Row, tables: TableModel[]): { raws: RawResult[]; unread: string[] } {
  const raws: RawResult[] = [];
  const unread: string[] = [];
  for (const table of tables) {
    const read = readTableRow(table, row);
    if (read && 'raw' in read) raws.push(read.raw);
    else if (read) unread.push(read.unread);
  }
  const uncovered = row.cells.filter(
    (cell) => !tables.some((table) => cell.x0 >= table.from && cell.x0 < table.to),
  );
  if (uncovered.length > 0) {
    const rest = { ...row, cells: uncovered, text: uncovered.map((cell) => cell.text).join('  ') };
    raws.push(...parseRow(rest).map((raw) => ({ ...raw, reading: 'row' as const })));
  }
  return { raws, unread };
}
