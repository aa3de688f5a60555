// Limits checked before any work on an uploaded report: the pixel count of an image read from its
// header (before it is decoded or handed to OCR), and a pass over a PDF's streams that inflates
// each one without keeping it, counting what it decompresses to (a flate bomb) and how many text
// operators it holds (one page of a million text operations costs pdfjs seconds and ~170 MB, and a
// report may have twenty such pages: bench/hostile-files.ts).
// Page size, page count and the render resolution are checked by pdf-text.ts with the same
// settings. What these checks miss is still bounded by the isolated process the whole reading runs in.
import { createInflate } from 'node:zlib';
import { UnreadableFileError } from './errors.ts';

export type ReadingLimits = {
  /** LAB_REPORT_MAX_IMAGE_PIXELS: an image's (or a rendered page's) width × height. */
  maxImagePixels: number;
  /** LAB_REPORT_MAX_PAGE_INCHES: the longest side of a PDF page. */
  maxPageInches: number;
  /** LAB_REPORT_MAX_INFLATED_MB: all of a PDF's compressed streams, decompressed. */
  maxInflatedBytes: number;
  /** LAB_REPORT_MAX_TEXT_OPERATIONS: text-showing operators in one PDF content stream. */
  maxTextOperations: number;
};

export const DEFAULT_READING_LIMITS: ReadingLimits = {
  // A page scanned at 300 dpi is ~8.4 MP and a phone photo 12 MP; 40 MP leaves room for 48 MP
  // sensors' downscaled photos while keeping OCR's working memory under ~1 GB.
  maxImagePixels: 40_000_000,
  // A0 is 46.8 inches; a lab report is letter or A4.
  maxPageInches: 50,
  maxInflatedBytes: 256 * 1024 * 1024,
  // A dense printed page has a few thousand.
  maxTextOperations: 50_000,
};

/** A file over one of the limits: a terminal failure (`file_unreadable`) naming the limit. */
export class LimitExceededError extends UnreadableFileError {
  override name = 'LimitExceededError';
}

let current: ReadingLimits = DEFAULT_READING_LIMITS;

/** Sets the limits of this process (an isolated reading sets them before it starts). */
export function useReadingLimits(limits: ReadingLimits): void {
  current = limits;
}

export const readingLimits = (): ReadingLimits => current;

// ---- images ----

/** Width and height from an image's header, or null when the header does not say. */
export function imageSize(bytes: Buffer): { width: number; height: number } | null {
  if (bytes.length >= 24 && bytes.toString('latin1', 12, 16) === 'IHDR')
    return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  if (bytes.length >= 10 && bytes.toString('latin1', 0, 3) === 'GIF')
    return { width: bytes.readUInt16LE(6), height: bytes.readUInt16LE(8) };
  if (
    bytes.length >= 30 &&
    bytes.toString('latin1', 0, 4) === 'RIFF' &&
    bytes.toString('latin1', 8, 12) === 'WEBP'
  )
    return webpSize(bytes);
  if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8) return jpegSize(bytes);
  return null;
}

function webpSize(bytes: Buffer): { width: number; height: number } | null {
  const chunk = bytes.toString('latin1', 12, 16);
  if (chunk === 'VP8X') return { width: 1 + bytes.readUIntLE(24, 3), height: 1 + bytes.readUIntLE(27, 3) };
  if (chunk === 'VP8 ')
    return { width: bytes.readUInt16LE(26) & 0x3fff, height: bytes.readUInt16LE(28) & 0x3fff };
  if (chunk === 'VP8L') {
    const [b1, b2, b3, b4] = [bytes[21]!, bytes[22]!, bytes[23]!, bytes[24]!];
    return {
      width: 1 + (b1 | ((b2 & 0x3f) << 8)),
      height: 1 + ((b2 >> 6) | (b3 << 2) | ((b4 & 0x0f) << 10)),
    };
  }
  return null;
}

/** The frame size from a JPEG's start-of-frame segment, walking the segments by their lengths. */
function jpegSize(bytes: Buffer): { width: number; height: number } | null {
  let at = 2;
  while (at + 9 < bytes.length) {
    if (bytes[at] !== 0xff) return null;
    const marker = bytes[at + 1]!;
    if (marker === 0xff) {
      at += 1;
      continue;
    }
    // SOF0…SOF15 except DHT (C4), JPG (C8) and DAC (CC).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
      return { height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7) };
    at += 2 + bytes.readUInt16BE(at + 2);
  }
  return null;
}

