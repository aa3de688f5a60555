// Generated documents that reproduce the classes of real reports the reader got wrong (issue 26),
// each with its truth in the shared truth-file shape (test/helpers/lab-report-truth.ts):
// - cumulative: collection-date columns (latest last, or latest first), a "Previous" column, a
//   small lab-code column; earlier values carry flags the current one does not;
// - flags before values (`L 18`, `High 5.6`), units inside the range column, a `>35` range, a
//   range on its own line, footnote marks;
// - overprinted text (bold drawn four times a fraction of a point apart) and superscript lab codes;
// - a low-resolution phone photo (≈700 px wide, slanted, a shadow across) of a generated page.
// Modelled on how real reports are laid out (invented lab, patient and values), drawn with
// pdf-lib; the photo is rendered with pdftoppm (poppler-utils) when it is installed.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { PDFDocument, type PDFFont, type PDFPage, rgb, StandardFonts } from 'pdf-lib';
import type { TruthDocument, TruthFile, TruthResult } from './lab-report-truth.ts';

type Analyte = {
  name: string;
  unit: string;
  range: string;
  current: string;
  flag: string;
  earlier: string[];
};

/** Invented results of a full blood count and a chemistry panel, SI units. */
const ANALYTES: Analyte[] = [
  { name: 'Haemoglobin', unit: 'g/L', range: '115-165', current: '109', flag: 'L', earlier: ['131', '124'] },
  {
    name: 'White cell count',
    unit: 'x10^9/L',
    range: '4.0-11.0',
    current: '7.2',
    flag: '',
    earlier: ['12.9', '6.1'],
  },
  {
    name: 'Platelet count',
    unit: 'x10^9/L',
    range: '150-400',
    current: '412',
    flag: 'H',
    earlier: ['388', '240'],
  },
  { name: 'Mean cell volume', unit: 'fL', range: '80-100', current: '84', flag: '', earlier: ['78', '92'] },
  { name: 'Sodium', unit: 'mmol/L', range: '135-145', current: '139', flag: '', earlier: ['133', '141'] },
  { name: 'Potassium', unit: 'mmol/L', range: '3.5-5.2', current: '5.6', flag: 'H', earlier: ['4.1', '3.3'] },
  { name: 'Creatinine', unit: 'umol/L', range: '45-90', current: '71', flag: '', earlier: ['102', '66'] },
  { name: 'Ferritin', unit: 'ug/L', range: '30-300', current: '18', flag: 'L', earlier: ['25', '44'] },
  { name: 'HbA1c', unit: 'mmol/mol', range: '20-41', current: '38', flag: '', earlier: ['44', '40'] },
  { name: 'TSH', unit: 'mIU/L', range: '0.50-4.00', current: '2.10', flag: '', earlier: ['4.80', '3.20'] },
];

const truthOf = (
  file: string,
  kind: TruthFile['kind'],
  results: TruthResult[],
  analytes = ANALYTES,
): TruthFile => ({
  file,
  kind,
  results,
  optional: analytes.flatMap((analyte) => analyte.earlier.map((value) => ({ name: analyte.name, value }))),
});

type Pen = {
  page: PDFPage;
  text(
    text: string,
    x: number,
    y: number,
    options?: { bold?: boolean; size?: number; overprint?: boolean },
  ): void;
  superscript(text: string, x: number, y: number): void;
  width(text: string, size?: number): number;
};

async function newDocument(): Promise<{ document: PDFDocument; pen: Pen }> {
  const document = await PDFDocument.create();
  const regular = await document.embedFont(StandardFonts.Helvetica);
  const bold = await document.embedFont(StandardFonts.HelveticaBold);
  const page = document.addPage([595, 842]);
  const draw = (text: string, x: number, y: number, font: PDFFont, size: number) =>
    page.drawText(text, { x, y: 842 - y, size, font, color: rgb(0.08, 0.08, 0.1) });
  const pen: Pen = {
    page,
    text(text, x, y, options = {}) {
      const size = options.size ?? 9;
      const font = options.bold ? bold : regular;
      // Bold by overprinting: the same words drawn four times, a fraction of a point apart.
      const copies = options.overprint ? [0, 0.25, 0.5, 0.25] : [0];
      copies.forEach((offset, index) => draw(text, x + offset, y + (index === 3 ? 0.2 : 0), font, size));
    },
    superscript(text, x, y) {
      draw(text, x, y - 3.5, regular, 5.5);
    },
    width: (text, size = 9) => regular.widthOfTextAtSize(text, size),
  };
  return { document, pen };
}

/** Letterhead, patient, accession and address lines that are never results. */
function letterhead(pen: Pen) {
  pen.text('Kestrel Valley Pathology', 40, 50, { bold: true, size: 14 });
  pen.text('Unit 4, 212 Ironbark Road, Lismore NSW 2480   Ph 02 6600 1234', 40, 66, { size: 8 });
  pen.text('Patient: DOE, Alex (Mx)   DOB 02-Feb-1979   Sex M', 40, 90);
  pen.text('Accession 24-7719-0032   Medicare 2953 66120 1', 40, 103);
  pen.text('Requested by Dr P Okafor, 17 Banksia Street, Lismore 2480', 40, 116);
}

