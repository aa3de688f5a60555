// Every printed column (issue 46 item 2): reference ranges in their printed forms (ranges per sex
// resolved by the patient's sex), flags as letters, words, marks and arrows, and a unit printed
// in the name column; per form on rows built by hand, then on a generated text PDF.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { findTables } from '../../src/features/lab-reports/extraction/columns.ts';
import { parseRow, type RawResult } from '../../src/features/lab-reports/extraction/parse-values.ts';
import { readTableRow } from '../../src/features/lab-reports/extraction/read-table.ts';
import type { Row } from '../../src/features/lab-reports/extraction/rows.ts';
import { rangesBySex } from '../../src/features/lab-reports/extraction/sex-ranges.ts';
import { interpret } from '../../src/features/lab-reports/interpret.ts';
import { parseReport } from '../../src/features/lab-reports/report.ts';

/** A row from [x, text] cells (each cell 6 points per character wide). */
function row(y: number, ...cells: [number, string][]): Row {
  const built = cells.map(([x, text]) => ({ text, x0: x, x1: x + text.length * 6 }));
  return { page: 1, y, cells: built, text: built.map((cell) => cell.text).join('  ') };
}

/** One result row under `Test  Result  Flag  Units  Reference Range` titles. */
function readOne(name: string, value: string, flag: string, units: string, range: string): RawResult {
  const titles = row(
    100,
    [40, 'Test'],
    [200, 'Result'],
    [260, 'Flag'],
    [300, 'Units'],
    [380, 'Reference Range'],
  );
  const cells: [number, string][] = [
    [40, name],
    [200, value],
  ];
  if (flag) cells.push([260, flag]);
  if (units) cells.push([300, units]);
  if (range) cells.push([380, range]);
  const [table] = findTables([titles, row(114, ...cells)]);
  assert.ok(table, 'a table is found');
  const read = readTableRow(table, row(114, ...cells));
  assert.ok(read && 'raw' in read, `the row ${name} is read`);
  return read.raw;
}

describe('reference ranges in their printed forms', () => {
  const forms: [printed: string, lower: number | undefined, upper: number | undefined][] = [
    ['70-99', 70, 99],
    ['0.57 - 1.00', 0.57, 1],
    ['< 5.7', undefined, 5.7],
    ['>39', 39, undefined],
    ['<=149', undefined, 149],
    ['>= 60', 60, undefined],
    ['>=0.45 <=4.50', 0.45, 4.5],
    ['(135-145)', 135, 145],
  ];
  for (const [printed, lower, upper] of forms)
    test(`"${printed}"`, () => {
      const result = interpret(readOne('Glucose', '90', '', 'mg/dL', printed));
      assert.deepEqual(result.reference_ranges?.[0], {
        ...(lower === undefined ? {} : { lower }),
        ...(upper === undefined ? {} : { upper }),
        type: 'normal',
      });
    });

  test('ranges printed per sex in one cell: both read, whatever the labels', () => {
    for (const [printed, male, female] of [
      ['M: 13.5-17.5 F: 12.0-15.5', '13.5-17.5', '12.0-15.5'],
      ['Male 30 - 400 Female 13 - 150', '30-400', '13-150'],
      ['Men >39 / Women >49', '>39', '>49'],
      ['(M) 0.7-1.3 (F) 0.6-1.1', '0.7-1.3', '0.6-1.1'],
      ['F 12-15.5 M 13.5-17.5', '13.5-17.5', '12-15.5'],
    ])
      assert.deepEqual(rangesBySex(printed!), { male, female }, printed);
    assert.equal(rangesBySex('70-99'), undefined);
    assert.equal(rangesBySex('M: 13.5-17.5'), undefined, 'one sex only is no choice');
  });
});

describe('flags in their printed forms', () => {
  const forms: [printed: string, flag: 'high' | 'low' | 'abnormal'][] = [
    ['H', 'high'],
    ['L', 'low'],
    ['HH', 'high'],
    ['LL', 'low'],
    ['High', 'high'],
    ['LOW', 'low'],
    ['↑', 'high'],
    ['↓', 'low'],
    ['↑↑', 'high'],
    ['▼', 'low'],
  ];
  for (const [printed, flag] of forms) {
    test(`"${printed}" in the flag column and after the value`, () => {
      for (const raw of [
        readOne('Sodium', '140', printed, 'mmol/L', ''),
        readOne('Sodium', `140 ${printed}`, '', 'mmol/L', ''),
      ]) {
        assert.equal(raw.flag, printed);
        const result = interpret(raw);
        assert.deepEqual([result.interpretation.flag, result.interpretation.source], [flag, 'report']);
      }
    });
  }

  test('an asterisk takes its direction from the range', () => {
    const result = interpret(readOne('HDL Cholesterol', '35', '*', 'mg/dL', '>39'));
    assert.deepEqual([result.interpretation.flag, result.source.flag], ['low', '*']);
  });

  test('arrows along a row: glued to the value or printed before it, never part of the name', () => {
    const [glued] = parseRow(row(1, [40, 'Sodium 130↓ mmol/L 136-145']));
    assert.deepEqual([glued?.name, glued?.value, glued?.flag], ['Sodium', '130', '↓']);
    const [before] = parseRow(row(1, [40, 'Potassium ↑ 6.8 mmol/L 3.5-5.1']));
    assert.deepEqual([before?.name, before?.value, before?.flag], ['Potassium', '6.8', '↑']);
    const [letter] = parseRow(row(1, [40, 'Vitamin A 50 ug/dL 20-60']));
    assert.deepEqual([letter?.name, letter?.flag], ['Vitamin A', undefined]);
  });
});

