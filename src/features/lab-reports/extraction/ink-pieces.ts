// The pieces of ink (connected components) of a box of a rendered page, after Otsu's threshold:
// what the point finder (point-finder.ts) measures to tell digits from points and dashes.
import type { Canvas } from '@napi-rs/canvas';

export type Box = { x0: number; y0: number; x1: number; y1: number };

export type Piece = { x0: number; x1: number; y0: number; y1: number; area: number; label: number };
export type Ink = { pieces: Piece[]; width: number; height: number; label: Int32Array };

/** The pieces of ink of a box of the page (8-connected, after a threshold midway between ink and paper). */
export function inkPieces(canvas: Canvas, box: Box): Ink | undefined {
  const x0 = Math.max(0, Math.floor(box.x0));
  const y0 = Math.max(0, Math.floor(box.y0));
  const x1 = Math.min(canvas.width, Math.ceil(box.x1));
  const y1 = Math.min(canvas.height, Math.ceil(box.y1));
  const width = x1 - x0;
  const height = y1 - y0;
  if (width < 4 || height < 4) return undefined;
  const data = canvas.getContext('2d').getImageData(x0, y0, width, height).data;
  const grey = new Uint8Array(width * height);
  for (let at = 0; at < grey.length; at += 1)
    grey[at] = Math.round(0.299 * data[at * 4]! + 0.587 * data[at * 4 + 1]! + 0.114 * data[at * 4 + 2]!);
  const threshold = otsu(grey);
  if (threshold === undefined) return undefined;
  const ink = new Uint8Array(grey.length);
  for (let at = 0; at < grey.length; at += 1) ink[at] = grey[at]! <= threshold ? 1 : 0;
  const label = new Int32Array(grey.length).fill(-1);
  const pieces: Piece[] = [];
  const stack: number[] = [];
  for (let start = 0; start < ink.length; start += 1) {
    if (!ink[start] || label[start] !== -1) continue;
    const piece: Piece = { x0: width, x1: -1, y0: height, y1: -1, area: 0, label: pieces.length };
    label[start] = pieces.length;
    stack.push(start);
    while (stack.length > 0) {
      const at = stack.pop()!;
      const x = at % width;
      const y = (at - x) / width;
      piece.area += 1;
      piece.x0 = Math.min(piece.x0, x);
      piece.x1 = Math.max(piece.x1, x);
      piece.y0 = Math.min(piece.y0, y);
      piece.y1 = Math.max(piece.y1, y);
      for (let dy = -1; dy <= 1; dy += 1)
        for (let dx = -1; dx <= 1; dx += 1) {
          const xx = x + dx;
          const yy = y + dy;
          if (xx < 0 || yy < 0 || xx >= width || yy >= height) continue;
          const next = yy * width + xx;
          if (ink[next] && label[next] === -1) {
            label[next] = pieces.length;
            stack.push(next);
          }
        }
    }
    pieces.push(piece);
  }
  return { pieces, width, height, label };
}

/** Otsu's threshold of a grey box; undefined when the box has no contrast (nothing printed). */
function otsu(grey: Uint8Array): number | undefined {
  const histogram = new Float64Array(256);
  for (const value of grey) histogram[value]! += 1;
  let sum = 0;
  for (let value = 0; value < 256; value += 1) sum += value * histogram[value]!;
  let below = 0;
  let belowSum = 0;
  let best = -1;
  let threshold: number | undefined;
  for (let value = 0; value < 255; value += 1) {
    below += histogram[value]!;
    if (below === 0) continue;
    const above = grey.length - below;
    if (above === 0) break;
    belowSum += value * histogram[value]!;
    const meanBelow = belowSum / below;
    const meanAbove = (sum - belowSum) / above;
    const between = below * above * (meanBelow - meanAbove) ** 2;
    if (between > best) {
      best = between;
      threshold = value;
    }
  }
  if (threshold === undefined) return undefined;
  // Paper and ink must differ clearly, or the "pieces" are grain.
  let dark = 0;
  let light = 0;
  let darkCount = 0;
  let lightCount = 0;
  for (const value of grey)
    if (value <= threshold) {
      dark += value;
      darkCount += 1;
    } else {
      light += value;
      lightCount += 1;
    }
  if (darkCount === 0 || lightCount === 0 || light / lightCount - dark / darkCount < 60) return undefined;
  return threshold;
}
