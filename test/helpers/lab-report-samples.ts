// Realistic lab reports generated with their truth: a catalogue of tests as labs print them, in
// conventional (US) and SI units, laid out one-column or two-column, with or without a units
// column, as a text PDF (pdf-lib), as HTML (for Chromium to photograph, with skew and noise), or
// as a scanned PDF (an image page, no text layer). Tests and bench/lab-reports.ts compare what
// the service parses with `truth`.
import { PDFDocument, type PDFFont, type PDFPage, rgb, StandardFonts } from 'pdf-lib';

export type Flag = 'high' | 'low' | 'normal';

/** One printed result and what parsing it must give. */
export type TruthRow = {
  panel: string;
  name: string;
  key: string;
  loinc: string;
  value: string;
  /** The typed value: a number, or a bound (`<0.3`). */
  numeric?: number;
  bounded?: { operator: 'lt' | 'gt'; value: number };
  units: string;
  ucum: string;
  range: string;
  lower?: number;
  upper?: number;
  /** The flag as printed (H, L, *), or undefined when the report printed none. */
  printedFlag?: string;
  flag: Flag;
  flagSource: 'report' | 'computed';
};

type Variant = { value: string; units: string; ucum: string; range: string; loinc: string };
type CatalogueEntry = { panel: string; name: string; key: string; us: Variant; si?: Variant };

const v = (value: string, units: string, ucum: string, range: string, loinc: string): Variant => ({
  value,
  units,
  ucum,
  range,
  loinc,
});