function footer(pen: Pen, y: number) {
  pen.text('* Tested at our referral laboratory (site code QX).', 40, y, { size: 7 });
  pen.text('Page 1 of 1   Report printed 20-Nov-2024 09:14   NATA accreditation 2019', 40, y + 12, {
    size: 7,
  });
}

const saved = async (document: PDFDocument) => Buffer.from(await document.save());

/** Cumulative: three collection-date columns (oldest first or latest first), a Lab column, Ref, Units. */
async function cumulative(latestFirst: boolean): Promise<TruthDocument> {
  const { document, pen } = await newDocument();
  letterhead(pen);
  const dates = ['12-Jan-24', '03-Jun-24', '19-Nov-24'];
  const order = latestFirst ? [2, 1, 0] : [0, 1, 2];
  const xs = [190, 250, 310];
  pen.text('Cumulative report', 40, 150, { bold: true, size: 11 });
  order.forEach((date, column) => pen.text(dates[date]!, xs[column]!, 172, { bold: true }));
  pen.text('Test', 40, 186, { bold: true });
  pen.text('Lab', 370, 186, { bold: true });
  pen.text('Ref range', 400, 186, { bold: true });
  pen.text('Units', 480, 186, { bold: true });
  const results: TruthResult[] = [];
  ANALYTES.forEach((analyte, row) => {
    const y = 204 + row * 15;
    pen.text(analyte.name, 40, y);
    if (analyte.name === 'Ferritin') pen.text('*', 40 + pen.width('Ferritin') + 1, y);
    const values = [analyte.earlier[0]!, analyte.earlier[1]!, analyte.current];
    const flags = [earlierFlag(analyte, 0), earlierFlag(analyte, 1), analyte.flag];
    order.forEach((index, column) => {
      const text = flags[index] ? `${values[index]} ${flags[index]}` : values[index]!;
      pen.text(text, xs[column]!, y);
    });
    pen.text(row % 3 === 0 ? 'QX' : 'KV', 370, y, { size: 7 });
    pen.text(`(${analyte.range})`, 400, y);
    pen.text(analyte.unit, 480, y);
    results.push({
      name: analyte.name,
      value: analyte.current,
      unit: analyte.unit,
      range: `(${analyte.range})`,
      flag: analyte.flag,
    });
  });
  footer(pen, 204 + ANALYTES.length * 15 + 30);
  const file = latestFirst ? 'cumulative-latest-first.pdf' : 'cumulative-dates.pdf';
  return {
    label: file,
    bytes: await saved(document),
    mediaType: 'application/pdf',
    truth: truthOf(file, 'text-pdf', results),
  };
}

function earlierFlag(analyte: Analyte, index: number): string {
  const value = Number(analyte.earlier[index]);
  const [low, high] = analyte.range.split('-').map(Number) as [number, number];
  return value < low ? 'L' : value > high ? 'H' : '';
}

/** Result, then the previous result with its date, Units, Reference interval. */
async function previousColumn(): Promise<TruthDocument> {
  const { document, pen } = await newDocument();
  letterhead(pen);
  pen.text('Test', 40, 160, { bold: true });
  pen.text('Result', 200, 160, { bold: true });
  pen.text('Previous', 270, 160, { bold: true });
  pen.text('Units', 350, 160, { bold: true });
  pen.text('Reference interval', 420, 160, { bold: true });
  const results: TruthResult[] = [];
  ANALYTES.forEach((analyte, row) => {
    const y = 178 + row * 15;
    pen.text(analyte.name, 40, y);
    pen.text(analyte.flag ? `${analyte.current} ${analyte.flag}` : analyte.current, 200, y);
    pen.text(analyte.earlier[1]!, 270, y);
    pen.text(analyte.unit, 350, y);
    pen.text(analyte.range.replace('-', ' - '), 420, y);
    results.push({
      name: analyte.name,
      value: analyte.current,
      unit: analyte.unit,
      range: analyte.range,
      flag: analyte.flag,
    });
  });
  footer(pen, 178 + ANALYTES.length * 15 + 30);
  return {
    label: 'previous-column.pdf',
    bytes: await saved(document),
    mediaType: 'application/pdf',
    truth: truthOf('previous-column.pdf', 'text-pdf', results),
  };
}

type Printed = {
  name: string;
  flag: string;
  value: string;
  range: string;
  unit: string;
  ownLineRange?: string;
};

