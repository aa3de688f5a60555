// The digit-only pass: on a photographed page, the cells of a table's numeric columns (the current
// result and the range) are cut out of the prepared image and read again with only digits and
// number punctuation allowed. The general pass drops or misreads small decimal points (3.5 → 35,
// 1.5 - 4.1 → 15-41); the second reading is taken only when it has the same digits in the same
// order and differs in punctuation alone, so it can restore a point but never invent a digit;
// or, read surely, when the pieces of ink count its characters and not the page pass's (the
// result then goes to review). Points both readings missed are then looked for in the cell's
// pixels (point-finder.ts).
import { createCanvas } from '@napi-rs/canvas';
import { findBiomarker } from '../dictionary/match.ts';
import { columnOf, columnSpans, type TableModel, tablesInForce } from './columns.ts';
import type { PreparedImage } from './ocr-image.ts';
import { readLine, readLines } from './ocr.ts';
import { type Box, pixelsPairWith, punctuationFromPixels } from './point-finder.ts';
import type { Cell, Row } from './rows.ts';

const NUMERIC_CELL = /^[<>≤≥]?\s*\(?\s*\d[\d.,:\s-]*\)?$/;
const CHARACTERS = '0123456789.,-<>';
/** A value cell the page pass missed is read with the flag letters too (`L 18`, `35.7 H`). */
const VALUE_CHARACTERS = `${CHARACTERS}HL `;
/** Minimum engine confidence (0–100) of a second reading to be taken. */
const MIN_CONFIDENCE = 60;
/** The confidence of a digit-only reading that may replace the page pass's when the ink bears it out. */
const SURE_SECOND_READING = 85;

/**
 * Whether `again` is `before` with decimal points or dashes added and nothing else changed (the
 * digits, their order and every printed mark kept; a comma never becomes a point).
 */
function onlyPointsAdded(before: string, again: string): boolean {
  const old = before.replace(/\s+/g, '');
  const now = again.replace(/\s+/g, '');
  if (now === old) return false;
  let at = 0;
  for (const character of now) {
    if (at < old.length && character === old[at]) at += 1;
    else if (character !== '.' && character !== '-') return false;
  }
  return at === old.length;
}

/** The box cut out on a white margin; `blackAndWhite`: every pixel darker than midway between the box's extremes is ink. */
function cutOut(image: PreparedImage, box: Box, blackAndWhite = false): Buffer {
  const margin = 12;
  const x0 = Math.max(0, Math.floor(box.x0));
  const y0 = Math.max(0, Math.floor(box.y0));
  const width = Math.max(1, Math.min(image.width, Math.ceil(box.x1)) - x0);
  const height = Math.max(1, Math.min(image.height, Math.ceil(box.y1)) - y0);
  const canvas = createCanvas(width + 2 * margin, height + 2 * margin);
  const context = canvas.getContext('2d');
  context.fillStyle = '#ffffff';
  context.fillRect(0, 0, canvas.width, canvas.height);
  context.drawImage(image.canvas, x0, y0, width, height, margin, margin, width, height);
  if (blackAndWhite) {
    const pixels = context.getImageData(0, 0, canvas.width, canvas.height);
    let darkest = 255;
    let lightest = 0;
    for (let at = 0; at < pixels.data.length; at += 4) {
      darkest = Math.min(darkest, pixels.data[at]!);
      lightest = Math.max(lightest, pixels.data[at]!);
    }
    const threshold = (darkest + lightest) / 2;
    for (let at = 0; at < pixels.data.length; at += 4) {
      const value = pixels.data[at]! < threshold ? 0 : 255;
      pixels.data[at] = pixels.data[at + 1] = pixels.data[at + 2] = value;
    }
    context.putImageData(pixels, 0, 0);
  }
  return canvas.toBuffer('image/png');
}

/** A cell to read again: where it sits in the rows, and its box on the prepared page. */
export type Job = { row: number; cell: number; box: Box };

/** The letter height the cells are enlarged to before the second reading (decimal points grow with them). */
const CELL_LETTER_HEIGHT = 30;
/** Cells per engine call: a taller stack only costs memory. */
const CELLS_PER_CALL = 60;