/** The tests the generated reports print (US form, and the SI form where it differs). */
export const CATALOGUE: CatalogueEntry[] = [
  {
    panel: 'COMPREHENSIVE METABOLIC PANEL',
    name: 'Glucose',
    key: 'glucose',
    us: v('105', 'mg/dL', 'mg/dL', '70-99', '2345-7'),
    si: v('5.8', 'mmol/L', 'mmol/L', '3.9-5.5', '14749-6'),
  },
  {
    panel: 'COMPREHENSIVE METABOLIC PANEL',
    name: 'BUN',
    key: 'bun',
    us: v('14', 'mg/dL', 'mg/dL', '6-20', '3094-0'),
  },
  {
    panel: 'COMPREHENSIVE METABOLIC PANEL',
    name: 'Creatinine',
    key: 'creatinine',
    us: v('0.92', 'mg/dL', 'mg/dL', '0.57-1.00', '2160-0'),
    si: v('81', 'umol/L', 'umol/L', '50-98', '14682-9'),
  },
  {
    panel: 'COMPREHENSIVE METABOLIC PANEL',
    name: 'eGFR',
    key: 'egfr',
    us: v('84', 'mL/min/1.73m2', 'mL/min/{1.73_m2}', '>59', '98979-8'),
  },
  {
    panel: 'COMPREHENSIVE METABOLIC PANEL',
    name: 'Sodium',
    key: 'sodium',
    us: v('140', 'mmol/L', 'mmol/L', '134-144', '2951-2'),
  },
  {
    panel: 'COMPREHENSIVE METABOLIC PANEL',
    name: 'Potassium',
    key: 'potassium',
    us: v('5.6', 'mmol/L', 'mmol/L', '3.5-5.2', '2823-3'),
  },
  {
    panel: 'COMPREHENSIVE METABOLIC PANEL',
    name: 'Chloride',
    key: 'chloride',
    us: v('101', 'mmol/L', 'mmol/L', '96-106', '2075-0'),
  },
  {
    panel: 'COMPREHENSIVE METABOLIC PANEL',
    name: 'Carbon Dioxide, Total',
    key: 'carbon_dioxide',
    us: v('24', 'mmol/L', 'mmol/L', '20-29', '2028-9'),
  },
  {
    panel: 'COMPREHENSIVE METABOLIC PANEL',
    name: 'Calcium',
    key: 'calcium',
    us: v('9.6', 'mg/dL', 'mg/dL', '8.7-10.2', '17861-6'),
    si: v('2.40', 'mmol/L', 'mmol/L', '2.20-2.60', '2000-8'),
  },
  {
    panel: 'COMPREHENSIVE METABOLIC PANEL',
    name: 'Protein, Total',
    key: 'total_protein',
    us: v('7.1', 'g/dL', 'g/dL', '6.0-8.5', '2885-2'),
    si: v('71', 'g/L', 'g/L', '60-80', '2885-2'),
  },
  {
    panel: 'COMPREHENSIVE METABOLIC PANEL',
    name: 'Albumin',
    key: 'albumin',
    us: v('4.5', 'g/dL', 'g/dL', '3.8-4.9', '1751-7'),
    si: v('45', 'g/L', 'g/L', '35-50', '1751-7'),
  },
  {
    panel: 'COMPREHENSIVE METABOLIC PANEL',
    name: 'Bilirubin, Total',
    key: 'bilirubin_total',
    us: v('1.4', 'mg/dL', 'mg/dL', '0.0-1.2', '1975-2'),
    si: v('24', 'umol/L', 'umol/L', '0-21', '14631-6'),
  },
  {
    panel: 'COMPREHENSIVE METABOLIC PANEL',
    name: 'Alkaline Phosphatase',
    key: 'alkaline_phosphatase',
    us: v('72', 'U/L', 'U/L', '44-121', '6768-6'),
  },
  {
    panel: 'COMPREHENSIVE METABOLIC PANEL',
    name: 'AST (SGOT)',
    key: 'ast',
    us: v('22', 'U/L', 'U/L', '0-40', '1920-8'),
  },
  {
    panel: 'COMPREHENSIVE METABOLIC PANEL',
    name: 'ALT (SGPT)',
    key: 'alt',
    us: v('48', 'U/L', 'U/L', '0-32', '1742-6'),
  },
  {
    panel: 'LIPID PANEL',
    name: 'Cholesterol, Total',
    key: 'cholesterol_total',
    us: v('212', 'mg/dL', 'mg/dL', '<200', '2093-3'),
    si: v('5.48', 'mmol/L', 'mmol/L', '<5.20', '14647-2'),
  },
  {
    panel: 'LIPID PANEL',
    name: 'Triglycerides',
    key: 'triglycerides',
    us: v('145', 'mg/dL', 'mg/dL', '<150', '2571-8'),
    si: v('1.64', 'mmol/L', 'mmol/L', '<1.70', '14927-8'),
  },
  {
    panel: 'LIPID PANEL',
    name: 'HDL Cholesterol',
    key: 'hdl',
    us: v('38', 'mg/dL', 'mg/dL', '>39', '2085-9'),
    si: v('0.98', 'mmol/L', 'mmol/L', '>1.00', '14646-4'),
  },
  {
    panel: 'LIPID PANEL',
    name: 'LDL Chol Calc (NIH)',
    key: 'ldl',
    us: v('145', 'mg/dL', 'mg/dL', '0-99', '13457-7'),
    si: v('3.75', 'mmol/L', 'mmol/L', '0.00-2.59', '22748-8'),
  },
  {
    panel: 'CBC WITH DIFFERENTIAL',
    name: 'WBC',
    key: 'wbc',
    us: v('6.5', 'x10E3/uL', '10*3/uL', '3.4-10.8', '6690-2'),
    si: v('6.5', 'x10^9/L', '10*9/L', '4.0-11.0', '6690-2'),
  },
  {
    panel: 'CBC WITH DIFFERENTIAL',
    name: 'RBC',
    key: 'rbc',
    us: v('4.62', 'x10E6/uL', '10*6/uL', '3.77-5.28', '789-8'),
    si: v('4.62', 'x10^12/L', '10*12/L', '3.80-5.80', '789-8'),
  },
  {
    panel: 'CBC WITH DIFFERENTIAL',
    name: 'Hemoglobin',
    key: 'hemoglobin',
    us: v('11.0', 'g/dL', 'g/dL', '11.1-15.9', '718-7'),
    si: v('110', 'g/L', 'g/L', '115-165', '718-7'),
  },
  {
    panel: 'CBC WITH DIFFERENTIAL',
    name: 'Hematocrit',
    key: 'hematocrit',
    us: v('41.2', '%', '%', '34.0-46.6', '4544-3'),
  },
  { panel: 'CBC WITH DIFFERENTIAL', name: 'MCV', key: 'mcv', us: v('89', 'fL', 'fL', '79-97', '787-2') },
  {
    panel: 'CBC WITH DIFFERENTIAL',
    name: 'Platelets',
    key: 'platelets',
    us: v('250', 'x10E3/uL', '10*3/uL', '150-450', '777-3'),
    si: v('250', 'x10^9/L', '10*9/L', '150-400', '777-3'),
  },
  {
    panel: 'CBC WITH DIFFERENTIAL',
    name: 'Neutrophils',
    key: 'neutrophils_percent',
    us: v('58', '%', '%', '40-74', '770-8'),
  },
  {
    panel: 'CBC WITH DIFFERENTIAL',
    name: 'Lymphs (Absolute)',
    key: 'lymphocytes',
    us: v('2.1', 'x10E3/uL', '10*3/uL', '0.7-3.1', '731-0'),
    si: v('2.1', 'x10^9/L', '10*9/L', '1.0-4.0', '731-0'),
  },
  {
    panel: 'THYROID',
    name: 'TSH',
    key: 'tsh',
    us: v('5.8', 'uIU/mL', 'u[IU]/mL', '0.450-4.500', '3016-3'),
    si: v('5.8', 'mIU/L', 'm[IU]/L', '0.27-4.20', '3016-3'),
  },
  {
    panel: 'THYROID',
    name: 'T4, Free (Direct)',
    key: 'free_t4',
    us: v('1.21', 'ng/dL', 'ng/dL', '0.82-1.77', '3024-7'),
    si: v('15.6', 'pmol/L', 'pmol/L', '12.0-22.0', '14920-3'),
  },
  {
    panel: 'OTHER TESTS',
    name: 'Hemoglobin A1c',
    key: 'hba1c',
    us: v('6.1', '%', '%', '4.8-5.6', '4548-4'),
    si: v('43', 'mmol/mol', 'mmol/mol', '20-42', '59261-8'),
  },
  {
    panel: 'OTHER TESTS',
    name: 'Vitamin D, 25-Hydroxy',
    key: 'vitamin_d',
    us: v('24.1', 'ng/mL', 'ng/mL', '30.0-100.0', '62292-8'),
    si: v('60', 'nmol/L', 'nmol/L', '75-250', '62292-8'),
  },
  {
    panel: 'OTHER TESTS',
    name: 'Ferritin',
    key: 'ferritin',
    us: v('45', 'ng/mL', 'ng/mL', '15-150', '2276-4'),
    si: v('45', 'ug/L', 'ug/L', '15-150', '2276-4'),
  },
  {
    panel: 'OTHER TESTS',
    name: 'Vitamin B12',
    key: 'vitamin_b12',
    us: v('512', 'pg/mL', 'pg/mL', '232-1245', '2132-9'),
    si: v('378', 'pmol/L', 'pmol/L', '145-569', '14685-2'),
  },
  {
    panel: 'OTHER TESTS',
    name: 'Iron',
    key: 'iron',
    us: v('85', 'ug/dL', 'ug/dL', '27-159', '2498-4'),
    si: v('15.2', 'umol/L', 'umol/L', '10.0-30.0', '14798-3'),
  },
  {
    panel: 'OTHER TESTS',
    name: 'C-Reactive Protein, Cardiac',
    key: 'hs_crp',
    us: v('<0.3', 'mg/L', 'mg/L', '0.0-3.0', '30522-7'),
  },
];

