// DXA scan reports generated with their truth, laid out as the two common scanner families print
// them (public sample reports of Hologic and GE Lunar scanners): a body-composition table by
// region (fat, lean, total mass, % fat; Android and Gynoid rows; a "Subtotal" row that names no
// region), spine and hip bone-density tables (area, BMC, BMD, T-score, Z-score; units on the
// title or on a second header line; "Total" meaning L1–L4 in the spine table and the total hip in
// the hip table). Values are drawn per report from a seeded generator, so each run checks other
// numbers. Rendered as a text PDF with pdf-lib.
import { PDFDocument, type PDFFont, type PDFPage, rgb, StandardFonts } from 'pdf-lib';

export type DexaTruth = {
  region: string;
  key: string;
  value: number;
  printed: string;
  units?: string;
  ucum?: string;
};

/** `key` null: a column the reader does not take (a percentage of a reference mean), never in the truth. */
type Column = {
  title: string;
  unitLine?: string;
  key: string | null;
  units?: string;
  ucum?: string;
  decimals: number;
};
type TableRow = { printed: string; region: string | null; values: number[] };
type Table = { heading: string; columns: Column[]; rows: TableRow[] };

export type DexaLayout = 'hologic' | 'lunar';
export type DexaReport = {
  layout: DexaLayout;
  header: string[];
  tables: Table[];
  truth: DexaTruth[];
  reportDate: string;
};

