// What a photographed or scanned page looks like before OCR, measured on a small copy (at most
// ANALYSIS_WIDTH pixels wide, so every measurement costs tens of milliseconds): the ink found
// against the page's own local brightness (a shadow or a bright spot is paper, not ink), the
// slant of its lines (projection profiles: the angle at which rows of ink are sharpest), and the
// height of its letters (connected blobs of ink the size of characters). The OCR engine reads
// best when letters are ~20–30 px tall; the height says how far to scale the page.
import { createCanvas, type Canvas } from '@napi-rs/canvas';

/** The width the page is measured at. */
export const ANALYSIS_WIDTH = 1000;

export type InkMap = { width: number; height: number; ink: Uint8Array; scale: number };

/**
 * Ink of the page shrunk to ANALYSIS_WIDTH: a pixel is ink when it is clearly darker than the
 * brightest of its neighbourhood (the paper around it), which is what uneven light leaves alone.
 */
export function inkMap(page: Canvas): InkMap {
  const scale = Math.min(1, ANALYSIS_WIDTH / page.width);
  const width = Math.max(1, Math.round(page.width * scale));
  const height = Math.max(1, Math.round(page.height * scale));
  const small = createCanvas(width, height);
  const context = small.getContext('2d');
  context.imageSmoothingQuality = 'high';
  context.drawImage(page, 0, 0, width, height);
  const data = context.getImageData(0, 0, width, height).data;
  const grey = new Float32Array(width * height);
  for (let at = 0; at < grey.length; at += 1)
    grey[at] = 0.299 * data[at * 4]! + 0.587 * data[at * 4 + 1]! + 0.114 * data[at * 4 + 2]!;
  const paper = localMaximum(grey, width, height, 15);
  const ink = new Uint8Array(width * height);
  for (let at = 0; at < grey.length; at += 1) {
    const light = paper[at]!;
    // Darker than 72% of the paper around it, and the paper itself not black (a dark table edge).
    ink[at] = light > 60 && grey[at]! < light * 0.72 ? 1 : 0;
  }
  return { width, height, ink, scale };
}

/** The brightest value within `radius` of each pixel (separable: rows, then columns). */
function localMaximum(values: Float32Array, width: number, height: number, radius: number): Float32Array {
  const across = new Float32Array(values.length);
  for (let y = 0; y < height; y += 1)
    for (let x = 0; x < width; x += 1) {
      let best = 0;
      for (let dx = Math.max(0, x - radius); dx <= Math.min(width - 1, x + radius); dx += 3)
        best = Math.max(best, values[y * width + dx]!);
      across[y * width + x] = best;
    }
  const out = new Float32Array(values.length);
  for (let x = 0; x < width; x += 1)
    for (let y = 0; y < height; y += 1) {
      let best = 0;
      for (let dy = Math.max(0, y - radius); dy <= Math.min(height - 1, y + radius); dy += 3)
        best = Math.max(best, across[dy * width + x]!);
      out[y * width + x] = best;
    }
  return out;
}

/** Sum of squared row counts of the ink sheared by `slope`: largest when rows run along the text. */
function sharpness(points: Int32Array, count: number, slope: number, height: number): number {
  const bins = new Float64Array(height * 2 + 1);
  for (let at = 0; at < count; at += 1) {
    const x = points[at * 2]!;
    const y = points[at * 2 + 1]!;
    const row = Math.round(y - slope * x + height / 2);
    if (row >= 0 && row < bins.length) bins[row]! += 1;
  }
  let score = 0;
  for (const value of bins) score += value * value;
  return score;
}

/**
 * The page's slant in degrees (positive: lines fall to the right), from −8° to 8°: a coarse
 * search by half degrees, then tenths around the best. Blobs too big to be letters (photos,
 * logos, the table's edge) are left out, so only text decides.
 */
export function skewDegrees(map: InkMap, letters: Uint8Array): number {
  const points = new Int32Array(map.width * map.height * 2);
  let count = 0;
  for (let y = 0; y < map.height; y += 1)
    for (let x = 0; x < map.width; x += 1)
      if (letters[y * map.width + x]) {
        points[count * 2] = x;
        points[count * 2 + 1] = y;
        count += 1;
      }
  if (count < 200) return 0;
  const score = (degrees: number) =>
    sharpness(points, count, Math.tan((degrees * Math.PI) / 180), map.height);
  let best = { degrees: 0, score: score(0) };
  for (let degrees = -8; degrees <= 8; degrees += 0.5) {
    const value = score(degrees);
    if (value > best.score) best = { degrees, score: value };
  }
  const coarse = best.degrees;
  for (let degrees = coarse - 0.4; degrees <= coarse + 0.4; degrees += 0.1) {
    const value = score(degrees);
    if (value > best.score) best = { degrees, score: value };
  }
  return Number(best.degrees.toFixed(1));
}

export type Letters = {
  /** Ink pixels that belong to letter-sized blobs. */
  mask: Uint8Array;
  /** Median blob height at the analysis scale (0 when there is no text). */
  height: number;
  count: number;
};

/**
 * Connected blobs of ink (8-neighbours) the size of printed characters: taller than 3 pixels,
 * shorter than 1/15 of the page, not much wider than tall. Their median height is the page's
 * letter height (digits and capitals dominate a results table).
 */
export function letterBlobs(map: InkMap): Letters {
  const { width, height, ink } = map;
  const label = new Int32Array(width * height);
  const mask = new Uint8Array(width * height);
  const heights: number[] = [];
  const stack: number[] = [];
  const members: number[] = [];
  let next = 0;
  for (let start = 0; start < ink.length; start += 1) {
    if (!ink[start] || label[start]) continue;
    next += 1;
    label[start] = next;
    stack.push(start);
    members.length = 0;
    let x0 = width;
    let x1 = 0;
    let y0 = height;
    let y1 = 0;
    while (stack.length > 0) {
      const at = stack.pop()!;
      members.push(at);
      const x = at % width;
      const y = (at - x) / width;
      x0 = Math.min(x0, x);
      x1 = Math.max(x1, x);
      y0 = Math.min(y0, y);
      y1 = Math.max(y1, y);
      for (let dy = -1; dy <= 1; dy += 1)
        for (let dx = -1; dx <= 1; dx += 1) {
          const xx = x + dx;
          const yy = y + dy;
          if (xx < 0 || yy < 0 || xx >= width || yy >= height) continue;
          const near = yy * width + xx;
          if (ink[near] && !label[near]) {
            label[near] = next;
            stack.push(near);
          }
        }
    }
    const blobHeight = y1 - y0 + 1;
    const blobWidth = x1 - x0 + 1;
    if (blobHeight >= 4 && blobHeight <= height / 15 && blobWidth <= blobHeight * 3) {
      heights.push(blobHeight);
      for (const at of members) mask[at] = 1;
    }
  }
  heights.sort((a, b) => a - b);
  return { mask, height: heights[Math.floor(heights.length / 2)] ?? 0, count: heights.length };
}
