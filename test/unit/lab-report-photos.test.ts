// Photographed reports (issue 46 item 1): the page measured before OCR (slant and letter height,
// page-analysis.ts), what OCR does to printed numbers and units undone only on OCR readings
// (leading-zero points, fused ranges, misspelt units, an asterisk read as a degree sign), a unit in
// a column title, and a two-column page whose left title OCR lost. A generated phone photo read end
// to end is in test/integration/lab-reports-real.test.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createCanvas } from '@napi-rs/canvas';
import { BIOMARKERS } from '../../src/features/lab-reports/dictionary/biomarkers.ts';
import { biomarkerByKey, findBiomarker } from '../../src/features/lab-reports/dictionary/match.ts';
import { nearestUnit } from '../../src/features/lab-reports/dictionary/units.ts';
import { sideBySide } from '../../src/features/lab-reports/extraction/column-split.ts';
import { findTables } from '../../src/features/lab-reports/extraction/columns.ts';
import { digitsOfLettered } from '../../src/features/lab-reports/extraction/digit-pass.ts';
import { measurePage } from '../../src/features/lab-reports/extraction/ocr-image.ts';
import type { RawResult } from '../../src/features/lab-reports/extraction/parse-values.ts';
import { readTableRow } from '../../src/features/lab-reports/extraction/read-table.ts';
import type { Row } from '../../src/features/lab-reports/extraction/rows.ts';
import { judgeResult, NEEDS_REVIEW_BELOW } from '../../src/features/lab-reports/plausibility.ts';
import { parseLabPages } from '../../src/features/lab-reports/report.ts';

const entry = (key: string) => BIOMARKERS.find((candidate) => candidate.key === key)!;

/** A page of text lines drawn at `degrees` of slant with letters of about `size` pixels. */
function slantedPage(degrees: number, size: number) {
  const canvas = createCanvas(1200, 1600);
  const context = canvas.getContext('2d');
  context.fillStyle = '#f2efe8';
  context.fillRect(0, 0, canvas.width, canvas.height);
  context.translate(600, 800);
  context.rotate((degrees * Math.PI) / 180);
  context.fillStyle = '#202020';
  context.font = `${size}px sans-serif`;
  for (let line = 0; line < 30; line += 1)
    context.fillText(`Potassium 4.${line % 10} mmol/L 3.5-5.2 Sodium 140 mmol/L`, -450, -600 + line * 40);
  return canvas;
}

describe('a page measured before OCR', () => {
  for (const degrees of [-3.5, 0, 2.5])
    test(`a page slanted ${degrees}° is measured at that slant`, () => {
      const measure = measurePage(slantedPage(degrees, 22));
      assert.ok(Math.abs(measure.skew - degrees) <= 0.3, `measured ${measure.skew}°`);
    });

  test('the letter height grows with the type', () => {
    const small = measurePage(slantedPage(0, 14)).letterHeight;
    const large = measurePage(slantedPage(0, 28)).letterHeight;
    assert.ok(small > 5 && small < 16, `small type measured ${small} px`);
    assert.ok(large > small * 1.6, `large type measured ${large} px against ${small} px`);
  });
});

describe('units as OCR misspells them', () => {
  test('matched to the nearest spelling of the test’s own units', () => {
    assert.equal(nearestUnit('mmoliL', ['mmol/L', 'meq/L']), 'mmol/L');
    assert.equal(nearestUnit('ma/dL', ['mg/dL', 'mmol/L']), 'mg/dL');
    assert.equal(nearestUnit('mUmin/1.73m2', ['mL/min/{1.73_m2}']), 'mL/min/1.73m2');
    assert.equal(nearestUnit('mmol', ['mmol/L']), 'mmol/L');
  });

  test('left alone when already known, too far, or only another test’s unit is near', () => {
    assert.equal(nearestUnit('mg/dL', ['mg/dL']), undefined);
    assert.equal(nearestUnit('banana', ['mg/dL']), undefined);
    assert.equal(nearestUnit('ma/dL', ['mmol/L']), undefined);
  });

  test('a slash run into the letter after it (`U/L` read `un`) is the test’s U/L, and only beside such a test', () => {
    assert.equal(nearestUnit('un', ['U/L']), 'U/L');
    assert.equal(nearestUnit('un', ['mg/dL', 'mmol/L']), undefined);
  });
});

