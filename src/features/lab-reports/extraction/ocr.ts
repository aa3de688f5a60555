// OCR with tesseract.js, fully offline: the English model comes from the npm package
// @tesseract.js-data/eng (installed with the service), read from its directory; nothing is
// cached or fetched at run time. One worker per process, created on first use and reused, with
// calls serialised: recognition is CPU-bound and a second worker would only compete for it.
import { createRequire } from 'node:module';
import { createWorker, OEM, PSM, type Worker } from 'tesseract.js';
import type { PageText, TextToken } from './tokens.ts';

const require = createRequire(import.meta.url);
const ENGLISH = require('@tesseract.js-data/eng') as { langPath: string; gzip: boolean };

let worker: Promise<Worker> | null = null;
let queue: Promise<unknown> = Promise.resolve();

function getWorker(): Promise<Worker> {
  worker ??= createWorker('eng', OEM.LSTM_ONLY, {
    langPath: ENGLISH.langPath,
    gzip: ENGLISH.gzip,
    // No cache: the model is read from the package each time a worker starts, never written or downloaded.
    cacheMethod: 'none',
    cachePath: ENGLISH.langPath,
  }).then(async (created) => {
    // One block: a line of a multi-column table stays one line; rows.ts splits its cells by position.
    await created.setParameters({ tessedit_pageseg_mode: PSM.SINGLE_BLOCK });
    return created;
  });
  worker.catch(() => {
    worker = null;
  });
  return worker;
}

type OcrWord = { text: string; confidence: number; bbox: { x0: number; y0: number; x1: number; y1: number } };
type OcrLine = { words: OcrWord[] };
type OcrBlock = { paragraphs: { lines: OcrLine[] }[] };

/** The words of one image (PNG, JPEG, GIF, WebP, BMP bytes) with positions. */
export function recognise(
  image: Buffer,
  page: number,
  size?: { width: number; height: number },
): Promise<PageText> {
  const run = queue.then(async () => {
    const engine = await getWorker();
    const result = await engine.recognize(image, {}, { blocks: true, text: false });
    const blocks = (result.data.blocks ?? []) as unknown as OcrBlock[];
    const tokens: TextToken[] = [];
    let lineNumber = 0;
    let maxX = 0;
    let maxY = 0;
    for (const block of blocks)
      for (const paragraph of block.paragraphs)
        for (const line of paragraph.lines) {
          lineNumber += 1;
          for (const word of line.words) {
            const text = word.text.trim();
            if (!text) continue;
            maxX = Math.max(maxX, word.bbox.x1);
            maxY = Math.max(maxY, word.bbox.y1);
            tokens.push({
              text,
              x0: word.bbox.x0,
              x1: word.bbox.x1,
              y: word.bbox.y1,
              height: word.bbox.y1 - word.bbox.y0,
              line: lineNumber,
              confidence: word.confidence,
            });
          }
        }
    return {
      page,
      width: size?.width ?? maxX,
      height: size?.height ?? maxY,
      source: 'ocr' as const,
      tokens,
    };
  });
  queue = run.catch(() => undefined);
  return run;
}

/** Ends the worker (tests and benches; a service keeps it for its lifetime). */
export async function stopOcr(): Promise<void> {
  const current = worker;
  worker = null;
  if (current) await (await current).terminate();
}