/** A small deterministic generator (mulberry32), so a failing seed can be run again. */
export function seeded(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const round = (value: number, decimals: number) => Number(value.toFixed(decimals));
const printed = (value: number, decimals: number, thousands: boolean) => {
  const text = value.toFixed(decimals);
  if (!thousands) return text;
  const [whole, fraction] = text.split('.');
  return `${whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${fraction ? `.${fraction}` : ''}`;
};

function hologic(random: () => number): Omit<DexaReport, 'truth'> {
  const mass = (low: number, high: number) => round(low + random() * (high - low), 1);
  const composition = (
    printedName: string,
    region: string | null,
    fat: [number, number],
    lean: [number, number],
  ) => {
    const fatMass = mass(...fat);
    const leanMass = mass(...lean);
    const total = round(fatMass + leanMass, 1);
    return {
      printed: printedName,
      region,
      values: [fatMass, leanMass, total, round((fatMass / total) * 100, 1)],
    };
  };
  const bone = (printedName: string, region: string | null) => {
    const area = round(12 + random() * 6, 2);
    const bmd = round(0.75 + random() * 0.4, 3);
    const bmc = round(area * bmd, 2);
    const t = round(-3 + random() * 4, 1);
    return { printed: printedName, region, values: [area, bmc, bmd, t, round(t + 0.4, 1)] };
  };
  const hip = (printedName: string, region: string | null) => {
    const bmd = round(0.6 + random() * 0.4, 3);
    const t = round(-3 + random() * 4, 1);
    return { printed: printedName, region, values: [bmd, t, round(t + 0.3, 1)] };
  };
  return {
    layout: 'hologic',
    reportDate: '2025-03-14',
    header: [
      'Hologic Horizon A  -  DXA Results Summary',
      'Patient: Jane Sample    Sex: Female    Age: 52',
      'Report Date: 03/14/2025',
    ],
    tables: [
      {
        heading: 'Body Composition',
        columns: [
          { title: 'Fat Mass (g)', key: 'fat_mass', units: 'g', ucum: 'g', decimals: 1 },
          { title: 'Lean + BMC (g)', key: 'lean_plus_bmc_mass', units: 'g', ucum: 'g', decimals: 1 },
          { title: 'Total Mass (g)', key: 'total_mass', units: 'g', ucum: 'g', decimals: 1 },
          { title: '% Fat', key: 'fat_percent', units: '%', ucum: '%', decimals: 1 },
        ],
        rows: [
          composition('L Arm', 'left_arm', [900, 1600], [1800, 2800]),
          composition('R Arm', 'right_arm', [900, 1600], [1900, 2900]),
          composition('Trunk', 'trunk', [9000, 14000], [18000, 26000]),
          composition('L Leg', 'left_leg', [3000, 5000], [6500, 9500]),
          composition('R Leg', 'right_leg', [3000, 5000], [6600, 9600]),
          composition('Subtotal', null, [18000, 26000], [38000, 50000]),
          composition('Head', 'head', [900, 1300], [2800, 3600]),
          composition('Total', 'total', [19000, 27000], [41000, 53000]),
          composition('Android (A)', 'android', [1200, 2400], [2600, 3800]),
          composition('Gynoid (G)', 'gynoid', [2800, 4400], [5200, 7400]),
        ],
      },
      {
        heading: 'DXA Results Summary: Lumbar Spine',
        columns: [
          { title: 'Area', unitLine: '(cm²)', key: 'bone_area', units: 'cm²', ucum: 'cm2', decimals: 2 },
          { title: 'BMC', unitLine: '(g)', key: 'bone_mineral_content', units: 'g', ucum: 'g', decimals: 2 },
          {
            title: 'BMD',
            unitLine: '(g/cm²)',
            key: 'bone_mineral_density',
            units: 'g/cm²',
            ucum: 'g/cm2',
            decimals: 3,
          },
          { title: 'T-score', key: 't_score', decimals: 1 },
          { title: 'Z-score', key: 'z_score', decimals: 1 },
        ],
        rows: [
          bone('L1', 'l1'),
          bone('L2', 'l2'),
          bone('L3', 'l3'),
          bone('L4', 'l4'),
          bone('Total', 'l1_l4'),
        ],
      },
      {
        heading: 'DXA Results Summary: Left Hip',
        columns: [
          { title: 'BMD (g/cm²)', key: 'bone_mineral_density', units: 'g/cm²', ucum: 'g/cm2', decimals: 3 },
          { title: 'T-score', key: 't_score', decimals: 1 },
          { title: 'Z-score', key: 'z_score', decimals: 1 },
        ],
        rows: [
          hip('Neck', 'femoral_neck'),
          hip('Troch', 'trochanter'),
          hip('Inter', 'intertrochanter'),
          hip('Total', 'total_hip'),
          hip("Ward's", 'wards_triangle'),
        ],
      },
    ],
  };
}

function lunar(random: () => number): Omit<DexaReport, 'truth'> {
  const kg = (low: number, high: number) => round(low + random() * (high - low), 1);
  const composition = (
    printedName: string,
    region: string,
    fat: [number, number],
    lean: [number, number],
  ) => {
    const fatMass = kg(...fat);
    const leanMass = kg(...lean);
    const bmc = round(0.2 + random() * 0.6, 2);
    const tissue = round(fatMass + leanMass, 1);
    const tissueFat = round((fatMass / tissue) * 100, 1);
    const regionFat = round((fatMass / (tissue + bmc)) * 100, 1);
    return { printed: printedName, region, values: [tissueFat, regionFat, tissue, fatMass, leanMass, bmc] };
  };
  const bone = (printedName: string, region: string | null) => {
    const bmd = round(0.8 + random() * 0.45, 3);
    const t = round(-2.8 + random() * 3.6, 1);
    // GE Lunar prints each score beside its percentage of the reference mean.
    return {
      printed: printedName,
      region,
      values: [bmd, round(100 + t * 10, 0), t, round(105 + t * 10, 0), round(t + 0.5, 1)],
    };
  };
  const boneColumns = (): Column[] => [
    { title: 'BMD (g/cm²)', key: 'bone_mineral_density', units: 'g/cm²', ucum: 'g/cm2', decimals: 3 },
    { title: 'Young-Adult (%)', key: null, decimals: 0 },
    { title: 'T-score', key: 't_score', decimals: 1 },
    { title: 'Age-Matched (%)', key: null, decimals: 0 },
    { title: 'Z-score', key: 'z_score', decimals: 1 },
  ];
  return {
    layout: 'lunar',
    reportDate: '2025-06-02',
    header: [
      'GE Healthcare Lunar iDXA  -  Body Composition and Bone Density',
      'Patient: John Sample    Sex: Male    Age: 47',
      'Report Date: 06/02/2025',
    ],
    tables: [
      {
        heading: 'Composition',
        columns: [
          { title: 'Tissue (%Fat)', key: 'fat_percent', units: '%', ucum: '%', decimals: 1 },
          { title: 'Region (%Fat)', key: 'region_fat_percent', units: '%', ucum: '%', decimals: 1 },
          { title: 'Tissue (kg)', key: 'tissue_mass', units: 'kg', ucum: 'kg', decimals: 1 },
          { title: 'Fat (kg)', key: 'fat_mass', units: 'kg', ucum: 'kg', decimals: 1 },
          { title: 'Lean (kg)', key: 'lean_mass', units: 'kg', ucum: 'kg', decimals: 1 },
          { title: 'BMC (kg)', key: 'bone_mineral_content', units: 'kg', ucum: 'kg', decimals: 2 },
        ],
        rows: [
          composition('Arms', 'arms', [4, 8], [6, 10]),
          composition('Legs', 'legs', [8, 14], [18, 24]),
          composition('Trunk', 'trunk', [10, 18], [26, 32]),
          composition('Android', 'android', [1.5, 3.5], [3, 4.5]),
          composition('Gynoid', 'gynoid', [3, 5], [7, 9]),
          composition('Total', 'total', [24, 40], [52, 66]),
        ],
      },
      {
        heading: 'AP Spine Bone Density',
        columns: boneColumns(),
        rows: [
          bone('L1', 'l1'),
          bone('L2', 'l2'),
          bone('L3', 'l3'),
          bone('L4', 'l4'),
          bone('L1-L4', 'l1_l4'),
        ],
      },
      {
        heading: 'Dual Femur Bone Density',
        columns: boneColumns(),
        rows: [bone('Femoral Neck', 'femoral_neck'), bone('Total Hip', 'total_hip')],
      },
    ],
  };
}

/** A generated DXA report of the layout, with the value every region row must read as. */
export function generateDexaReport(layout: DexaLayout, seed = 1): DexaReport {
  const random = seeded(seed);
  const report = layout === 'hologic' ? hologic(random) : lunar(random);
  const truth: DexaTruth[] = [];
  for (const table of report.tables)
    for (const row of table.rows) {
      if (row.region === null) continue;
      row.values.forEach((value, index) => {
        const column = table.columns[index]!;
        if (column.key === null) return;
        truth.push({
          region: row.region!,
          key: column.key,
          value,
          printed: printed(value, column.decimals, layout === 'hologic'),
          ...(column.units ? { units: column.units, ucum: column.ucum! } : {}),
        });
      });
    }
  return { ...report, truth };
}

/** The report as a text PDF: each table's titles centred over its values, one table after another. */
export async function renderDexaPdf(report: DexaReport): Promise<Buffer> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  const bold = await document.embedFont(StandardFonts.HelveticaBold);
  const page: PDFPage = document.addPage([612, 792]);
  const size = 8;
  let y = 750;
  const draw = (text: string, x: number, withFont: PDFFont = font, fontSize = size) =>
    page.drawText(text, { x, y, size: fontSize, font: withFont, color: rgb(0.1, 0.1, 0.1) });
  const centred = (text: string, middle: number, withFont: PDFFont = font) =>
    draw(text, middle - withFont.widthOfTextAtSize(text, size) / 2, withFont);
  draw(report.header[0]!, 40, bold, 12);
  y -= 20;
  for (const line of report.header.slice(1)) {
    draw(line, 40);
    y -= 13;
  }
  for (const table of report.tables) {
    y -= 10;
    draw(table.heading, 40, bold, 10);
    y -= 16;
    const spacing = (612 - 40 - 130) / table.columns.length;
    const middles = table.columns.map((_, index) => 130 + spacing * index + spacing / 2);
    draw('Region', 40, bold);
    table.columns.forEach((column, index) => centred(column.title, middles[index]!, bold));
    y -= 11;
    if (table.columns.some((column) => column.unitLine)) {
      table.columns.forEach((column, index) => {
        if (column.unitLine) centred(column.unitLine, middles[index]!, bold);
      });
      y -= 11;
    }
    for (const row of table.rows) {
      draw(row.printed, 40);
      row.values.forEach((value, index) =>
        centred(printed(value, table.columns[index]!.decimals, report.layout === 'hologic'), middles[index]!),
      );
      y -= 12;
    }
  }
  y -= 14;
  draw('WHO classification: normal T-score -1.0 and above; osteopenia between -1.0 and -2.5.', 40);
  return Buffer.from(await document.save());
}