describe('letters OCR reads for others', () => {
  test('a short name with one confused letter is the test only when the printed unit is one of its own', () => {
    assert.deepEqual(findBiomarker('fron', 'ug/dL'), { entry: biomarkerByKey('iron'), fuzzy: true });
    assert.deepEqual(findBiomarker('fron', 'umol/L'), { entry: biomarkerByKey('iron'), fuzzy: true });
    assert.equal(findBiomarker('fron'), undefined);
    assert.equal(findBiomarker('fron', 'mg/dL'), undefined);
  });

  test('a value with letters standing for digits gives the digits to confirm, its flag kept apart', () => {
    assert.deepEqual(digitsOfLettered('2a'), { digits: '24', flag: '' });
    assert.deepEqual(digitsOfLettered('a8 H'), { digits: '48', flag: ' H' });
    assert.deepEqual(digitsOfLettered('as'), { digits: '45', flag: '' });
    assert.equal(digitsOfLettered('48H'), undefined);
    assert.equal(digitsOfLettered('L'), undefined);
    assert.equal(digitsOfLettered('Sodium'), undefined);
  });
});

const ocrRaw = (value: string, referenceText: string, units = 'mmol/L'): RawResult => ({
  name: 'Potassium',
  x: 0,
  page: 1,
  y: 0,
  value,
  units,
  referenceText,
  ocrConfidence: 90,
  reading: 'table',
});

describe('numbers OCR ran together, restored only on OCR readings and marked for review', () => {
  test('a point lost after a leading zero, in the value and the range', () => {
    const judged = judgeResult(
      { ...ocrRaw('092', '057-1.00', 'mg/dL'), name: 'Creatinine' },
      entry('creatinine'),
      false,
    );
    assert.ok(judged.emit);
    assert.equal(judged.raw.value, '0.92');
    assert.equal(judged.raw.referenceText, '0.57-1.00');
    assert.ok(judged.confidence < NEEDS_REVIEW_BELOW);
  });

  test('a range whose point and dash were both lost, and its value’s point', () => {
    const judged = judgeResult(ocrRaw('56', '3552'), entry('potassium'), false);
    assert.ok(judged.emit);
    assert.equal(judged.raw.value, '5.6');
    assert.equal(judged.raw.referenceText, '3.5-5.2');
    assert.ok(judged.confidence < NEEDS_REVIEW_BELOW);
  });

  test('a text layer’s leading zero is not a lost point: not a result', () => {
    const { ocrConfidence: _, ...printed } = ocrRaw('092', '0.57-1.00', 'mg/dL');
    assert.equal(judgeResult({ ...printed, name: 'Creatinine' }, entry('creatinine'), false).emit, false);
  });

  test('a misspelt unit becomes the test’s own', () => {
    const judged = judgeResult(ocrRaw('4.1', '3.5-5.2', 'mmoliL'), entry('potassium'), false);
    assert.ok(judged.emit);
    assert.equal(judged.raw.units, 'mmol/L');
  });
});

describe('a photographed row read against its columns', () => {
  const cell = (x: number, text: string) => ({ text, x0: x, x1: x + text.length * 10, confidence: 88 });
  const titles: Row = {
    page: 1,
    y: 100,
    cells: [cell(40, 'Test'), cell(400, 'Result'), cell(600, 'Reference Interval')],
    text: '',
  };
  test('an asterisk read as a degree sign is the flag; the unit after the range is kept', () => {
    const line: Row = {
      page: 1,
      y: 130,
      cells: [cell(40, 'Glucose'), cell(400, '5.8°'), cell(600, '3.9-5.5 mmoliL')],
      text: '',
    };
    const [table] = findTables([titles, line]);
    const read = readTableRow(table!, line);
    assert.ok(read && 'raw' in read);
    assert.equal(read.raw.value, '5.8');
    assert.equal(read.raw.flag, '*');
    assert.equal(read.raw.units, 'mmoliL');
    assert.equal(read.raw.referenceText, '3.9-5.5');
  });
});

