// The unit pass: on a photographed page, the units of result rows the page pass read badly
// (nothing in the units column, a word the engine doubted, or text that is no unit) are cut out of
// the prepared image and read again with only the characters units are written in, all in one
// engine call (stacked, as the digit pass does). A reading is taken when it is a unit the
// dictionary knows read with confidence, or one of the units the row's test is reported in;
// otherwise the row keeps what the page pass read. Tables without a units column that print the
// unit after the range (`3.5-5.2 mmol/L`) have that end of their range cells read the same way,
// and, where the page pass lost a row's unit after its range altogether, the stretch as far as
// the other rows' units reach.
import { findBiomarker } from '../dictionary/match.ts';
import type { BiomarkerEntry } from '../dictionary/biomarkers.ts';
import { nearestUnit, ucumFor } from '../dictionary/units.ts';
import { columnOf, columnSpans, type TableModel, tablesInForce } from './columns.ts';
import { type Job, readStacked } from './digit-pass.ts';
import type { PreparedImage } from './ocr-image.ts';
import type { Cell, Row } from './rows.ts';

/** Letters, digits and the marks units are printed with (`mg/dL`, `x10E3/uL`, `mL/min/1.73m2`, `%`). */
const UNIT_CHARACTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/%.*^µ';
/** A unit cell read below this engine confidence (0–100) is read again. */
const DOUBTFUL = 60;
/** Minimum confidence of the second reading. */
const MIN_CONFIDENCE = 50;
const CELLS_PER_CALL = 60;

/** The UCUM codes a test is reported in. */
const unitsOf = (entry: BiomarkerEntry | undefined): string[] =>
  entry
    ? [entry.ucum, ...(entry.alternates ?? []).map((alternate) => alternate.ucum)].filter(
        (code): code is string => code !== undefined,
      )
    : [];

/**
 * The unit a second reading gives, or undefined: a known unit read with confidence, or, whatever
 * the engine's confidence, one of the units the row's test is reported in (`x1079/L` for x10^9/L
 * beside a white cell count; `UL` one edit from U/L beside an enzyme). The test's own units are a
 * short list; a reading near none of them is not taken.
 */
function unitTaken(printed: string, confidence: number, codes: string[]): string | undefined {
  // A speck after the unit read as a point (`mmol.`, `X10E6/ul.`).
  const text = printed.replace(/[.,:;]+$/, '');
  const ucum = ucumFor(text);
  if (ucum && (confidence >= MIN_CONFIDENCE || codes.includes(ucum))) return text;
  if (ucum) return undefined;
  const nearest = nearestUnit(text, codes);
  return nearest;
}

/** Whether the page pass's unit cells of a row need reading again. */
const unitInDoubt = (cells: Cell[]) =>
  cells.length === 0 ||
  cells.some((cell) => (cell.confidence ?? 100) < DOUBTFUL) ||
  !ucumFor(cells.map((cell) => cell.text).join(''));

/** The rows with the unit cells of result rows read again where the page pass read them badly. */
export async function rereadUnits(
  rows: Row[],
  tables: TableModel[],
  image: PreparedImage,
  textHeight: number,
): Promise<{ rows: Row[]; changed: number }> {
  type UnitJob = Job & { table: TableModel; codes: string[] };
  const jobs: UnitJob[] = [];
  rows.forEach((row, rowAt) => {
    for (const table of tablesInForce(tables, row)) {
      const span = columnSpans(table).find(({ column }) => column.role === 'unit');
      if (!span) continue;
      const mine = row.cells.filter((cell) => cell.x0 >= table.from && cell.x0 < table.to);
      const roleOf = (cell: Cell) => columnOf(table, cell).role;
      // Only rows that are results: a known test with a number in the result column.
      const entry = mine
        .filter((cell) => roleOf(cell) === 'name')
        .map((cell) => findBiomarker(cell.text)?.entry)
        .find((found) => found !== undefined);
      const named = entry !== undefined;
      const valued = mine.some((cell) => roleOf(cell) === 'result' && /\d/.test(cell.text));
      const units = mine.filter((cell) => roleOf(cell) === 'unit');
      if (!named || !valued || !unitInDoubt(units)) continue;
      const x0 = Math.min(span.from, ...units.map((cell) => cell.x0)) + textHeight * 0.2;
      const x1 = Math.max(span.to, ...units.map((cell) => cell.x1)) - textHeight * 0.2;
      if (x1 - x0 < textHeight) continue;
      jobs.push({
        row: rowAt,
        cell: -1,
        table,
        codes: unitsOf(entry),
        box: { x0, x1, y0: row.y - textHeight * 1.25, y1: row.y + textHeight * 0.45 },
      });
    }
  });
  const out = [...rows];
  let changed = await rereadRangeUnits(out, tables, image, textHeight);
  for (let from = 0; from < jobs.length; from += CELLS_PER_CALL) {
    const batch = jobs.slice(from, from + CELLS_PER_CALL);
    const read = await readStacked(image, batch, textHeight, UNIT_CHARACTERS);
    batch.forEach((job, at) => {
      const again = read[at];
      const text = again?.text.replace(/\s+/g, '');
      if (!again || !text) return;
      const unit = unitTaken(text, again.confidence, job.codes);
      if (!unit) return;
      const row = out[job.row]!;
      const cells = row.cells.filter(
        (cell) =>
          !(cell.x0 >= job.table.from && cell.x0 < job.table.to && columnOf(job.table, cell).role === 'unit'),
      );
      const column = columnSpans(job.table).find(
        ({ column: candidate }) => candidate.role === 'unit',
      )!.column;
      cells.push({
        text: unit,
        x0: column.x0,
        x1: Math.max(column.x1, column.x0 + 1),
        confidence: again.confidence,
      });
      cells.sort((a, b) => a.x0 - b.x0);
      out[job.row] = { ...row, cells, text: cells.map((cell) => cell.text).join('  ') };
      changed += 1;
    });
  }
  return { rows: out, changed };
}

