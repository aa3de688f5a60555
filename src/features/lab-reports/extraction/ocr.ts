// OCR with tesseract.js, fully offline: the English model comes from the npm package
// @tesseract.js-data/eng (installed with the service), read from its directory; nothing is
// cached or fetched at run time. One worker per process, created on first use and reused, with
// calls serialised: recognition is CPU-bound and a second worker would only compete for it.
import { createRequire } from 'node:module';
import type { Worker } from 'tesseract.js';
import { UnreadableFileError } from './errors.ts';
import type { PageText, TextToken } from './tokens.ts';

const require = createRequire(import.meta.url);
const ENGLISH = require('@tesseract.js-data/eng') as { langPath: string; gzip: boolean };

let worker: Promise<Worker> | null = null;
let queue: Promise<unknown> = Promise.resolve();

async function startWorker(): Promise<Worker> {
  // Loaded on first use, like the worker itself: most processes never run OCR.
  const { createWorker, OEM, PSM } = await import('tesseract.js');
  const created = await createWorker('eng', OEM.LSTM_ONLY, {
    langPath: ENGLISH.langPath,
    gzip: ENGLISH.gzip,
    // No cache: the model is read from the package each time a worker starts, never written or downloaded.
    cacheMethod: 'none',
    cachePath: ENGLISH.langPath,
    // Without a handler the library throws a failed job's error from an event callback, which
    // would end the process; the job's promise carries the error anyway.
    errorHandler: () => undefined,
  });
  // Automatic layout by default (each call sets its own mode): the engine finds blocks and lines
  // (and their slant) itself; rows are rebuilt from word positions afterwards, so a table's
  // columns in separate blocks come back together.
  // The engine's own debug output (printed for cells with nothing on them) goes nowhere.
  await created.setParameters({ tessedit_pageseg_mode: PSM.AUTO, debug_file: '/dev/null' } as never);
  return created;
}

function getWorker(): Promise<Worker> {
  worker ??= startWorker();
  worker.catch(() => {
    worker = null;
  });
  return worker;
}

type OcrWord = { text: string; confidence: number; bbox: { x0: number; y0: number; x1: number; y1: number } };
type OcrLine = {
  words: OcrWord[];
  baseline?: { x0: number; y0: number; x1: number; y1: number; has_baseline?: boolean };
};
type OcrBlock = { paragraphs: { lines: OcrLine[] }[] };

/** One job at a time on the one worker. */
function serialised<T>(job: () => Promise<T>): Promise<T> {
  const run = queue.then(job);
  queue = run.catch(() => undefined);
  return run;
}

/**
 * How the engine cuts the page into lines: `auto` finds blocks and columns; `sparse` finds as
 * much text as it can in no particular order (better on pages of scattered cells).
 */
export type Segmentation = 'auto' | 'sparse' | 'block' | 'column';
const SEGMENTATION = { auto: '3', sparse: '11', block: '6', column: '4' } as const;

/** The words of one image (PNG, JPEG, GIF, WebP, BMP bytes) with positions. */
export function recognise(
  image: Buffer,
  page: number,
  size?: { width: number; height: number },
  segmentation: Segmentation = 'auto',
): Promise<PageText> {
  return serialised(async () => {
    const engine = await getWorker();
    let result;
    try {
      await engine.setParameters({
        tessedit_pageseg_mode: SEGMENTATION[segmentation] as never,
        tessedit_char_whitelist: '',
      });
      result = await engine.recognize(image, {}, { blocks: true, text: false });
    } catch (error) {
      const message = String((error as Error)?.message ?? error);
      if (/read image/i.test(message)) throw new UnreadableFileError('the image could not be decoded');
      throw error instanceof Error ? error : new Error(message);
    }
    const blocks = (result.data.blocks ?? []) as unknown as OcrBlock[];
    const lines = blocks.flatMap((block) => block.paragraphs.flatMap((paragraph) => paragraph.lines));
    const slope = pageSlope(lines);
    const tokens: TextToken[] = [];
    let maxX = 0;
    let maxY = 0;
    for (const line of lines)
      for (const word of line.words) {
        const text = word.text.trim();
        if (!text) continue;
        maxX = Math.max(maxX, word.bbox.x1);
        maxY = Math.max(maxY, word.bbox.y1);
        // On its line's baseline (a word's box bottom moves with descenders and slashes), rotated
        // back by the page's slant (small angles: a shear is enough), so a row's words share a
        // baseline however far apart its columns are.
        const baseline = baselineAt(line, word.bbox.x0) ?? word.bbox.y1;
        const y = baseline - slope * word.bbox.x0;
        tokens.push({
          text,
          x0: word.bbox.x0 + slope * word.bbox.y1,
          x1: word.bbox.x1 + slope * word.bbox.y1,
          y,
          height: word.bbox.y1 - word.bbox.y0,
          confidence: word.confidence,
        });
      }
    return {
      page,
      width: size?.width ?? maxX,
      height: size?.height ?? maxY,
      source: 'ocr' as const,
      tokens: withoutSpeckles(tokens),
    };
  });
}