describe('a unit printed in a column title', () => {
  test('is the unit of every value below it', () => {
    const cell = (x: number, text: string) => ({ text, x0: x, x1: x + text.length * 6 });
    const titles: Row = {
      page: 1,
      y: 100,
      cells: [cell(40, 'Test'), cell(200, 'Result (mg/dL)'), cell(320, 'Reference Range')],
      text: '',
    };
    const line: Row = {
      page: 1,
      y: 114,
      cells: [cell(40, 'Glucose'), cell(200, '105'), cell(320, '70-99')],
      text: '',
    };
    const [table] = findTables([titles, line]);
    const read = readTableRow(table!, line);
    assert.ok(read && 'raw' in read);
    assert.equal(read.raw.units, 'mg/dL');
    assert.equal(read.raw.referenceText, '70-99');
  });
});

describe('a two-column page whose left "Test" title OCR lost', () => {
  test('still splits into two tables side by side', () => {
    const cell = (x: number, text: string) => ({ text, x0: x, x1: x + text.length * 12, confidence: 90 });
    const titles: Row = {
      page: 1,
      y: 279,
      cells: [
        cell(441, 'Result'),
        cell(606, 'Reference Interval'),
        cell(906, 'Test'),
        cell(1258, 'Result'),
        cell(1425, 'Reference Interval'),
      ],
      text: '',
    };
    const line: Row = {
      page: 1,
      y: 349,
      cells: [
        cell(88, 'Glucose'),
        cell(441, '5.8'),
        cell(606, '3.9-5.5 mmol/L'),
        cell(907, 'WBC'),
        cell(1260, '6.5'),
        cell(1424, '4.0-11.0'),
      ],
      text: '',
    };
    const tables = findTables([titles, line]);
    assert.equal(tables.length, 2);
    // Side by side: each half is read again by itself on a photo (column-split.ts).
    assert.deepEqual(sideBySide(tables), tables);
    assert.deepEqual(sideBySide(tables.slice(0, 1)), []);
    const [left, right] = tables.map((table) => readTableRow(table, line));
    assert.ok(left && 'raw' in left && right && 'raw' in right);
    assert.deepEqual([left.raw.name, left.raw.value], ['Glucose', '5.8']);
    assert.deepEqual([right.raw.name, right.raw.value], ['WBC', '6.5']);
  });
});

describe('a range printed with leading zeros', () => {
  test('`00-06` stays as printed (some labs print it so)', () => {
    const judged = judgeResult(
      { ...ocrRaw('1', '00-06', '%'), name: 'Eosinophils' },
      entry('eosinophils_percent') ?? entry('eosinophils'),
      false,
    );
    assert.ok(judged.emit);
    assert.equal(judged.raw.referenceText, '00-06');
  });
});

