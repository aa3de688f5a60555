// Phone-photo-like images and scanned PDFs made from generated reports, in-process and
// deterministic (no browser, no poppler): the report's text PDF (lab-report-samples.ts) drawn by
// pdfjs-dist on @napi-rs/canvas, then photographed the way a hand-held phone does it: the sheet
// on a darker table, seen at an angle (a perspective warp of its four corners, turned a few
// degrees), out of focus (blur), lit unevenly (a bright spot and a shadow), with sensor noise,
// saved as JPEG. Scans: the page at scanner resolution, turned slightly, speckled, greyscale,
// wrapped in a PDF with no text layer. Nothing is committed: the bench and tests make them.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createCanvas, type Canvas } from '@napi-rs/canvas';
import {
  generateReport,
  renderPdf,
  scannedPdf,
  type GeneratedReport,
  type ReportOptions,
} from './lab-report-samples.ts';
import type { TruthDocument, TruthResult } from './lab-report-truth.ts';

const require = createRequire(import.meta.url);
const PDFJS_ROOT = dirname(require.resolve('pdfjs-dist/package.json'));

/** The first page of a PDF drawn at `dpi` on a white canvas. */
export async function renderFirstPage(pdf: Buffer, dpi: number): Promise<Canvas> {
  const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const document = await getDocument({
    data: new Uint8Array(pdf),
    isEvalSupported: false,
    disableFontFace: true,
    standardFontDataUrl: `${join(PDFJS_ROOT, 'standard_fonts')}/`,
    verbosity: 0,
  }).promise;
  try {
    const page = await document.getPage(1);
    const viewport = page.getViewport({ scale: dpi / 72 });
    const canvas = createCanvas(Math.ceil(viewport.width), Math.ceil(viewport.height));
    const context = canvas.getContext('2d');
    context.fillStyle = '#ffffff';
    context.fillRect(0, 0, canvas.width, canvas.height);
    await page.render({ canvasContext: context, canvas, viewport } as never).promise;
    return canvas;
  } finally {
    await document.destroy();
  }
}