describe('units wherever they are printed', () => {
  test('in the name column: `Glucose (mg/dL)`, `Sodium, mmol/L`; a name with a comma keeps it', () => {
    const glucose = readOne('Glucose (mg/dL)', '105', '', '', '70-99');
    assert.deepEqual([glucose.name, glucose.units], ['Glucose', 'mg/dL']);
    const sodium = readOne('Sodium, mmol/L', '140', '', '', '136-145');
    assert.deepEqual([sodium.name, sodium.units], ['Sodium', 'mmol/L']);
    const vitamin = readOne('Vitamin D, 25-Hydroxy', '30', '', 'ng/mL', '30-100');
    assert.deepEqual([vitamin.name, vitamin.units], ['Vitamin D, 25-Hydroxy', 'ng/mL']);
  });
});

/** A generated one-page report: a header with the patient's sex, then a titled table. */
async function generated(sex: string | undefined, rows: string[][]): Promise<Buffer> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  const page = document.addPage([612, 792]);
  const columns = [40, 230, 300, 350, 440];
  let y = 740;
  page.drawText(`Patient: Jane Doe${sex ? `   Sex: ${sex}` : ''}   Age: 45`, { x: 40, y, size: 9, font });
  y -= 20;
  for (const line of [['Test', 'Result', 'Flag', 'Units', 'Reference Range'], ...rows]) {
    line.forEach((text, index) => text && page.drawText(text, { x: columns[index]!, y, size: 9, font }));
    y -= 14;
  }
  return Buffer.from(await document.save());
}

describe('a generated report with every printed form', () => {
  const rows = [
    ['Glucose', '105', 'H', 'mg/dL', '70-99'],
    ['Sodium', '130', 'LL', 'mmol/L', '136 - 145'],
    ['Potassium', '6.8', 'HH', 'mmol/L', '3.5-5.1'],
    ['Hemoglobin', '12.5', '', 'g/dL', 'M: 13.5-17.5 F: 12.0-15.5'],
    ['Hemoglobin A1c', '6.1', 'High', '%', '< 5.7'],
    ['HDL Cholesterol', '35', '*', 'mg/dL', '>39'],
    ['Creatinine', '1.20', 'H', 'mg/dL', '0.57 - 1.00'],
    ['Triglycerides', '140', '', 'mg/dL', '<=149'],
    ['TSH (uIU/mL)', '2.1', '', '', '>=0.45 <=4.50'],
  ];

  test('a female patient: every value, unit, range and flag; her range of the two', async () => {
    const parsed = await parseReport(await generated('Female', rows), 'application/pdf');
    const got = parsed.results.map((result) => [
      result.biomarker.key,
      result.source.value,
      result.measurement.units,
      result.reference_ranges?.[0]?.lower,
      result.reference_ranges?.[0]?.upper,
      result.interpretation.flag,
      result.interpretation.source,
    ]);
    assert.deepEqual(got, [
      ['glucose', '105', 'mg/dL', 70, 99, 'high', 'report'],
      ['sodium', '130', 'mmol/L', 136, 145, 'low', 'report'],
      ['potassium', '6.8', 'mmol/L', 3.5, 5.1, 'high', 'report'],
      ['hemoglobin', '12.5', 'g/dL', 12, 15.5, 'normal', 'computed'],
      ['hba1c', '6.1', '%', undefined, 5.7, 'high', 'report'],
      ['hdl', '35', 'mg/dL', 39, undefined, 'low', 'report'],
      ['creatinine', '1.20', 'mg/dL', 0.57, 1, 'high', 'report'],
      ['triglycerides', '140', 'mg/dL', undefined, 149, 'normal', 'computed'],
      ['tsh', '2.1', 'uIU/mL', 0.45, 4.5, 'normal', 'computed'],
    ]);
    assert.deepEqual(parsed.unmatched ?? [], []);
  });

  test('a male patient gets the male range; with the sex unprinted no range is applied', async () => {
    const male = await parseReport(await generated('Male', rows), 'application/pdf');
    const hemoglobin = male.results.find((result) => result.biomarker.key === 'hemoglobin')!;
    assert.deepEqual(
      [hemoglobin.reference_ranges?.[0]?.lower, hemoglobin.interpretation.flag],
      [13.5, 'low'],
    );
    const unknown = await parseReport(await generated(undefined, rows), 'application/pdf');
    const unsure = unknown.results.find((result) => result.biomarker.key === 'hemoglobin')!;
    assert.equal(unsure.reference_ranges, undefined);
    assert.equal(unsure.interpretation.flag, null);
    assert.equal(unsure.source.reference_text, 'M: 13.5-17.5 F: 12.0-15.5');
  });
});
