// An image made ready for OCR: decoded by pure-JS decoders (pngjs, jpeg-js — an uploaded file is
// hostile until proven otherwise, and the native decoder of @napi-rs/canvas ends the process on a
// broken PNG, where these throw), measured on a small copy (page-analysis.ts: letter height and
// slant), then drawn with @napi-rs/canvas (the canvas pdfjs-dist already renders scans with;
// prebuilt, nothing downloaded): scaled so its letters are the height the engine reads best (a
// ≈700 px wide photo has letters too small, decimal points vanish; a 4000 px photo only costs
// time), uneven light divided out (each pixel divided by the page's local brightness, so a shadow
// across the sheet is paper again), and a hand-held slant turned straight. Each step can be
// switched off, so the bench measures what it is worth.
import { type Canvas, createCanvas } from '@napi-rs/canvas';
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { UnreadableFileError } from './errors.ts';
import { inkMap, letterBlobs, skewDegrees } from './page-analysis.ts';

export type PrepareSteps = {
  /** Scaled so the letters are the height the engine reads best (up or down). */
  scale: boolean;
  /** Uneven light and shadows divided out. */
  light: boolean;
  /** The slant of a hand-held photo turned straight. */
  deskew: boolean;
};
export const ALL_STEPS: PrepareSteps = { scale: true, light: true, deskew: true };

/**
 * The letter height (median blob of ink, page-analysis.ts, roughly the height of digits and
 * capitals) the page is scaled to. 16 px reads as well as 22–24 px on the bench's photos at about
 * half the CPU (the engine's time grows with the pixels; enlarging a blurred photo brings back no
 * lost decimal point), and far better than a fixed 2000 px width, which enlarged small-type pages
 * until the engine's layout analysis dropped the column of values. A second reading, when the
 * first finds few results, uses SECOND_LETTER_HEIGHT.
 */
export const LETTER_HEIGHT = 16;
export const SECOND_LETTER_HEIGHT = 24;
const MIN_FACTOR = 0.4;
/**
 * The letter height a page is never shrunk below: LETTER_HEIGHT is for enlarging small type;
 * shrinking a sharp page to it lost flag letters and decimal points (see prepareDecoded). Pages
 * with taller letters (a 4000 px photo of a page held close) are still shrunk, to this height.
 */
const SHRINK_FLOOR = 32;
const MAX_FACTOR = 3;

export type PreparedImage = {
  png: Buffer;
  width: number;
  height: number;
  /** What was done, in order (`upscaled ×2.4`, `shadows removed`, `deskewed 1.25°`). */
  steps: string[];
  /** The prepared page as a canvas, for cutting out cells to read again. */
  canvas: Canvas;
};

/** Decoded pixels beyond this are refused before they are allocated (a 20 MB JPEG can claim gigapixels). */
const MAX_PIXELS = 40_000_000;

const isPng = (bytes: Buffer) => bytes.subarray(0, 8).equals(Buffer.from('89504e470d0a1a0a', 'hex'));
const isJpeg = (bytes: Buffer) => bytes[0] === 0xff && bytes[1] === 0xd8;

/** The image's pixels on a canvas, or undefined for formats prepared as they are (GIF, WebP, BMP). */
export function decode(bytes: Buffer): Canvas | undefined {
  let decoded: { width: number; height: number; data: Uint8Array };
  try {
    if (isPng(bytes)) decoded = PNG.sync.read(bytes);
    else if (isJpeg(bytes))
      decoded = jpeg.decode(bytes, {
        useTArray: true,
        maxResolutionInMP: MAX_PIXELS / 1e6,
        maxMemoryUsageInMB: 512,
      });
    else return undefined;
  } catch {
    throw new UnreadableFileError('the image could not be decoded');
  }
  if (!decoded.width || !decoded.height) throw new UnreadableFileError('the image has no pixels');
  if (decoded.width * decoded.height > MAX_PIXELS)
    throw new UnreadableFileError('the image has too many pixels');
  const canvas = createCanvas(decoded.width, decoded.height);
  const context = canvas.getContext('2d');
  const pixels = context.createImageData(decoded.width, decoded.height);
  pixels.data.set(decoded.data.subarray(0, pixels.data.length));
  // Transparent pixels over white paper, not black.
  for (let at = 3; at < pixels.data.length; at += 4) {
    const alpha = pixels.data[at]! / 255;
    if (alpha === 1) continue;
    for (let channel = at - 3; channel < at; channel += 1)
      pixels.data[channel] = Math.round(pixels.data[channel]! * alpha + 255 * (1 - alpha));
    pixels.data[at] = 255;
  }
  context.putImageData(pixels, 0, 0);
  return canvas;
}

/** What the page analysis found, kept so a second reading need not measure again. */
export type PageMeasure = { letterHeight: number; skew: number };

/** Letter height (in the image's pixels) and slant of a decoded page. */
export function measurePage(image: Canvas): PageMeasure {
  const map = inkMap(image);
  const letters = letterBlobs(map);
  return {
    letterHeight: letters.height / map.scale,
    skew: letters.count > 20 ? skewDegrees(map, letters.mask) : 0,
  };
}