/**
 * The cells stacked into one image, one per line with a blank line between, enlarged, and read in
 * one engine call (one call per cell cost ~0.3 s each: most of a page's time). A line is matched
 * back to the cell whose slot holds its middle.
 */
export async function readStacked(
  image: PreparedImage,
  jobs: Job[],
  textHeight: number,
  characters = CHARACTERS,
): Promise<({ text: string; confidence: number } | undefined)[]> {
  const scale = Math.max(1, Math.min(4, CELL_LETTER_HEIGHT / Math.max(textHeight, 1)));
  const margin = Math.round(textHeight * scale);
  const slots = jobs.map((job) => {
    const x0 = Math.max(0, Math.floor(job.box.x0));
    const y0 = Math.max(0, Math.floor(job.box.y0));
    const width = Math.max(1, Math.min(image.width, Math.ceil(job.box.x1)) - x0);
    const height = Math.max(1, Math.min(image.height, Math.ceil(job.box.y1)) - y0);
    return { x0, y0, width, height };
  });
  const canvasWidth = Math.ceil(Math.max(...slots.map((slot) => slot.width)) * scale) + 2 * margin;
  const tops: number[] = [];
  let y = margin;
  for (const slot of slots) {
    tops.push(y);
    y += Math.ceil(slot.height * scale) + margin;
  }
  const canvas = createCanvas(canvasWidth, y);
  const context = canvas.getContext('2d');
  context.fillStyle = '#ffffff';
  context.fillRect(0, 0, canvas.width, canvas.height);
  context.imageSmoothingQuality = 'high';
  slots.forEach((slot, at) =>
    context.drawImage(
      image.canvas,
      slot.x0,
      slot.y0,
      slot.width,
      slot.height,
      margin,
      tops[at]!,
      Math.ceil(slot.width * scale),
      Math.ceil(slot.height * scale),
    ),
  );
  const lines = await readLines(canvas.toBuffer('image/png'), characters);
  return jobs.map((_, at) => {
    const from = tops[at]! - margin / 2;
    const to = tops[at]! + Math.ceil(slots[at]!.height * scale) + margin / 2;
    const mine = lines.filter((line) => (line.y0 + line.y1) / 2 >= from && (line.y0 + line.y1) / 2 < to);
    if (mine.length !== 1) return undefined;
    return { text: mine[0]!.text.replace(/\s+/g, ' '), confidence: mine[0]!.confidence };
  });
}

/** Whether a cell sits in a table's result or range column (the cells whose numbers are read again). */
function numericRole(inForce: TableModel[], cell: Cell): 'result' | 'range' | undefined {
  const table = inForce.find((candidate) => cell.x0 >= candidate.from && cell.x0 < candidate.to);
  const role = table ? columnOf(table, cell).role : undefined;
  return role === 'result' || role === 'range' ? role : undefined;
}

/** A cell's box on the prepared page: from a little above its letters to below its baseline. */
function cellBox(cell: Cell, row: Row, textHeight: number): Box {
  const pad = textHeight * 0.4;
  return {
    x0: cell.x0 - pad,
    x1: cell.x1 + pad,
    y0: row.y - textHeight * 1.25,
    y1: row.y + textHeight * 0.45,
  };
}

/**
 * Letters OCR reads in place of digits in a value (`2a` for 24, `a8` for 48, `1O5` for 105, `l2`
 * for 12): each with the digit it stands for.
 */
const DIGIT_LOOK_ALIKES: Record<string, string> = {
  a: '4',
  A: '4',
  o: '0',
  O: '0',
  l: '1',
  I: '1',
  '|': '1',
  S: '5',
  s: '5',
  B: '8',
  g: '9',
  q: '9',
  Z: '2',
  z: '2',
  b: '6',
  G: '6',
};
/**
 * A value cell with a letter standing for a digit (a flag letter may follow): `2a`, `a8`, `1O5 H`,
 * or, short, letters only (`as` for 45).
 */
const LETTERED_VALUE =
  /^(?=.*[aAoOlI|SsBgqZzbG])((?=.*\d)[\daAoOlI|SsBgqZzbG.,]+|[aAoOlI|SsBgqZzbG.,]{1,4})(\s?(H|L|HH|LL))?$/;

