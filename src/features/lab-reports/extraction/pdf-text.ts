// PDF pages with pdfjs-dist (its legacy build, the one meant for Node): the text layer's items
// with their positions, or, for a page without one (a scan), the page rendered to an image at
// OCR resolution with pdfjs's own Node canvas. Fonts, CMaps and colour profiles come from the
// installed package; pdfjs is never let to fetch anything.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { UnreadableFileError } from './errors.ts';
import { LimitExceededError, readingLimits } from './limits.ts';
import type { PageText, TextToken } from './tokens.ts';

const require = createRequire(import.meta.url);
const PDFJS_ROOT = dirname(require.resolve('pdfjs-dist/package.json'));
const asDirectory = (name: string) => `${join(PDFJS_ROOT, name)}/`;

/** Pages with fewer visible characters than this are treated as scans and read by OCR. */
const MIN_TEXT_CHARACTERS = 20;
/** 300 dpi: what tesseract reads best. */
const OCR_SCALE = 300 / 72;

export { UnreadableFileError };

export type PdfPage =
  | { kind: 'text'; text: PageText }
  | { kind: 'image'; page: number; png: Buffer; width: number; height: number; scale: number };

type TextItem = { str: string; transform: number[]; width: number; height: number };

export async function readPdf(bytes: Uint8Array, options: { maxPages: number }): Promise<PdfPage[]> {
  // Loaded on the first report, not at start-up: pdfjs is several megabytes of code that a process
  // which never reads a lab report should neither parse nor keep in memory.
  const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  let document;
  try {
    document = await getDocument({
      data: new Uint8Array(bytes),
      isEvalSupported: false,
      useSystemFonts: false,
      disableFontFace: true,
      standardFontDataUrl: asDirectory('standard_fonts'),
      cMapUrl: asDirectory('cmaps'),
      cMapPacked: true,
      iccUrl: asDirectory('iccs'),
      wasmUrl: asDirectory('wasm'),
      verbosity: 0,
    }).promise;
  } catch (error) {
    throw new UnreadableFileError(`not a readable PDF (${(error as Error).message})`);
  }
  try {
    const pages: PdfPage[] = [];
    const count = Math.min(document.numPages, options.maxPages);
    for (let number = 1; number <= count; number += 1) {
      const page = await document.getPage(number);
      const viewport = page.getViewport({ scale: 1 });
      checkPageSize(number, viewport);
      const content = await page.getTextContent();
      const tokens: TextToken[] = [];
      for (const item of content.items as TextItem[]) {
        const text = item.str?.trim();
        if (!text) continue;
        const [a, b, , , e, f] = item.transform as [number, number, number, number, number, number];
        // Items carry their font size in the transform; the viewport flips y to count from the top.
        const size = Math.hypot(a, b) || item.height;
        const [x, y] = viewport.convertToViewportPoint(e, f) as [number, number];
        tokens.push({ text, x0: x, x1: x + item.width, y, height: size });
      }
      const characters = tokens.reduce((sum, token) => sum + token.text.length, 0);
      if (characters >= MIN_TEXT_CHARACTERS) {
        pages.push({
          kind: 'text',
          text: {
            page: number,
            width: viewport.width,
            height: viewport.height,
            source: 'text_layer',
            tokens,
          },
        });
        continue;
      }
      const scale = renderScale(viewport);
      const scaled = page.getViewport({ scale });
      const factory = (document as unknown as { canvasFactory: CanvasFactory }).canvasFactory;
      const target = factory.create(Math.ceil(scaled.width), Math.ceil(scaled.height));
      await page.render({ canvasContext: target.context, canvas: target.canvas, viewport: scaled } as never)
        .promise;
      const png = target.canvas.toBuffer('image/png');
      factory.destroy(target);
      pages.push({
        kind: 'image',
        page: number,
        png,
        width: viewport.width,
        height: viewport.height,
        scale,
      });
      page.cleanup();
    }
    return pages;
  } finally {
    await document.destroy();
  }
}

/** Refuses a page larger than the limit (72 points an inch) before anything is drawn or read. */
function checkPageSize(number: number, viewport: { width: number; height: number }) {
  const { maxPageInches } = readingLimits();
  const inches = Math.max(viewport.width, viewport.height) / 72;
  if (!(inches <= maxPageInches))
    throw new LimitExceededError(
      `page ${number} is ${Math.round(viewport.width / 72)} × ${Math.round(viewport.height / 72)} inches, larger than the ${maxPageInches}-inch limit (LAB_REPORT_MAX_PAGE_INCHES)`,
    );
}

/** 300 dpi, or less when that would make more pixels than an image may have. */
function renderScale(viewport: { width: number; height: number }): number {
  const { maxImagePixels } = readingLimits();
  const points = viewport.width * viewport.height;
  return Math.min(OCR_SCALE, Math.sqrt(maxImagePixels / Math.max(points, 1)));
}

/** pdfjs's Node canvas factory (backed by @napi-rs/canvas, which pdfjs-dist installs for Node). */
type CanvasFactory = {
  create(
    width: number,
    height: number,
  ): { canvas: { toBuffer(type: 'image/png'): Buffer }; context: unknown };
  destroy(target: unknown): void;
};
