// An image made ready for OCR: decoded by pure-JS decoders (pngjs, jpeg-js — an uploaded file is
// hostile until proven otherwise, and the native decoder of @napi-rs/canvas ends the process on a
// broken PNG, where these throw), then drawn with @napi-rs/canvas (the canvas pdfjs-dist already
// renders scans with; prebuilt, nothing downloaded) from the decoded pixels: small pictures upscaled (a ≈700 px wide phone photo
// has letters too small for the engine, and decimal points vanish), shadows removed (each pixel
// divided by the page's local brightness, so a shadow across the sheet is paper again), and a
// hand-held slant turned straight (the angle whose rows of ink are sharpest). Each step can be
// switched off, so the bench measures what it is worth.
import { type Canvas, createCanvas } from '@napi-rs/canvas';
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { UnreadableFileError } from './errors.ts';

export type PrepareSteps = { upscale: boolean; shadows: boolean; deskew: boolean };
export const ALL_STEPS: PrepareSteps = { upscale: true, shadows: true, deskew: true };

/** Pages narrower than this are upscaled to it (about 300 dpi for a letter or A4 page). */
const TARGET_WIDTH = 2000;
const MAX_UPSCALE = 4;

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
function decode(bytes: Buffer): Canvas | undefined {
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

/**
 * The image made ready for OCR; undefined for a format the pure-JS decoders do not read (GIF,
 * WebP, BMP: OCR reads those as they are).
 */
export async function prepareImage(
  bytes: Buffer,
  steps: PrepareSteps = ALL_STEPS,
): Promise<PreparedImage | undefined> {
  const image = decode(bytes);
  if (!image) return undefined;
  const done: string[] = [];
  // Never past the pixel cap: a narrow, very tall image must not grow into gigabytes.
  const roomFor = Math.sqrt(MAX_PIXELS / (image.width * image.height));
  const factor =
    steps.upscale && image.width < TARGET_WIDTH
      ? Math.max(1, Math.min(MAX_UPSCALE, TARGET_WIDTH / image.width, roomFor))
      : 1;
  if (factor > 1) done.push(`upscaled ×${factor.toFixed(2)}`);
  let canvas: Canvas = createCanvas(Math.round(image.width * factor), Math.round(image.height * factor));
  let context = canvas.getContext('2d');
  context.fillStyle = '#ffffff';
  context.fillRect(0, 0, canvas.width, canvas.height);
  context.imageSmoothingEnabled = true;
  context.imageSmoothingQuality = 'high';
  context.drawImage(image, 0, 0, canvas.width, canvas.height);
  if (steps.shadows) {
    flattenLight(canvas);
    done.push('shadows removed');
  }
  if (steps.deskew) {
    const angle = skewAngle(canvas);
    if (Math.abs(angle) >= 0.2) {
      const turned = createCanvas(canvas.width, canvas.height);
      context = turned.getContext('2d');
      context.fillStyle = '#ffffff';
      context.fillRect(0, 0, turned.width, turned.height);
      context.translate(turned.width / 2, turned.height / 2);
      context.rotate((-angle * Math.PI) / 180);
      context.drawImage(canvas, -canvas.width / 2, -canvas.height / 2);
      canvas = turned;
      done.push(`deskewed ${angle.toFixed(2)}°`);
    }
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

/**
 * The page's slant in degrees (positive: lines fall to the right), by projection: the ink of a
 * page shrunk to 800 px is summed along lines at each angle from −5° to 5°; the angle whose line
 * sums vary most is the one that runs along the text.
 */
function skewAngle(canvas: Canvas): number {
  const scale = Math.min(1, 800 / canvas.width);
  const width = Math.max(1, Math.round(canvas.width * scale));
  const height = Math.max(1, Math.round(canvas.height * scale));
  const small = createCanvas(width, height);
  const context = small.getContext('2d');
  context.drawImage(canvas, 0, 0, width, height);
  const data = context.getImageData(0, 0, width, height).data;
  const ink: [number, number][] = [];
  for (let y = 0; y < height; y += 1)
    for (let x = 0; x < width; x += 1) if (data[(y * width + x) * 4]! < 128) ink.push([x, y]);
  if (ink.length < 200) return 0;
  let best = { angle: 0, score: -1 };
  for (let tenth = -50; tenth <= 50; tenth += 2) {
    const slope = Math.tan((tenth / 10) * (Math.PI / 180));
    const bins = new Float64Array(height * 2);
    for (const [x, y] of ink) {
      const row = Math.round(y - slope * x) + height / 2;
      if (row >= 0 && row < bins.length) bins[row]! += 1;
    }
    let score = 0;
    for (const count of bins) score += count * count;
    if (score > best.score) best = { angle: tenth / 10, score };
  }
  return best.angle;
}