/** A small deterministic random source (the same photo every run). */
function randomFrom(seed: number) {
  let state = seed >>> 0 || 1;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

type Point = [number, number];

/** The 3×3 homography taking the unit square's corners (0,0) (1,0) (1,1) (0,1) to `to`. */
function squareTo([p0, p1, p2, p3]: [Point, Point, Point, Point]): number[] {
  const [x0, y0] = p0;
  const [x1, y1] = p1;
  const [x2, y2] = p2;
  const [x3, y3] = p3;
  const dx1 = x1 - x2;
  const dx2 = x3 - x2;
  const dx3 = x0 - x1 + x2 - x3;
  const dy1 = y1 - y2;
  const dy2 = y3 - y2;
  const dy3 = y0 - y1 + y2 - y3;
  const det = dx1 * dy2 - dx2 * dy1;
  const g = (dx3 * dy2 - dx2 * dy3) / det;
  const h = (dx1 * dy3 - dx3 * dy1) / det;
  return [x1 - x0 + g * x1, x3 - x0 + h * x3, x0, y1 - y0 + g * y1, y3 - y0 + h * y3, y0, g, h, 1];
}

function invert(m: number[]): number[] {
  const [a, b, c, d, e, f, g, h, i] = m as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const A = e * i - f * h;
  const B = -(d * i - f * g);
  const C = d * h - e * g;
  const det = a * A + b * B + c * C;
  return [
    A / det,
    -(b * i - c * h) / det,
    (b * f - c * e) / det,
    B / det,
    (a * i - c * g) / det,
    -(a * f - c * d) / det,
    C / det,
    -(a * h - b * g) / det,
    (a * e - b * d) / det,
  ];
}

export type PhotoStyle = {
  /** Width of the photo in pixels (the sheet fills most of it). */
  width: number;
  /** Degrees the sheet is turned. */
  rotate: number;
  /** How far the far edge narrows (0: none; 0.06: the top 6% narrower than the bottom). */
  perspective: number;
  /** Gaussian blur radius in pixels. */
  blur: number;
  /** Strength of the shadow across the sheet (0–1). */
  shadow: number;
  /** Sensor noise amplitude (grey levels). */
  noise: number;
  /** JPEG quality (0–100). */
  quality: number;
  seed: number;
};

/** The rendered page photographed: warped onto a quadrilateral over a table, blurred, lit, noisy, JPEG. */
export function photograph(page: Canvas, style: PhotoStyle): Buffer {
  const random = randomFrom(style.seed);
  const scale = (style.width * 0.9) / page.width;
  const sheetWidth = page.width * scale;
  const sheetHeight = page.height * scale;
  const width = style.width;
  const height = Math.round(sheetHeight / 0.9 + 40);
  const centre: Point = [width / 2, height / 2];
  const turn = (style.rotate * Math.PI) / 180;
  const narrow = (style.perspective * sheetWidth) / 2;
  const corners: Point[] = [
    [-sheetWidth / 2 + narrow, -sheetHeight / 2],
    [sheetWidth / 2 - narrow, -sheetHeight / 2],
    [sheetWidth / 2, sheetHeight / 2],
    [-sheetWidth / 2, sheetHeight / 2],
  ].map(([x, y]) => [
    centre[0] + x! * Math.cos(turn) - y! * Math.sin(turn) + (random() - 0.5) * 8,
    centre[1] + x! * Math.sin(turn) + y! * Math.cos(turn) + (random() - 0.5) * 8,
  ]);
  const back = invert(squareTo(corners as [Point, Point, Point, Point]));
  const source = page.getContext('2d').getImageData(0, 0, page.width, page.height).data;
  const out = createCanvas(width, height);
  const context = out.getContext('2d');
  const image = context.createImageData(width, height);
  const target = image.data;
  const tone = [150, 138, 118];
  for (let y = 0; y < height; y += 1)
    for (let x = 0; x < width; x += 1) {
      const w = back[6]! * x + back[7]! * y + back[8]!;
      const u = ((back[0]! * x + back[1]! * y + back[2]!) / w) * page.width;
      const v = ((back[3]! * x + back[4]! * y + back[5]!) / w) * page.height;
      const at = (y * width + x) * 4;
      if (u < 0 || v < 0 || u >= page.width - 1 || v >= page.height - 1) {
        target[at] = tone[0]!;
        target[at + 1] = tone[1]!;
        target[at + 2] = tone[2]!;
      } else {
        // Bilinear sampling: the page's pixels between the four nearest.
        const x0 = Math.floor(u);
        const y0 = Math.floor(v);
        const fx = u - x0;
        const fy = v - y0;
        for (let channel = 0; channel < 3; channel += 1) {
          const p = (yy: number, xx: number) => source[(yy * page.width + xx) * 4 + channel]!;
          const top = p(y0, x0) * (1 - fx) + p(y0, x0 + 1) * fx;
          const bottom = p(y0 + 1, x0) * (1 - fx) + p(y0 + 1, x0 + 1) * fx;
          // Paper is a little warm, never pure white.
          target[at + channel] = (top * (1 - fy) + bottom * fy) * [0.96, 0.95, 0.9][channel]!;
        }
      }
      target[at + 3] = 255;
    }
  context.putImageData(image, 0, 0);
  if (style.blur > 0) {
    const sharp = createCanvas(width, height);
    sharp.getContext('2d').drawImage(out, 0, 0);
    context.filter = `blur(${style.blur}px)`;
    context.drawImage(sharp, 0, 0);
    context.filter = 'none';
  }
  // Uneven light: a shadow falling from one side, a brighter spot where the lamp is.
  const shadow = context.createLinearGradient(0, 0, width, height * random());
  shadow.addColorStop(0, `rgba(0,0,0,${style.shadow})`);
  shadow.addColorStop(0.6, `rgba(0,0,0,${style.shadow / 4})`);
  shadow.addColorStop(1, 'rgba(0,0,0,0)');
  context.fillStyle = shadow;
  context.fillRect(0, 0, width, height);
  const spot = context.createRadialGradient(
    width * 0.7,
    height * 0.3,
    0,
    width * 0.7,
    height * 0.3,
    width * 0.6,
  );
  spot.addColorStop(0, 'rgba(255,250,235,0.12)');
  spot.addColorStop(1, 'rgba(255,250,235,0)');
  context.fillStyle = spot;
  context.fillRect(0, 0, width, height);
  if (style.noise > 0) {
    const pixels = context.getImageData(0, 0, width, height);
    for (let at = 0; at < pixels.data.length; at += 4) {
      const grain = (random() - 0.5) * 2 * style.noise;
      for (let channel = 0; channel < 3; channel += 1)
        pixels.data[at + channel] = pixels.data[at + channel]! + grain;
    }
    context.putImageData(pixels, 0, 0);
  }
  return out.toBuffer('image/jpeg', style.quality);
}

/** A scanner's page: turned slightly, greyscale, speckled, PNG (to be wrapped in a PDF). */
function scan(page: Canvas, rotate: number, seed: number): Buffer {
  const random = randomFrom(seed);
  const out = createCanvas(page.width, page.height);
  const context = out.getContext('2d');
  context.fillStyle = '#ffffff';
  context.fillRect(0, 0, out.width, out.height);
  context.translate(out.width / 2, out.height / 2);
  context.rotate((rotate * Math.PI) / 180);
  context.drawImage(page, -page.width / 2, -page.height / 2);
  context.setTransform(1, 0, 0, 1, 0, 0);
  const pixels = context.getImageData(0, 0, out.width, out.height);
  for (let at = 0; at < pixels.data.length; at += 4) {
    let grey = 0.299 * pixels.data[at]! + 0.587 * pixels.data[at + 1]! + 0.114 * pixels.data[at + 2]!;
    if (random() < 0.0015) grey = 60 + random() * 80;
    pixels.data[at] = pixels.data[at + 1] = pixels.data[at + 2] = grey;
  }
  context.putImageData(pixels, 0, 0);
  return out.toBuffer('image/png');
}

const truthOf = (report: GeneratedReport): TruthResult[] =>
  report.truth.map((row) => ({
    name: row.name,
    value: row.value,
    unit: row.units,
    range: row.range,
    flag: row.printedFlag ?? '',
  }));

/** The photographed set: layouts × flag styles × unit systems, each with its own camera. */
export const PHOTO_SET: { options: ReportOptions; style: Omit<PhotoStyle, 'seed'>; dpi: number }[] = [
  {
    options: { layout: 'one-column', unitsColumn: true, system: 'US', flagStyle: 'letters' },
    style: { width: 1200, rotate: 2.5, perspective: 0.05, blur: 0.8, shadow: 0.35, noise: 8, quality: 80 },
    dpi: 170,
  },
  {
    options: { layout: 'one-column', unitsColumn: false, system: 'SI', flagStyle: 'asterisk' },
    style: { width: 1500, rotate: -3.5, perspective: 0.04, blur: 1.0, shadow: 0.3, noise: 10, quality: 75 },
    dpi: 200,
  },
  {
    options: { layout: 'two-column', unitsColumn: true, system: 'US', flagStyle: 'letters' },
    style: { width: 1800, rotate: 1.5, perspective: 0.03, blur: 0.7, shadow: 0.25, noise: 6, quality: 85 },
    dpi: 230,
  },
  {
    options: { layout: 'one-column', unitsColumn: true, system: 'SI', flagStyle: 'none' },
    style: { width: 1000, rotate: -1.2, perspective: 0.06, blur: 0.6, shadow: 0.4, noise: 8, quality: 70 },
    dpi: 150,
  },
];

/** Phone-photo-like JPEGs of generated reports, with their truth. */
export async function generatedPhotos(count = PHOTO_SET.length): Promise<TruthDocument[]> {
  const documents: TruthDocument[] = [];
  for (const [index, { options, style, dpi }] of PHOTO_SET.slice(0, count).entries()) {
    const report = generateReport(options);
    const page = await renderFirstPage(await renderPdf(report), dpi);
    const label = `photo ${options.layout} ${options.system} ${options.flagStyle} ${style.width}px`;
    documents.push({
      label,
      bytes: photograph(page, { ...style, seed: index + 11 }),
      mediaType: 'image/jpeg',
      truth: { file: label, kind: 'image', results: truthOf(report) },
    });
  }
  return documents;
}

/** Scanned PDFs (an image page, no text layer) of generated reports, with their truth. */
export async function generatedScans(): Promise<TruthDocument[]> {
  const documents: TruthDocument[] = [];
  const set: ReportOptions[] = [
    { layout: 'one-column', unitsColumn: true, system: 'US', flagStyle: 'letters' },
    { layout: 'two-column', unitsColumn: false, system: 'SI', flagStyle: 'letters' },
  ];
  for (const [index, options] of set.entries()) {
    const report = generateReport(options);
    const page = await renderFirstPage(await renderPdf(report), 200);
    const label = `scan ${options.layout} ${options.system}`;
    documents.push({
      label,
      bytes: await scannedPdf(scan(page, index === 0 ? 0.8 : -0.6, index + 5)),
      mediaType: 'application/pdf',
      truth: { file: label, kind: 'scanned-pdf', results: truthOf(report) },
    });
  }
  return documents;
}
