// Decimal points and dashes found in the pixels of a numeric cell. The engine drops a small
// decimal point now and then even where it is plainly printed (`5.6 H` read `56H`, `3.5-5.2` read
// `3552`, also in a digit-only second reading), because a point a tenth of a letter's height is
// below what its line model weighs. Here the cell is cut out of the prepared page, split in
// pieces of ink (connected components) and the pieces measured: letters and digits are tall, a
// point is a small round piece sitting on their baseline, a dash a short flat piece at half their
// height. When the tall pieces are exactly as many as the characters the engine read, each point
// or dash between two of them can be placed between the same two characters. Digits are never
// changed or added; only punctuation goes in, and only between two digits.
import type { Canvas } from '@napi-rs/canvas';
import { type Box, type Ink, inkPieces, type Piece } from './ink-pieces.ts';

export type { Box } from './ink-pieces.ts';

/** What a repaired cell must look like: a number or a range of two, a comparison sign, a flag. */
const NUMBER_SHAPE = /^[<>]?\d+(\.\d+)?(-\d+(\.\d+)?)?(H|L|HH|LL)?[*°+]?$/;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** What a piece of ink is, measured against the cell's letter height and baseline. */
type Kind = 'glyph' | 'point' | 'dash' | 'mark' | 'part' | 'unknown';

/** Characters that are neither drawn as a tall piece nor counted as one. */
const PUNCTUATION = /[.,\-\s]/;
/** A flag mark printed raised after the value (`5.8 *`), which the engine also reads `°` or `+`. */
const MARKS = /[*°+]/;

/**
 * The cell's text with decimal points and dashes the pixels show put in (between two digits, where
 * the engine read none), or undefined when the pixels do not settle it (pieces and characters do
 * not pair up, a piece that is neither letter, point nor dash, or nothing to add).
 */
export function punctuationFromPixels(
  canvas: Canvas,
  box: Box,
  text: string,
  /** A result cell gets points only; a range cell also its dash. */
  cell: 'result' | 'range',
): string | 'doubtful' | undefined {
  const characters = charactersOf(text);
  if (characters.length < 2 || !/\d/.test(text)) return undefined;
  const layout = cellLayout(canvas, box, characters.length);
  if (!layout) return undefined;
  const { sequence, letter } = layout;
  // Punctuation the engine read stays where it is; pieces add to it, never move or drop it.
  const existing: string[] = [];
  let glyphAt = -1;
  for (const character of text) {
    if (!PUNCTUATION.test(character) && !MARKS.test(character)) glyphAt += 1;
    else if (character !== ' ' && glyphAt >= 0) existing[glyphAt] = (existing[glyphAt] ?? '') + character;
  }
  const after: string[] = [];
  glyphAt = -1;
  for (const { kind } of sequence) {
    if (kind === 'glyph') glyphAt += 1;
    else if (kind === 'mark') continue;
    else if (glyphAt >= 0 && glyphAt < characters.length - 1)
      after[glyphAt] = (after[glyphAt] ?? '') + (kind === 'point' ? '.' : '-');
  }
  // A gap as wide as a space between two characters read as one number (`24.1 L` read `2411`):
  // the reading ran a flag letter into the number as a digit. The cell is in doubt.
  const order = sequence.filter(({ kind }) => kind === 'glyph').map(({ piece }) => piece);
  for (let at = 0; at + 1 < order.length; at += 1) {
    const between = sequence.some(
      ({ piece, kind }) =>
        (kind === 'point' || kind === 'dash') && piece.x0 > order[at]!.x1 && piece.x1 < order[at + 1]!.x0,
    );
    const spaced = /\s/.test(spacesAfter(text, at));
    const digits = /\d/.test(characters[at]!) && /\d/.test(characters[at + 1]!);
    if (digits && !between && !spaced && order[at + 1]!.x0 - order[at]!.x1 > letter * 0.45) return 'doubtful';
  }
  let out = '';
  let added = false;
  for (const [at, character] of characters.entries()) {
    out += character;
    const printed = existing[at] ?? '';
    const seen = after[at] ?? '';
    if (printed) {
      out += printed;
      continue;
    }
    const next = characters[at + 1];
    if (!seen || next === undefined) continue;
    // Only between two digits, one mark: `5.6`, `3.5-5.2`; never a point after a flag letter.
    if (seen.length !== 1 || !/\d/.test(character) || !/\d/.test(next)) return undefined;
    if (seen === '-' && (cell === 'result' || text.includes('-'))) return undefined;
    out += seen;
    added = true;
  }
  // A number has one point at most: two in a row mean a dash went unseen (`4.85.6`).
  if (!added || !NUMBER_SHAPE.test(out.replace(/\s+/g, ''))) return undefined;
  // A range given a point in one of its numbers only, which makes its ends ten times apart
  // (`40-110` → `4.0-110`): the other number's point was not seen either; nothing is said.
  const ends = /^[<>]?(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?)/.exec(out.replace(/\s+/g, ''));
  if (ends && ends[1]!.includes('.') !== ends[2]!.includes('.')) {
    const [lower, upper] = [Number(ends[1]), Number(ends[2])];
    if (lower > 0 && upper > lower * 10) return undefined;
  }
  return out;
}