/** The digits a lettered value stands for (`2a` → `24`), and a flag printed after it. */
export function digitsOfLettered(text: string): { digits: string; flag: string } | undefined {
  if (!LETTERED_VALUE.test(text)) return undefined;
  const flag = /\s?(H|L|HH|LL)$/.exec(text);
  const value = flag ? text.slice(0, flag.index) : text;
  const digits = [...value].map((character) => DIGIT_LOOK_ALIKES[character] ?? character).join('');
  return { digits, flag: flag ? ` ${flag[1]}` : '' };
}

/**
 * A lettered value read again with digits only: taken when that reading, read with confidence,
 * is the value the look-alike table gives (two independent readings agree on every digit); the
 * cell is then the digit reading (and the flag), its confidence the lower of the two. Otherwise
 * unchanged.
 */
function letteredReading(cell: Cell, read: { text: string; confidence: number } | undefined): Cell {
  const lettered = digitsOfLettered(cell.text);
  if (!lettered || !read || read.confidence < MIN_CONFIDENCE) return cell;
  const again = read.text.replace(/\s+/g, '');
  if (again !== lettered.digits && !onlyPointsAdded(lettered.digits, again)) return cell;
  return {
    ...cell,
    text: `${again}${lettered.flag}`,
    confidence: Math.min(cell.confidence ?? 100, read.confidence),
  };
}

/**
 * The cell as the digit-only reading has it: with the points and dashes that reading added, or
 * marked doubtful (confidence 0, so its result goes to review) when the two confident readings
 * differ in their digits (`7` and `71`); unchanged otherwise.
 */
function secondReading(
  cell: Cell,
  read: { text: string; confidence: number } | undefined,
  pixels: (text: string) => boolean,
): Cell {
  if (!read || read.confidence < MIN_CONFIDENCE) return cell;
  if (onlyPointsAdded(cell.text, read.text)) return { ...cell, text: read.text };
  const digits = (text: string) => text.replace(/[^0-9]/g, '');
  if (digits(read.text) === digits(cell.text)) return cell;
  // The digit pass read the cell surely (`71` where the page pass read `7`), and the pieces of
  // ink are as many as its characters and not as many as the page pass's: its reading is taken,
  // still in doubt (the result goes to review).
  const surer = read.confidence >= SURE_SECOND_READING && pixels(read.text) && !pixels(cell.text);
  return { ...cell, ...(surer ? { text: read.text } : {}), confidence: 0 };
}

/**
 * The rows with the numeric cells of each table read again (rows outside any table unchanged).
 * `textHeight`: the page's typical word height, to cut a cell from a little above its baseline.
 */
export async function rereadNumbers(
  rows: Row[],
  tables: TableModel[],
  image: PreparedImage,
  textHeight: number,
): Promise<{ rows: Row[]; changed: number }> {
  let changed = 0;
  const jobs: Job[] = [];
  rows.forEach((row, rowAt) => {
    const inForce = tablesInForce(tables, row);
    row.cells.forEach((cell, cellAt) => {
      const role = numericRole(inForce, cell);
      const lettered = role === 'result' && digitsOfLettered(cell.text) !== undefined;
      if (!role || (!NUMERIC_CELL.test(cell.text) && !lettered)) return;
      jobs.push({ row: rowAt, cell: cellAt, box: cellBox(cell, row, textHeight) });
    });
  });
  const again = new Map<string, { text: string; confidence: number }>();
  for (let from = 0; from < jobs.length; from += CELLS_PER_CALL) {
    const batch = jobs.slice(from, from + CELLS_PER_CALL);
    const read = await readStacked(image, batch, textHeight);
    batch.forEach((job, at) => {
      if (read[at]) again.set(`${job.row}:${job.cell}`, read[at]);
    });
  }
  const out: Row[] = [];
  for (const [rowAt, row] of rows.entries()) {
    const inForce = tablesInForce(tables, row);
    if (inForce.length === 0) {
      out.push(row);
      continue;
    }
    const cells: Row['cells'] = row.cells.map((cell, cellAt) => {
      const read = again.get(`${rowAt}:${cellAt}`);
      const reread = NUMERIC_CELL.test(cell.text)
        ? secondReading(cell, read, (text) =>
            pixelsPairWith(image.canvas, cellBox(cell, row, textHeight), text),
          )
        : letteredReading(cell, read);
      if (reread !== cell) changed += 1;
      const role = numericRole(inForce, cell);
      if (!role) return reread;
      // Points and dashes the pixels show and both readings missed.
      const box = cellBox(reread, row, textHeight);
      const pointed = punctuationFromPixels(image.canvas, box, reread.text, role);
      if (pointed === undefined) return reread;
      if (pointed === 'doubtful') return { ...reread, confidence: 0 };
      changed += 1;
      return { ...reread, text: pointed };
    });
    for (const table of inForce) {
      const filled = await missedValue(table, row, cells, image, textHeight);
      if (!filled) continue;
      // The stretch read again replaces what the page pass left in it (a stray flag, a speck).
      const stray = cells.filter(
        (cell) => cell.x0 >= table.from && cell.x0 < table.to && columnOf(table, cell).role === 'result',
      );
      for (const cell of stray) cells.splice(cells.indexOf(cell), 1);
      cells.push(filled);
      changed += 1;
    }
    cells.sort((a, b) => a.x0 - b.x0);
    out.push({ ...row, cells, text: cells.map((cell) => cell.text).join('  ') });
  }
  return { rows: out, changed };
}