/** A range cell with its unit printed after it (`3.5-5.2 mmol/L`): the range, and the unit. */
const RANGE_THEN_UNIT = /^([<>≤≥]?\s*\d[\d.,\s-]*?)\s*([A-Za-zµ%][^\s]*)$/;
/** A range cell with nothing after the range (`3.5-5.2`, `<1.70`). */
const RANGE_ALONE = /^[<>≤≥]?\s*\d[\d.,\s-]*$/;

/**
 * Tables (without a units column) whose range cells print a known unit after the range in at
 * least three rows: how far right those cells reach (the furthest a row's unit can end).
 */
function unitsAfterRanges(rows: Row[], tables: TableModel[]): Map<TableModel, number> {
  const seen = new Map<TableModel, { count: number; reach: number }>();
  for (const row of rows)
    for (const table of tablesInForce(tables, row)) {
      if (table.columns.some((column) => column.role === 'unit')) continue;
      for (const cell of row.cells) {
        if (cell.x0 < table.from || cell.x0 >= table.to || columnOf(table, cell).role !== 'range') continue;
        const split = RANGE_THEN_UNIT.exec(cell.text.trim());
        if (!split || !ucumFor(split[2]!)) continue;
        const held = seen.get(table) ?? { count: 0, reach: 0 };
        seen.set(table, { count: held.count + 1, reach: Math.max(held.reach, cell.x1) });
      }
    }
  return new Map([...seen].filter(([, { count }]) => count >= 3).map(([table, { reach }]) => [table, reach]));
}

/**
 * Tables without a units column that print the unit after the range (`3.5-5.2 mmol/L`): a unit
 * the page pass read badly is read again with the range, the whole cell in the unit pass's
 * characters (and the range's), and the unit at its end taken as unitTaken decides. The range
 * keeps what the page pass (and the digit pass) read. Rows are replaced in `rows`; returns how many.
 */
async function rereadRangeUnits(
  rows: Row[],
  tables: TableModel[],
  image: PreparedImage,
  textHeight: number,
): Promise<number> {
  type RangeJob = Job & { range: string; codes: string[] };
  const jobs: RangeJob[] = [];
  const reach = unitsAfterRanges(rows, tables);
  rows.forEach((row, rowAt) => {
    for (const table of tablesInForce(tables, row)) {
      if (table.columns.some((column) => column.role === 'unit')) continue;
      const mine = row.cells.filter((cell) => cell.x0 >= table.from && cell.x0 < table.to);
      const roleOf = (cell: Cell) => columnOf(table, cell).role;
      const entry = mine
        .filter((cell) => roleOf(cell) === 'name')
        .map((cell) => findBiomarker(cell.text)?.entry)
        .find((found) => found !== undefined);
      const valued = mine.some((cell) => roleOf(cell) === 'result' && /\d/.test(cell.text));
      const ranges = mine.filter((cell) => roleOf(cell) === 'range');
      if (!entry || !valued || ranges.length !== 1) continue;
      const cell = ranges[0]!;
      const split = RANGE_THEN_UNIT.exec(cell.text.trim());
      // A range alone where the table prints a unit after its ranges: the unit was lost (too
      // faint for the page pass); the stretch as far as the other rows' units reach is read.
      const furthest = reach.get(table);
      const lost = !split && RANGE_ALONE.test(cell.text.trim()) ? furthest : undefined;
      if (!split && lost === undefined) continue;
      if (split && (cell.confidence ?? 100) >= DOUBTFUL && ucumFor(split[2]!)) continue;
      jobs.push({
        row: rowAt,
        cell: row.cells.indexOf(cell),
        range: split ? split[1]!.trim() : cell.text.trim(),
        codes: unitsOf(entry),
        box: {
          x0: cell.x0 - textHeight * 0.3,
          // As far as the other rows' units reach: a unit cut short (`x10` of x10^9/L) is read whole.
          x1: Math.min(table.to, Math.max(cell.x1, furthest ?? 0) + textHeight * 0.5),
          y0: row.y - textHeight * 1.25,
          y1: row.y + textHeight * 0.45,
        },
      });
    }
  });
  let changed = 0;
  for (let from = 0; from < jobs.length; from += CELLS_PER_CALL) {
    const batch = jobs.slice(from, from + CELLS_PER_CALL);
    const read = await readStacked(image, batch, textHeight, `${UNIT_CHARACTERS}-<> `);
    batch.forEach((job, at) => {
      const again = read[at];
      const last = again?.text.trim().split(/\s+/).at(-1);
      if (!again || !last || !/[A-Za-zµ%]/.test(last)) return;
      const unit = unitTaken(last, again.confidence, job.codes);
      if (!unit) return;
      const row = rows[job.row]!;
      const cells = row.cells.map((cell, cellAt) =>
        cellAt === job.cell ? { ...cell, text: `${job.range} ${unit}` } : cell,
      );
      rows[job.row] = { ...row, cells, text: cells.map((cell) => cell.text).join('  ') };
      changed += 1;
    });
  }
  return changed;
}