/** Flags printed before the value, units inside the range column, `>35` ranges, a range on its own line. */
const FLAGGED: Printed[] = [
  { name: 'Hemoglobin', flag: 'L', value: '11.8', range: '13.0 - 17.0', unit: 'g/dL' },
  { name: 'Glucose', flag: 'High', value: '5.6', range: '3.9 - 5.5', unit: 'mmol/L' },
  { name: 'HDL Cholesterol', flag: '', value: '52', range: '>35', unit: 'mg/dL' },
  { name: 'Lymphocytes', flag: 'L', value: '18', range: '20 - 40', unit: '%' },
  { name: 'Neutrophils', flag: '', value: '71', range: '40 - 80', unit: '%' },
  {
    name: 'Triglycerides',
    flag: 'H',
    value: '212',
    range: '',
    unit: 'mg/dL',
    ownLineRange: 'Normal < 150; borderline 150 - 199',
  },
  { name: 'ALT', flag: '', value: '24', range: '7 - 56', unit: 'U/L' },
  { name: 'Vitamin B12', flag: 'Low', value: '180', range: '211 - 911', unit: 'pg/mL' },
];

async function flagsBeforeValues(options: {
  overprint: boolean;
}): Promise<{ pdf: Buffer; truth: TruthResult[] }> {
  const { document, pen } = await newDocument();
  letterhead(pen);
  const bold = { bold: true, overprint: options.overprint };
  pen.text('TEST NAME', 40, 160, bold);
  pen.text('RESULT', 230, 160, bold);
  pen.text('REFERENCE RANGE / UNITS', 340, 160, bold);
  const results: TruthResult[] = [];
  let y = 180;
  for (const row of FLAGGED) {
    pen.text(row.name, 40, y, { bold: row.flag !== '', overprint: options.overprint && row.flag !== '' });
    if (options.overprint)
      pen.superscript(row.name === 'Glucose' ? '2' : '1', 40 + pen.width(row.name) + 3, y);
    pen.text(row.flag ? `${row.flag} ${row.value}` : row.value, 230, y, {
      bold: row.flag !== '',
      overprint: options.overprint && row.flag !== '',
    });
    pen.text(row.range ? `${row.range} ${row.unit}` : row.unit, 340, y);
    results.push({ name: row.name, value: row.value, unit: row.unit, range: row.range, flag: row.flag });
    if (row.ownLineRange) {
      y += 13;
      pen.text(row.ownLineRange, 340, y, { size: 8 });
    }
    y += 17;
  }
  footer(pen, y + 20);
  return { pdf: await saved(document), truth: results };
}

async function flagsDocument(overprint: boolean): Promise<TruthDocument> {
  const file = overprint ? 'overprinted.pdf' : 'flags-before-values.pdf';
  const { pdf, truth } = await flagsBeforeValues({ overprint });
  return {
    label: file,
    bytes: pdf,
    mediaType: 'application/pdf',
    truth: { file, kind: 'text-pdf', results: truth },
  };
}

const run = promisify(execFile);

/** Whether pdftoppm (poppler-utils) is installed: the photo class needs it. */
export async function hasPdftoppm(): Promise<boolean> {
  try {
    await run('pdftoppm', ['-v']);
    return true;
  } catch {
    return false;
  }
}

/**
 * A phone photo of a generated page: rendered at 84 dpi (≈700 px wide, what a hand-held shot of a
 * whole A4 page keeps), turned 1.5°, a shadow darkening one side, saved as JPEG.
 */
async function photo(source: { pdf: Buffer; truth: TruthResult[] }, label: string): Promise<TruthDocument> {
  const folder = await mkdtemp(join(tmpdir(), 'lab-photo-'));
  try {
    await writeFile(join(folder, 'page.pdf'), source.pdf);
    await run('pdftoppm', [
      '-r',
      '84',
      '-png',
      '-singlefile',
      join(folder, 'page.pdf'),
      join(folder, 'page'),
    ]);
    const image = await loadImage(await readFile(join(folder, 'page.png')));
    const canvas = createCanvas(image.width, image.height);
    const context = canvas.getContext('2d');
    context.fillStyle = '#b9b4aa';
    context.fillRect(0, 0, canvas.width, canvas.height);
    context.translate(canvas.width / 2, canvas.height / 2);
    context.rotate((1.5 * Math.PI) / 180);
    context.drawImage(image, -image.width / 2, -image.height / 2);
    context.setTransform(1, 0, 0, 1, 0, 0);
    const shadow = context.createLinearGradient(0, 0, canvas.width, 0);
    shadow.addColorStop(0, 'rgba(0,0,0,0.28)');
    shadow.addColorStop(0.5, 'rgba(0,0,0,0.08)');
    shadow.addColorStop(1, 'rgba(0,0,0,0)');
    context.fillStyle = shadow;
    context.fillRect(0, 0, canvas.width, canvas.height);
    const bytes = canvas.toBuffer('image/jpeg', 85);
    return {
      label,
      bytes,
      mediaType: 'image/jpeg',
      truth: { file: label, kind: 'image', results: source.truth },
    };
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/** The text-PDF class documents (fast: no OCR). */
export async function textClassDocuments(): Promise<TruthDocument[]> {
  return [
    await cumulative(false),
    await cumulative(true),
    await previousColumn(),
    await flagsDocument(false),
    await flagsDocument(true),
  ];
}

/** The photographed class document (needs pdftoppm; read by OCR). */
export async function photoClassDocuments(): Promise<TruthDocument[]> {
  return [await photo(await flagsBeforeValues({ overprint: false }), 'low-resolution-photo.jpg')];
}