describe('a page read twice by OCR', () => {
  const cell = (x: number, text: string) => ({ text, x0: x, x1: x + text.length * 10, confidence: 90 });
  const titles: Row = {
    page: 1,
    y: 100,
    cells: [cell(40, 'Test'), cell(400, 'Result'), cell(600, 'Reference Interval')],
    text: '',
  };
  const line = (y: number, name: string, value: string, range: string): Row => ({
    page: 1,
    y,
    cells: [cell(40, name), cell(400, value), cell(600, range)],
    text: '',
  });
  const page = () => ({ page: 1, width: 1000, height: 1400, source: 'ocr' as const, tokens: [] });

  test('a value the other reading read differently goes to review; one both agree on does not', () => {
    const kept = [
      titles,
      line(130, 'Potassium', '4.1', '3.5-5.2 mmol/L'),
      line(160, 'Sodium', '140', '135-145 mmol/L'),
    ];
    const other = [
      titles,
      line(130, 'Potassium', '4.1', '3.5-5.2 mmol/L'),
      line(160, 'Sodium', '146', '135-145 mmol/L'),
    ];
    const parsed = parseLabPages({
      pages: [{ text: page(), rows: kept, check: other }],
      ocrPages: 1,
      total: 1,
    });
    const byKey = new Map(parsed.results.map((result) => [result.biomarker.key, result]));
    assert.equal(byKey.get('potassium')?.needs_review, false);
    assert.equal(byKey.get('sodium')?.needs_review, true);
    assert.equal(byKey.get('sodium')?.source.value, '140');
  });

  test('a test only the kept reading found is left as it is', () => {
    const kept = [titles, line(130, 'Potassium', '4.1', '3.5-5.2 mmol/L')];
    const parsed = parseLabPages({
      pages: [{ text: page(), rows: kept, check: [titles] }],
      ocrPages: 1,
      total: 1,
    });
    assert.equal(parsed.results[0]?.needs_review, false);
  });
});

describe('a range OCR read without its points, off the scale of any interval of the test', () => {
  test('is divided, and the value with it when both lost their points alike', () => {
    const glucose = judgeResult(ocrRaw('58', '39-55'), entry('glucose'), false);
    assert.ok(glucose.emit);
    assert.deepEqual([glucose.raw.value, glucose.raw.referenceText], ['5.8', '3.9-5.5']);
    assert.ok(glucose.confidence < NEEDS_REVIEW_BELOW);
    const lymphocytes = judgeResult(
      { ...ocrRaw('21', '07-31', ''), units: undefined, name: 'Lymphs (Absolute)' },
      entry('lymphocytes'),
      false,
    );
    assert.ok(lymphocytes.emit);
    assert.deepEqual([lymphocytes.raw.value, lymphocytes.raw.referenceText], ['2.1', '0.7-3.1']);
    const triglycerides = judgeResult(ocrRaw('1.64', '<170'), entry('triglycerides'), false);
    assert.ok(triglycerides.emit);
    assert.deepEqual([triglycerides.raw.value, triglycerides.raw.referenceText], ['1.64', '<1.70']);
  });

  test('a range on the test’s scale is left as printed, and so is a text layer’s', () => {
    const sodium = judgeResult(ocrRaw('140', '135-145'), entry('sodium'), false);
    assert.ok(sodium.emit);
    assert.deepEqual([sodium.raw.value, sodium.raw.referenceText], ['140', '135-145']);
    const printed = judgeResult(
      { ...ocrRaw('58', '39-55'), ocrConfidence: undefined },
      entry('glucose'),
      false,
    );
    assert.ok(printed.emit);
    assert.equal(printed.raw.referenceText, '39-55');
  });

  test('a value read without a unit that fits the test in none of its units is not taken as read', () => {
    const judged = judgeResult(
      { ...ocrRaw('412', ''), units: undefined, referenceText: undefined, name: 'Hematocrit' },
      entry('hematocrit'),
      false,
    );
    assert.ok(!judged.emit || judged.raw.value !== '412');
  });
});

describe('a printed flag that disagrees with the value read', () => {
  const vitaminD = (value: string, flag: string) =>
    judgeResult(
      { ...ocrRaw(value, '30-100', 'ng/mL'), name: 'Vitamin D, 25-Hydroxy', flag },
      entry('vitamin_d'),
      false,
    );

  test('a lost point is put back when that agrees with the flag (241 L beside 30-100 is 24.1)', () => {
    const judged = vitaminD('241', 'L');
    assert.ok(judged.emit);
    assert.equal(judged.raw.value, '24.1');
    assert.ok(judged.confidence < NEEDS_REVIEW_BELOW);
  });

  test('a value the flag agrees with is left alone', () => {
    const judged = vitaminD('24.1', 'L');
    assert.ok(judged.emit);
    assert.equal(judged.raw.value, '24.1');
    assert.ok(judged.confidence >= NEEDS_REVIEW_BELOW);
  });
});