/** A decoded page scaled, lit evenly and turned straight for OCR. */
export function prepareDecoded(
  image: Canvas,
  measure: PageMeasure,
  steps: PrepareSteps,
  letterHeight: number,
  /** Whether letters may shrink below SHRINK_FLOOR (a second reading of a page the first read with little confidence). */
  belowFloor = false,
): PreparedImage {
  const done: string[] = [];
  // Never past the pixel cap: a narrow, very tall image must not grow into gigabytes.
  const roomFor = Math.sqrt(MAX_PIXELS / (image.width * image.height));
  let factor = 1;
  if (steps.scale && measure.letterHeight > 0) {
    factor = Math.max(MIN_FACTOR, Math.min(MAX_FACTOR, letterHeight / measure.letterHeight, roomFor));
    // Letters are never shrunk below SHRINK_FLOOR: a photo with ≈32 px letters shrunk to 16 px
    // merged a flag letter into its value (`38 L` read `381L`, `11.0 L` read `1.0L` or `SNORT`)
    // on the OCR test's JPEG and scan, where its own size read them right.
    if (factor < 1 && !belowFloor)
      factor = Math.min(1, roomFor, Math.max(factor, SHRINK_FLOOR / measure.letterHeight));
    // Close enough: resampling costs sharpness for nothing.
    if (factor > 0.85 && factor < 1.15) factor = 1;
  }
  if (factor !== 1) done.push(`scaled ×${factor.toFixed(2)}`);
  let canvas: Canvas = createCanvas(
    Math.max(1, Math.round(image.width * factor)),
    Math.max(1, Math.round(image.height * factor)),
  );
  let context = canvas.getContext('2d');
  context.fillStyle = '#ffffff';
  context.fillRect(0, 0, canvas.width, canvas.height);
  context.imageSmoothingEnabled = true;
  context.imageSmoothingQuality = 'high';
  context.drawImage(image, 0, 0, canvas.width, canvas.height);
  if (steps.light) {
    flattenLight(canvas);
    done.push('light evened');
  }
  const angle = steps.deskew ? measure.skew : 0;
  if (Math.abs(angle) >= 0.2) {
    const turned = createCanvas(canvas.width, canvas.height);
    context = turned.getContext('2d');
    context.fillStyle = '#ffffff';
    context.fillRect(0, 0, turned.width, turned.height);
    context.translate(turned.width / 2, turned.height / 2);
    context.rotate((-angle * Math.PI) / 180);
    context.imageSmoothingQuality = 'high';
    context.drawImage(canvas, -canvas.width / 2, -canvas.height / 2);
    canvas = turned;
    done.push(`deskewed ${angle.toFixed(1)}°`);
  }
  return {
    png: canvas.toBuffer('image/png'),
    width: canvas.width,
    height: canvas.height,
    steps: done,
    canvas,
  };
}

/**
 * Each pixel divided by the local background (the page shrunk 32 times, the brightest of each
 * neighbourhood kept so ink does not count as shadow, drawn back smoothly): uneven light and
 * shadows become white paper, ink stays dark. The division is the canvas's own `color-dodge`
 * blend over the inverted background (base / (1 − (1 − background))), done natively.
 */
function flattenLight(canvas: Canvas) {
  const { width, height } = canvas;
  const small = createCanvas(Math.max(1, Math.round(width / 32)), Math.max(1, Math.round(height / 32)));
  const smallContext = small.getContext('2d');
  smallContext.imageSmoothingQuality = 'high';
  smallContext.drawImage(canvas, 0, 0, small.width, small.height);
  const pixels = smallContext.getImageData(0, 0, small.width, small.height);
  const light = brightestAround(pixels.data, small.width, small.height);
  for (let at = 0; at < small.width * small.height; at += 1) {
    const inverted = 255 - light[at]!;
    pixels.data[at * 4] = pixels.data[at * 4 + 1] = pixels.data[at * 4 + 2] = inverted;
    pixels.data[at * 4 + 3] = 255;
  }
  smallContext.putImageData(pixels, 0, 0);
  const context = canvas.getContext('2d');
  context.globalCompositeOperation = 'color-dodge';
  context.imageSmoothingEnabled = true;
  context.imageSmoothingQuality = 'high';
  context.drawImage(small, 0, 0, width, height);
  context.globalCompositeOperation = 'saturation';
  context.fillStyle = '#808080';
  context.fillRect(0, 0, width, height);
  context.globalCompositeOperation = 'source-over';
}

function brightestAround(data: Uint8ClampedArray, width: number, height: number): Float32Array {
  const grey = new Float32Array(width * height);
  for (let at = 0; at < width * height; at += 1)
    grey[at] = 0.299 * data[at * 4]! + 0.587 * data[at * 4 + 1]! + 0.114 * data[at * 4 + 2]!;
  const light = new Float32Array(width * height);
  for (let y = 0; y < height; y += 1)
    for (let x = 0; x < width; x += 1) {
      let best = 0;
      for (let dy = -2; dy <= 2; dy += 1)
        for (let dx = -2; dx <= 2; dx += 1) {
          const yy = y + dy;
          const xx = x + dx;
          if (yy >= 0 && yy < height && xx >= 0 && xx < width) best = Math.max(best, grey[yy * width + xx]!);
        }
      light[y * width + x] = best;
    }
  return light;
}