/** The characters of `text` between its glyph number `at` and the next (spaces and punctuation). */
function spacesAfter(text: string, at: number): string {
  let glyph = -1;
  let out = '';
  for (const character of text) {
    if (MARKS.test(character)) continue;
    if (!PUNCTUATION.test(character)) {
      glyph += 1;
      if (glyph > at) break;
    } else if (glyph === at) out += character;
  }
  return out;
}

/** The characters of a reading that are drawn as tall pieces (not punctuation, not a raised mark). */
const charactersOf = (text: string) =>
  [...text].filter((character) => !PUNCTUATION.test(character) && !MARKS.test(character));

/**
 * Whether the pixels of a cell show as many characters as `text` has (a second reading that adds a
 * digit the page pass lost, `2` → `22`, is borne out by the pieces of ink).
 */
export function pixelsPairWith(canvas: Canvas, box: Box, text: string): boolean {
  return cellLayout(canvas, box, charactersOf(text).length) !== undefined;
}

type Layout = { sequence: { piece: Piece; kind: Kind }[]; letter: number };

/**
 * The pieces of ink of a cell, left to right, each with what it is; undefined when they do not
 * pair up with `characters` characters (three letters in one piece, a flag letter the engine did
 * not read, a piece that is neither letter, point, dash nor raised mark).
 */
function cellLayout(canvas: Canvas, box: Box, characters: number): Layout | undefined {
  const found = inkPieces(canvas, box);
  if (!found) return undefined;
  // Pieces cut by the box's edge belong to the rows above and below.
  const inside = found.pieces.filter(
    (piece) => piece.y0 > 0 && piece.y1 < found.height - 1 && piece.x0 > 0 && piece.x1 < found.width - 1,
  );
  const tallest = Math.max(0, ...inside.map((piece) => piece.y1 - piece.y0 + 1));
  if (tallest < 6) return undefined;
  const tall = inside.filter((piece) => piece.y1 - piece.y0 + 1 >= tallest * 0.7);
  const letter = median(tall.map((piece) => piece.y1 - piece.y0 + 1));
  const baseline = median(tall.map((piece) => piece.y1));
  // The line the cell's characters sit on: pieces far above or below it are from other rows.
  const onLine = inside.filter(
    (piece) => piece.y1 > baseline - letter * 1.1 && piece.y0 < baseline + letter * 0.3,
  );
  const kindOf = (piece: Piece): Kind => {
    const width = piece.x1 - piece.x0 + 1;
    const height = piece.y1 - piece.y0 + 1;
    // Small and raised well above the baseline: an asterisk (its place is checked below).
    if (height <= letter * 0.6 && piece.y1 <= baseline - letter * 0.3) return 'mark';
    if (height >= letter * 0.45) return 'glyph';
    const overlapsGlyph = onLine.some(
      (other) =>
        other !== piece &&
        other.y1 - other.y0 + 1 >= letter * 0.45 &&
        Math.min(other.x1, piece.x1) - Math.max(other.x0, piece.x0) >= width * 0.5,
    );
    if (overlapsGlyph) return 'part';
    const middle = (piece.y0 + piece.y1) / 2;
    if (
      width <= letter * 0.4 &&
      height <= letter * 0.4 &&
      height >= letter * 0.08 &&
      width >= height * 0.4 &&
      width <= height * 2.5 &&
      Math.abs(piece.y1 - baseline) <= letter * 0.15 &&
      piece.area >= width * height * 0.35
    )
      return 'point';
    if (
      height <= letter * 0.3 &&
      width >= letter * 0.2 &&
      width <= letter * 1.2 &&
      width >= height * 1.1 &&
      middle <= baseline - letter * 0.25 &&
      middle >= baseline - letter * 0.75
    )
      return 'dash';
    // Specks of grain far smaller than a point count for nothing.
    if (piece.area <= Math.max(2, letter * letter * 0.004)) return 'part';
    return 'unknown';
  };
  const sequence = onLine
    .flatMap((piece) => splitAtDash(found, piece, onLine, letter, baseline))
    .map((piece) => ({ piece, kind: piece.kind ?? kindOf(piece) }))
    .filter(({ kind }) => kind !== 'part')
    .sort((a, b) => a.piece.x0 - b.piece.x0);
  if (sequence.some(({ kind }) => kind === 'unknown')) return undefined;
  // A raised mark is a flag after the value, never inside it.
  const lastGlyph = Math.max(...sequence.filter(({ kind }) => kind === 'glyph').map(({ piece }) => piece.x1));
  if (sequence.some(({ kind, piece }) => kind === 'mark' && piece.x0 < lastGlyph)) return undefined;
  const joined = sequence.filter(({ kind }) => kind === 'glyph').map(({ piece }) => piece);
  const glyphs = splitJoined(found, joined, characters, letter);
  // Pieces and characters that do not pair up (three letters in one piece, a flag letter the
  // engine did not read): nothing is said.
  if (!glyphs || glyphs.length !== characters) return undefined;
  // A piece wider than any one digit or flag letter is two characters run together: not one.
  if (glyphs.some((piece) => piece.x1 - piece.x0 + 1 > letter * 1.1)) return undefined;
  if (glyphs !== joined) {
    const marks = sequence.filter(({ kind }) => kind !== 'glyph');
    sequence.splice(
      0,
      sequence.length,
      ...marks,
      ...glyphs.map((piece) => ({ piece, kind: 'glyph' as Kind })),
    );
    sequence.sort((a, b) => a.piece.x0 - b.piece.x0);
  }
  return { sequence, letter };
}