/**
 * A value the page pass did not see at all (the engine's layout analysis drops a column of short
 * numbers now and then): when a row has a name but nothing in the result column, that column's
 * stretch of the row is read on its own. Taken only when it reads as a number (with a flag).
 */
async function missedValue(
  table: TableModel,
  row: Row,
  cells: Row['cells'],
  image: PreparedImage,
  textHeight: number,
): Promise<Row['cells'][number] | undefined> {
  const mine = cells.filter((cell) => cell.x0 >= table.from && cell.x0 < table.to);
  const roles = mine.map((cell) => columnOf(table, cell).role);
  // Only rows naming a known test: panel headers and notes have no value to find.
  const named = mine.some((cell, at) => roles[at] === 'name' && findBiomarker(cell.text) !== undefined);
  const valued = mine.some((cell, at) => roles[at] === 'result' && /\d/.test(cell.text));
  if (!named || valued) return undefined;
  const span = columnSpans(table).find(({ column }) => column.role === 'result');
  if (!span) return undefined;
  const nameEnd = Math.max(...mine.filter((_, at) => roles[at] === 'name').map((cell) => cell.x1));
  const from = Math.max(span.from, nameEnd + textHeight * 0.3);
  const after = mine.filter((cell, at) => cell.x0 > from && roles[at] !== 'result');
  const to = Math.min(span.to, ...after.map((cell) => cell.x0 - textHeight * 0.3));
  if (!(to - from > textHeight)) return undefined;
  // Read twice, in grey and in black and white: a value nobody saw the first time is taken only
  // when both readings agree (a small 71 reads as 11 in one of them now and then).
  const box = { x0: from, x1: to, y0: row.y - textHeight * 1.25, y1: row.y + textHeight * 0.45 };
  const grey = await readLine(cutOut(image, box), VALUE_CHARACTERS);
  const text = grey.text.replace(/\s+/g, ' ').trim();
  // Not refused for a low confidence alone: a faint value (`24.1 L` on a JPEG, confidences 10 and
  // 32) is read right by both. Taken only when the two agree, with the lower confidence carried
  // into the cell, so the result built from it goes to review.
  if (!/^([HL]{1,2} ?)?[<>]?\d+([.,]\d+)*( ?[HL]{1,2})?$/.test(text)) return undefined;
  const sharp = await readLine(cutOut(image, box, true), VALUE_CHARACTERS);
  const other = sharp.text.replace(/\s+/g, ' ').trim();
  // Agreeing but for a decimal point one of them lost: the one that kept it.
  const same = other.replace(/\s+/g, '') === text.replace(/\s+/g, '');
  const agreed =
    same || onlyPointsAdded(other, text) ? text : onlyPointsAdded(text, other) ? other : undefined;
  if (!agreed) return undefined;
  return {
    text: agreed,
    x0: span.column.x0,
    x1: span.column.x1,
    confidence: Math.min(grey.confidence, sharp.confidence),
  };
}