/**
 * One line of an image read again with only the given characters allowed (a digit-only pass over
 * a numeric cell: the engine can no longer read a decimal point as a letter or drop it as a speck).
 */
export function readLine(image: Buffer, characters: string): Promise<{ text: string; confidence: number }> {
  return serialised(async () => {
    const engine = await getWorker();
    await engine.setParameters({ tessedit_pageseg_mode: '7' as never, tessedit_char_whitelist: characters });
    const result = await engine.recognize(image, {}, { text: true });
    return { text: result.data.text.trim(), confidence: result.data.confidence };
  });
}

/**
 * Every line of an image read with only the given characters allowed, each with its box: one
 * engine call for a whole column of cells stacked into one image (digit-pass.ts).
 */
export function readLines(
  image: Buffer,
  characters: string,
): Promise<{ text: string; confidence: number; y0: number; y1: number }[]> {
  return serialised(async () => {
    const engine = await getWorker();
    await engine.setParameters({ tessedit_pageseg_mode: '6' as never, tessedit_char_whitelist: characters });
    const result = await engine.recognize(image, {}, { blocks: true, text: false });
    type Line = { text: string; confidence: number; bbox: { y0: number; y1: number } };
    const blocks = (result.data.blocks ?? []) as unknown as { paragraphs: { lines: Line[] }[] }[];
    return blocks.flatMap((block) =>
      block.paragraphs.flatMap((paragraph) =>
        paragraph.lines.map((line) => ({
          text: line.text.trim(),
          confidence: line.confidence,
          y0: line.bbox.y0,
          y1: line.bbox.y1,
        })),
      ),
    );
  });
}

/** Where the engine's baseline of a line runs at x, when it found one. */
function baselineAt(line: OcrLine, x: number): number | undefined {
  const base = line.baseline;
  if (!base || base.has_baseline === false || base.x1 === base.x0) return undefined;
  return base.y0 + ((base.y1 - base.y0) * (x - base.x0)) / (base.x1 - base.x0);
}

/** The slant of a photographed page: the median slope of the engine's longer baselines. */
function pageSlope(lines: OcrLine[]): number {
  const slopes = lines
    .map((line) => line.baseline)
    .filter(
      (baseline): baseline is NonNullable<OcrLine['baseline']> =>
        Boolean(baseline) && baseline!.x1 - baseline!.x0 > 150,
    )
    .map((baseline) => (baseline.y1 - baseline.y0) / (baseline.x1 - baseline.x0))
    .sort((a, b) => a - b);
  const slope = slopes[Math.floor(slopes.length / 2)] ?? 0;
  // Beyond ~10° this is not a slanted page but something the engine misread.
  return Math.abs(slope) < 0.18 ? slope : 0;
}

/** Marks that are never text by themselves: quotes, bars, underscores, stray dots and dashes. */
const JUNK_EDGES = /^[‘’"'`|_©:]+|^[.~=](?=\d)|[‘’"'`|_©]+$|(?<=\/[A-Za-z]+)\.$/g;
const QUOTES = /[‘’"'`]/g;
const KEEP_SYMBOLS = /^[*%<>≤≥]+$/;

/**
 * Drops what specks, shadows and paper texture make the engine "read": marks far smaller than the
 * page's text, words it gives no confidence at all, and bare punctuation; trims stray quotes and
 * bars from the ends of real words ("Calcium’" → "Calcium", "89." → "89").
 */
export function withoutSpeckles(tokens: TextToken[]): TextToken[] {
  const heights = tokens.map((token) => token.height).sort((a, b) => a - b);
  const typical = heights[Math.floor(heights.length / 2)] ?? 0;
  return tokens.flatMap((token) => {
    if (token.height < typical * 0.4 || (token.confidence ?? 100) < 2) return [];
    const text = token.text
      .replace(JUNK_EDGES, '')
      .replace(QUOTES, '')
      .replace(/(\d)\.$/, '$1');
    if (!text || (!/[\p{L}\p{N}]/u.test(text) && !KEEP_SYMBOLS.test(text))) return [];
    return [{ ...token, text }];
  });
}

/** Ends the worker (tests and benches; a service keeps it for its lifetime). */
export async function stopOcr(): Promise<void> {
  const current = worker;
  worker = null;
  if (current) await (await current).terminate();
}