/**
 * A piece that is two characters run together by blur around a dash (`5-5` in `3.5-5.2`): the
 * columns in its middle where ink lies only at half the letter's height are the dash, and the
 * piece is cut there into the character before, the dash, and the character after. Returned as
 * it is when it is no wider than a character or has no such columns.
 */
function splitAtDash(
  ink: Ink,
  piece: Piece,
  line: Piece[],
  letter: number,
  baseline: number,
): (Piece & { kind?: Kind })[] {
  const glyphWidths = line
    .filter((other) => other.y1 - other.y0 + 1 >= letter * 0.45)
    .map((other) => other.x1 - other.x0 + 1);
  const typical = median(glyphWidths);
  if (piece.x1 - piece.x0 + 1 < Math.max(typical * 1.6, letter * 1.2)) return [piece];
  const top = baseline - letter * 0.7;
  const bottom = baseline - letter * 0.2;
  // Per column: ink near the top of the letters, ink near the baseline, ink in between.
  const columns: ('full' | 'middle' | 'none')[] = [];
  for (let x = piece.x0; x <= piece.x1; x += 1) {
    let high = false;
    let low = false;
    let middle = false;
    for (let y = piece.y0; y <= piece.y1; y += 1) {
      if (ink.label[y * ink.width + x] !== piece.label) continue;
      if (y < top) high = true;
      else if (y > bottom) low = true;
      else middle = true;
    }
    columns.push(high || low ? 'full' : middle ? 'middle' : 'none');
  }
  // The one run of middle-only columns with letter columns on both sides.
  const runs: { from: number; to: number }[] = [];
  for (let at = 0; at < columns.length; at += 1) {
    if (columns[at] !== 'middle') continue;
    const from = at;
    while (at + 1 < columns.length && columns[at + 1] === 'middle') at += 1;
    runs.push({ from, to: at });
  }
  // Inside the piece, or at its right end (a dash run into the digit before it); never at its
  // left end, where a 4's crossbar reaches out at the same height.
  const dashes = runs.filter(
    ({ from, to }) => from > 0 && to - from + 1 >= letter * 0.2 && to - from + 1 <= letter * 1.2,
  );
  if (dashes.length !== 1) return [piece];
  const { from, to } = dashes[0]!;
  const at = (offset: number) => piece.x0 + offset;
  return [
    { ...piece, x1: at(from - 1) },
    { ...piece, x0: at(from), x1: at(to), kind: 'dash' },
    ...(to < columns.length - 1 ? [{ ...piece, x0: at(to + 1) }] : []),
  ];
}

/**
 * Two characters blur ran into one piece (`77` in `3.77`): when the glyphs are fewer than the
 * characters read, the pieces about twice as wide as the others are cut in two at their thinnest
 * column near the middle. Only when that makes the counts equal.
 */
function splitJoined(ink: Ink, glyphs: Piece[], characters: number, letter: number): Piece[] | undefined {
  const missing = characters - glyphs.length;
  if (missing <= 0) return glyphs;
  const widths = glyphs.map((piece) => piece.x1 - piece.x0 + 1);
  const sorted = [...widths].sort((a, b) => a - b);
  // A character's width: the middle of the narrower pieces, or (all pieces joined) a digit's
  // usual width for the letter height.
  const single =
    sorted.length > missing ? sorted[Math.floor((sorted.length - missing - 1) / 2)]! : letter * 0.7;
  const wide = glyphs.filter((_, at) => widths[at]! >= single * 1.7 && widths[at]! <= single * 2.4);
  if (wide.length !== missing) return undefined;
  return glyphs.flatMap((piece) => {
    if (!wide.includes(piece)) return [piece];
    const width = piece.x1 - piece.x0 + 1;
    let thinnest = -1;
    let least = Infinity;
    for (let x = piece.x0 + Math.round(width * 0.35); x <= piece.x0 + Math.round(width * 0.65); x += 1) {
      let count = 0;
      for (let y = piece.y0; y <= piece.y1; y += 1)
        if (ink.label[y * ink.width + x] === piece.label) count += 1;
      if (count < least) {
        least = count;
        thinnest = x;
      }
    }
    return [
      { ...piece, x1: thinnest - 1 },
      { ...piece, x0: thinnest + 1 },
    ];
  });
}
