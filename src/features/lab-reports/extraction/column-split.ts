// A two-column page photographed read again one column at a time. The page pass reads the
// whole page as one block of lines; on a sheet held at an angle (perspective, a slight turn) the
// rows of the left and right tables do not share baselines, and the engine's lines run from one
// table's row into a neighbouring row of the other: cells are lost or read into the wrong row
// (`1100` for `11.0 L`, a row's unit read as `on`). Once the page pass has found the tables side
// by side (their repeated column titles, columns.ts), each table's share of the page, from its
// titles down, is cut out and read by itself; the words above the titles are the page pass's.
import { createCanvas } from '@napi-rs/canvas';
import type { TableModel } from './columns.ts';
import type { PreparedImage } from './ocr-image.ts';
import { recognise } from './ocr.ts';
import type { PageText, TextToken } from './tokens.ts';

/** The tables read side by side on one row of titles (the first such row of the page), or none. */
export function sideBySide(tables: TableModel[]): TableModel[] {
  const first = tables.find((table) =>
    tables.some((other) => other !== table && other.headerY === table.headerY),
  );
  return first ? tables.filter((table) => table.headerY === first.headerY) : [];
}

/** A box of the prepared page as a PNG of its own. */
function cut(image: PreparedImage, x0: number, y0: number, x1: number, y1: number): Buffer {
  const canvas = createCanvas(Math.max(1, x1 - x0), Math.max(1, y1 - y0));
  const context = canvas.getContext('2d');
  context.fillStyle = '#ffffff';
  context.fillRect(0, 0, canvas.width, canvas.height);
  context.drawImage(image.canvas, x0, y0, canvas.width, canvas.height, 0, 0, canvas.width, canvas.height);
  return canvas.toBuffer('image/png');
}

/**
 * The page's words with each side-by-side table's share read by itself: `text` (the page pass)
 * above the titles, the separate readings from the titles down. Undefined when the page has no
 * tables side by side.
 */
export async function readColumnsApart(
  text: PageText,
  tables: TableModel[],
  image: PreparedImage,
  textHeight: number,
): Promise<PageText | undefined> {
  const halves = sideBySide(tables);
  if (halves.length < 2) return undefined;
  // From a little above the titles' baseline (their letters) to the foot of the page.
  const top = Math.max(0, Math.floor(halves[0]!.headerY - textHeight * 2));
  const tokens: TextToken[] = text.tokens.filter((token) => token.y < top + textHeight);
  for (const table of halves) {
    const x0 = Math.max(0, Math.floor(Number.isFinite(table.from) ? table.from : 0));
    const x1 = Math.min(image.width, Math.ceil(Number.isFinite(table.to) ? table.to : image.width));
    if (x1 - x0 < textHeight * 4) return undefined;
    const read = await recognise(cut(image, x0, top, x1, image.height), text.page, undefined, 'block');
    for (const token of read.tokens)
      tokens.push({ ...token, x0: token.x0 + x0, x1: token.x1 + x0, y: token.y + top });
  }
  return { ...text, tokens };
}