/** Refuses an image whose header names more pixels than the limit, or no size at all. */
export function checkImage(bytes: Buffer, limits: ReadingLimits = current): void {
  const size = imageSize(bytes);
  if (!size) throw new UnreadableFileError('the image could not be decoded (its header gives no size)');
  const pixels = size.width * size.height;
  if (pixels > limits.maxImagePixels)
    throw new LimitExceededError(
      `the image is ${size.width} × ${size.height} pixels, more than the ${limits.maxImagePixels.toLocaleString('en')}-pixel limit (LAB_REPORT_MAX_IMAGE_PIXELS)`,
    );
}

// ---- PDF streams ----

const STREAM = Buffer.from('stream');
const END_STREAM = Buffer.from('endstream');
const isDelimiter = (byte: number | undefined) =>
  byte === undefined ||
  byte <= 0x20 ||
  byte === 0x29 ||
  byte === 0x5d ||
  byte === 0x3e ||
  byte === 0x2f ||
  byte === 0x28 ||
  byte === 0x5b ||
  byte === 0x3c;

/** Text-showing operators (`Tj`, `TJ`, `'`, `"` are counted by their two-letter forms) in a chunk. */
function countTextOperators(chunk: Buffer, previous: number | undefined): number {
  let count = 0;
  for (
    let index = chunk.indexOf(0x54);
    index >= 0 && index + 1 < chunk.length;
    index = chunk.indexOf(0x54, index + 1)
  ) {
    const next = chunk[index + 1];
    if (
      (next === 0x6a || next === 0x4a) &&
      isDelimiter(index > 0 ? chunk[index - 1] : previous) &&
      isDelimiter(chunk[index + 2])
    )
      count++;
  }
  return count;
}

/** Decompressed size and text operators of one stream; its bytes are counted, never kept. */
async function measureStream(data: Buffer, budget: number, limits: ReadingLimits): Promise<number> {
  const compressed = data[0] === 0x78;
  if (!compressed) {
    checkOperators(countTextOperators(data, undefined), limits);
    return 0;
  }
  const inflate = createInflate({ chunkSize: 256 * 1024 });
  let inflated = 0;
  let operators = 0;
  let previous: number | undefined;
  let failed = false;
  inflate.on('error', () => {
    // Not deflate after all, or damaged: pdfjs decides what it makes of it.
    failed = true;
  });
  inflate.end(data);
  try {
    for await (const chunk of inflate as AsyncIterable<Buffer>) {
      inflated += chunk.length;
      operators += countTextOperators(chunk, previous);
      previous = chunk.at(-1);
      if (inflated > budget)
        throw new LimitExceededError(
          `the PDF's compressed content inflates to more than ${Math.round(limits.maxInflatedBytes / 1024 / 1024)} MB (LAB_REPORT_MAX_INFLATED_MB)`,
        );
      checkOperators(operators, limits);
    }
  } catch (error) {
    inflate.destroy();
    if (error instanceof LimitExceededError) throw error;
    failed = true;
  }
  return failed ? 0 : inflated;
}

function checkOperators(count: number, limits: ReadingLimits) {
  if (count > limits.maxTextOperations)
    throw new LimitExceededError(
      `a page's content holds more than ${limits.maxTextOperations.toLocaleString('en')} text operations (LAB_REPORT_MAX_TEXT_OPERATIONS)`,
    );
}

/**
 * Walks the PDF's `stream … endstream` sections (a linear scan: each search starts where the last
 * one ended) and measures each. A section whose data holds the bytes `endstream` is cut short
 * there: an undercount that the reader process's memory limit still bounds.
 */
export async function checkPdfStreams(bytes: Buffer, limits: ReadingLimits = current): Promise<void> {
  let total = 0;
  let from = 0;
  for (;;) {
    const keyword = bytes.indexOf(STREAM, from);
    if (keyword < 0) return;
    let start = keyword + STREAM.length;
    if (bytes[start] === 0x0d) start++;
    if (bytes[start] !== 0x0a || (keyword > 2 && bytes[keyword - 1] === 0x64)) {
      // Not a stream keyword (or the tail of `endstream`).
      from = keyword + STREAM.length;
      continue;
    }
    start++;
    const end = bytes.indexOf(END_STREAM, start);
    if (end < 0) return;
    total += await measureStream(bytes.subarray(start, end), limits.maxInflatedBytes - total, limits);
    from = end + END_STREAM.length;
  }
}