export type ReportOptions = {
  layout: 'one-column' | 'two-column';
  unitsColumn: boolean;
  system: 'US' | 'SI';
  /** How abnormal values are marked: H/L letters, an asterisk, or not at all (flags computed). */
  flagStyle: 'letters' | 'asterisk' | 'none';
  /** Only these catalogue keys (all when absent). */
  keys?: readonly string[];
  labName?: string;
};

export type GeneratedReport = {
  options: ReportOptions;
  truth: TruthRow[];
  reportDate: string;
  collectionDate: string;
  patientSex: 'female' | 'male';
  patientAge: number;
  labName: string;
};

function parseRange(text: string): { lower?: number; upper?: number; strict: boolean } {
  const between = /^(-?[\d.]+)-([\d.]+)$/.exec(text);
  if (between) return { lower: Number(between[1]), upper: Number(between[2]), strict: false };
  const one = /^([<>])([\d.]+)$/.exec(text)!;
  return one[1] === '<' ? { upper: Number(one[2]), strict: true } : { lower: Number(one[2]), strict: true };
}

function verdict(value: number, range: ReturnType<typeof parseRange>): Flag {
  if (range.lower !== undefined && (value < range.lower || (range.strict && value === range.lower)))
    return 'low';
  if (range.upper !== undefined && (value > range.upper || (range.strict && value === range.upper)))
    return 'high';
  return 'normal';
}

/** The report's rows and their truth. */
export function generateReport(options: ReportOptions): GeneratedReport {
  const truth = CATALOGUE.filter((entry) => !options.keys || options.keys.includes(entry.key)).map(
    (entry) => {
      const variant = options.system === 'SI' && entry.si ? entry.si : entry.us;
      const range = parseRange(variant.range);
      const bound = /^([<>])([\d.]+)$/.exec(variant.value);
      const numeric = bound ? undefined : Number(variant.value);
      const bounded = bound
        ? { operator: bound[1] === '<' ? ('lt' as const) : ('gt' as const), value: Number(bound[2]) }
        : undefined;
      const flag: Flag = numeric === undefined ? 'normal' : verdict(numeric, range);
      const printedFlag =
        flag === 'normal' || options.flagStyle === 'none'
          ? undefined
          : options.flagStyle === 'asterisk'
            ? '*'
            : flag === 'high'
              ? 'H'
              : 'L';
      return {
        panel: entry.panel,
        name: entry.name,
        key: entry.key,
        loinc: variant.loinc,
        value: variant.value,
        ...(numeric === undefined ? {} : { numeric }),
        ...(bounded ? { bounded } : {}),
        units: variant.units,
        ucum: variant.ucum,
        range: variant.range,
        ...(range.lower === undefined ? {} : { lower: range.lower }),
        ...(range.upper === undefined ? {} : { upper: range.upper }),
        ...(printedFlag ? { printedFlag } : {}),
        flag,
        flagSource: printedFlag ? ('report' as const) : ('computed' as const),
      };
    },
  );
  return {
    options,
    truth,
    reportDate: '2025-03-15',
    collectionDate: '2025-03-14',
    patientSex: 'female',
    patientAge: 45,
    labName: options.labName ?? 'Northwind Clinical Laboratories',
  };
}

const display = (date: string, system: 'US' | 'SI') => {
  const [y, m, d] = date.split('-');
  return system === 'US' ? `${m}/${d}/${y}` : `${d}/${m}/${y}`;
};

/** Header lines as printed (lab, patient, dates). */
function headerLines(report: GeneratedReport): string[][] {
  const system = report.options.system;
  return [
    [report.labName, '1200 Harbor Way, Springfield'],
    [
      `Patient: Jane Q. Doe`,
      `Sex: ${report.patientSex === 'female' ? 'Female' : 'Male'}`,
      `Age: ${report.patientAge}`,
    ],
    [
      `Collected: ${display(report.collectionDate, system)} 08:15`,
      `Reported: ${display(report.reportDate, system)} 14:02`,
    ],
  ];
}

type Column = { x: number; width: number };

/** Cells of one row, per the options: [name, value(+flag), units?, range]. */
function cellsOf(row: TruthRow, options: ReportOptions): string[] {
  const value = row.printedFlag ? `${row.value} ${row.printedFlag}` : row.value;
  return options.unitsColumn
    ? [row.name, value, row.units, row.range]
    : [row.name, value, `${row.range} ${row.units}`];
}

const COLUMN_TITLES = (options: ReportOptions) =>
  options.unitsColumn
    ? ['Test', 'Result', 'Units', 'Reference Range']
    : ['Test', 'Result', 'Reference Interval'];

/** Groups rows into panels, and panels into one or two page columns. */
function panelsInColumns(report: GeneratedReport): { panel: string; rows: TruthRow[] }[][] {
  const panels: { panel: string; rows: TruthRow[] }[] = [];
  for (const row of report.truth) {
    const last = panels[panels.length - 1];
    if (last?.panel === row.panel) last.rows.push(row);
    else panels.push({ panel: row.panel, rows: [row] });
  }
  if (report.options.layout === 'one-column') return [panels];
  const total = report.truth.length;
  const left: typeof panels = [];
  const right: typeof panels = [];
  let count = 0;
  for (const panel of panels) {
    (count < total / 2 ? left : right).push(panel);
    count += panel.rows.length;
  }
  return [left, right];
}

/** A text PDF (pdf-lib, Helvetica): every cell drawn at its column's position. */
export async function renderPdf(report: GeneratedReport): Promise<Buffer> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  const bold = await document.embedFont(StandardFonts.HelveticaBold);
  const size = report.options.layout === 'two-column' ? 7.5 : 9;
  const lineHeight = size * 1.6;
  let page: PDFPage = document.addPage([612, 792]);
  let y = 750;
  const draw = (text: string, x: number, withFont: PDFFont = font, fontSize = size) =>
    page.drawText(text, { x, y, size: fontSize, font: withFont, color: rgb(0.1, 0.1, 0.1) });
  const next = () => {
    y -= lineHeight;
    if (y < 50) {
      page = document.addPage([612, 792]);
      y = 750;
    }
  };
  const [title, ...rest] = headerLines(report);
  draw(title![0]!, 40, bold, 13);
  draw(title![1]!, 330, font, size);
  y -= 22;
  for (const line of rest) {
    line.forEach((text, index) => draw(text, 40 + index * 180, font));
    next();
  }
  y -= 8;
  const columns = panelsInColumns(report);
  const pageColumns: Column[] =
    columns.length === 1
      ? [{ x: 40, width: 530 }]
      : [
          { x: 30, width: 270 },
          { x: 312, width: 270 },
        ];
  const offsets = (options: ReportOptions, width: number) =>
    options.unitsColumn ? [0, width * 0.42, width * 0.6, width * 0.78] : [0, width * 0.45, width * 0.66];
  // Column titles once, over each page column.
  pageColumns.forEach((column) => {
    const at = offsets(report.options, column.width);
    COLUMN_TITLES(report.options).forEach((text, index) => draw(text, column.x + at[index]!, bold));
  });
  next();
  const top = y;
  const topPage = page;
  columns.forEach((panels, columnIndex) => {
    const column = pageColumns[columnIndex]!;
    const at = offsets(report.options, column.width);
    page = topPage;
    y = top;
    for (const panel of panels) {
      draw(panel.panel, column.x, bold);
      next();
      for (const row of panel.rows) {
        cellsOf(row, report.options).forEach((text, index) => draw(text, column.x + at[index]!));
        next();
      }
      y -= 4;
    }
  });
  return Buffer.from(await document.save());
}

/** The same report as an HTML page, for Chromium to render (and photograph, with `photo`). */
export function renderHtml(
  report: GeneratedReport,
  photo?: { skewDegrees: number; noise: number; seed: number },
): string {
  const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const columns = panelsInColumns(report);
  const table = (panels: { panel: string; rows: TruthRow[] }[]) => `
    <table><tr>${COLUMN_TITLES(report.options)
      .map((t) => `<th>${escape(t)}</th>`)
      .join('')}</tr>
    ${panels
      .map(
        (panel) =>
          `<tr><td class="panel" colspan="4">${escape(panel.panel)}</td></tr>` +
          panel.rows
            .map(
              (row) =>
                `<tr>${cellsOf(row, report.options)
                  .map((c) => `<td>${escape(c)}</td>`)
                  .join('')}</tr>`,
            )
            .join(''),
      )
      .join('')}</table>`;
  const [title, ...rest] = headerLines(report);
  // Speckles: deterministic grey dots scattered over the page.
  let seed = photo?.seed ?? 1;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const dots = photo
    ? Array.from({ length: photo.noise }, () => {
        const shade = Math.floor(120 + random() * 100);
        return `<i style="left:${(random() * 100).toFixed(2)}%;top:${(random() * 100).toFixed(2)}%;background:rgb(${shade},${shade},${shade})"></i>`;
      }).join('')
    : '';
  return `<!doctype html><html><head><meta charset="utf-8"><style>
    body { margin: 0; background: ${photo ? '#d8d4cc' : '#fff'}; }
    .sheet { position: relative; width: ${report.options.layout === 'two-column' ? 1240 : 820}px; padding: 28px 34px; background: ${photo ? '#f4f1ea' : '#fff'};
      font-family: 'DejaVu Sans', Arial, sans-serif; font-size: 15px; color: #1a1a1a;
      transform: rotate(${photo?.skewDegrees ?? 0}deg); transform-origin: 50% 50%; margin: 30px;
      ${photo ? 'filter: contrast(0.95);' : ''} }
    h1 { font-size: 22px; margin: 0 0 10px; }
    .meta span { display: inline-block; min-width: 240px; margin: 2px 0; }
    .columns { display: flex; gap: 36px; margin-top: 14px; }
    table { border-collapse: collapse; flex: 1; }
    th { text-align: left; padding: 4px 18px 4px 0; border-bottom: 1px solid #444; }
    td { padding: 3px 18px 3px 0; white-space: nowrap; }
    td.panel { font-weight: bold; padding-top: 10px; }
    i { position: absolute; width: 2px; height: 2px; border-radius: 1px; }
  </style></head><body><div class="sheet">
    <h1>${escape(title![0]!)}</h1>
    ${rest.map((line) => `<div class="meta">${line.map((t) => `<span>${escape(t)}</span>`).join('')}</div>`).join('')}
    <div class="columns">${columns.map(table).join('')}</div>${dots}
  </div></body></html>`;
}

/** A PDF whose one page is an image (a scan): no text layer, so it must be read by OCR. */
export async function scannedPdf(png: Buffer): Promise<Buffer> {
  const document = await PDFDocument.create();
  const image = await document.embedPng(png);
  const width = 612;
  const height = (image.height / image.width) * width;
  const page = document.addPage([width, height]);
  page.drawImage(image, { x: 0, y: 0, width, height });
  return Buffer.from(await document.save());
}
