// The pieces of lab-report understanding, without files: rows read as results (value/flag split,
// units, the common range forms, several results on one row), ranges and the flags they give,
// dictionary matching (synonyms, OCR slips, count vs percentage by unit), LOINC check digits,
// UCUM codes, unit conversions and report metadata.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BIOMARKERS, PANEL_NAMES } from '../../src/features/lab-reports/dictionary/biomarkers.ts';
import { convertValue, loincFor } from '../../src/features/lab-reports/dictionary/convert.ts';
import { biomarkerByKey, matchBiomarker } from '../../src/features/lab-reports/dictionary/match.ts';
import { displayUnit, ucumFor } from '../../src/features/lab-reports/dictionary/units.ts';
import { readDate, readMetadata } from '../../src/features/lab-reports/extraction/metadata.ts';
import { parseRow } from '../../src/features/lab-reports/extraction/parse-values.ts';
import { judge, judgeBound, parseRange } from '../../src/features/lab-reports/extraction/ranges.ts';
import type { Row } from '../../src/features/lab-reports/extraction/rows.ts';
import { interpret } from '../../src/features/lab-reports/interpret.ts';

const row = (...cells: string[]): Row => ({
  page: 1,
  y: 100,
  cells: cells.map((text, index) => ({ text, x0: index * 100, x1: index * 100 + 80 })),
  text: cells.join('  '),
});

describe('rows read as results', () => {
  test('value and flag split, in one cell or two, with units and a range', () => {
    for (const cells of [
      ['Glucose', '105 H', 'mg/dL', '70-99'],
      ['Glucose', '105H', 'mg/dL', '70-99'],
      ['Glucose', '105', 'H', 'mg/dL', '70 - 99'],
      ['Glucose', '105 H', '70-99 mg/dL'],
      ['Glucose', '105 H mg/dL', '70-99'],
    ]) {
      const [result] = parseRow(row(...cells));
      assert.deepEqual(
        {
          name: result!.name,
          value: result!.value,
          flag: result!.flag,
          units: result!.units,
          range: result!.referenceText,
        },
        { name: 'Glucose', value: '105', flag: 'H', units: 'mg/dL', range: '70-99' },
        cells.join(' | '),
      );
    }
    for (const flag of ['HH', 'LL', '*', 'L'])
      assert.equal(parseRow(row('Potassium', `6.9 ${flag}`, 'mmol/L', '3.5-5.2'))[0]!.flag, flag);
  });

  test('range forms: <200, >39, ≤5.0, >OR=60, 4.8 - 5.6, and an OCR colon for a dash', () => {
    const rangeOf = (text: string) =>
      parseRow(row('Cholesterol, Total', '150', 'mg/dL', text))[0]!.referenceText;
    assert.equal(rangeOf('<200'), '<200');
    assert.equal(rangeOf('< 200'), '<200');
    assert.equal(rangeOf('>39'), '>39');
    assert.equal(rangeOf('<=5.0'), '≤5.0');
    assert.equal(rangeOf('>OR=60'), '≥60');
    assert.equal(rangeOf('4.8 - 5.6'), '4.8-5.6');
    assert.equal(rangeOf('232:1245'), '232-1245');
    const [misread] = parseRow(row('Glucose', '5:8', 'mmol/L', '3.9-5.5'));
    assert.equal(misread!.value, '5.8', 'a colon before a single digit is a decimal point');
    const [percent] = parseRow(row('Hematocrit', '41.2%', '34.0-46.6'));
    assert.deepEqual([percent!.value, percent!.units], ['41.2', '%']);
    assert.deepEqual(parseRange('≥60'), { lower: 60, lowerInclusive: true, upperInclusive: true });
    assert.deepEqual(parseRange('<200'), { upper: 200, upperInclusive: false, lowerInclusive: true });
    assert.equal(parseRange('9-3'), undefined);
    assert.equal(judge(200, parseRange('<200')!), 'high');
    assert.equal(judge(200, parseRange('≤200')!), 'normal');
    assert.equal(judge(39, parseRange('>39')!), 'low');
    assert.equal(judge(4.8, parseRange('4.8-5.6')!), 'normal');
    assert.equal(judgeBound('lt', 0.3, parseRange('0.0-3.0')!), 'normal');
    assert.equal(judgeBound('gt', 90, parseRange('>59')!), 'normal');
    assert.equal(
      judgeBound('lt', 5, parseRange('2-10')!),
      undefined,
      'a bound that straddles the range gives no verdict',
    );
  });

  test('two results on one row (a two-column page), names with numbers, qualitative answers', () => {
    const two = parseRow(row('Sodium', '140', 'mmol/L', '134-144', 'WBC', '6.5', 'x10E3/uL', '3.4-10.8'));
    assert.deepEqual(
      two.map((result) => [result.name, result.value, result.units, result.referenceText]),
      [
        ['Sodium', '140', 'mmol/L', '134-144'],
        ['WBC', '6.5', 'x10E3/uL', '3.4-10.8'],
      ],
    );
    assert.equal(parseRow(row('CA 19-9', '12', 'U/mL', '0-35'))[0]!.name, 'CA 19-9');
    assert.deepEqual(
      parseRow(row('Ketones', 'Negative', 'Negative')).map((result) => [result.value, result.referenceText]),
      [['Negative', 'Negative']],
    );
    assert.deepEqual(parseRow(row('Test', 'Result', 'Units', 'Reference Range')), []);
    assert.deepEqual(parseRow(row('Patient:', 'Jane Doe', 'DOB:', '01/02/1980')), []);
  });

  test('interpretation: the report’s flag, else computed from the range, else none; absent values say why', () => {
    const flagged = interpret({
      name: 'Glucose',
      x: 0,
      page: 1,
      y: 0,
      value: '105',
      flag: 'H',
      units: 'mg/dL',
      referenceText: '70-99',
    });
    assert.deepEqual(flagged.interpretation, {
      flag: 'high',
      flag_raw: 'H',
      source: 'report',
      applied_range: { lower: 70, upper: 99 },
    });
    assert.equal(flagged.biomarker.loinc_code, '2345-7');
    const starred = interpret({
      name: 'HDL Cholesterol',
      x: 0,
      page: 1,
      y: 0,
      value: '38',
      flag: '*',
      units: 'mg/dL',
      referenceText: '>39',
    });
    assert.equal(starred.interpretation.flag, 'low');
    assert.equal(starred.interpretation.source, 'report');
    const computed = interpret({
      name: 'Glucose',
      x: 0,
      page: 1,
      y: 0,
      value: '5.8',
      units: 'mmol/L',
      referenceText: '3.9-5.5',
    });
    assert.deepEqual(computed.interpretation, {
      flag: 'high',
      source: 'computed',
      applied_range: { lower: 3.9, upper: 5.5 },
    });
    assert.equal(computed.biomarker.loinc_code, '14749-6', 'the SI form has its own LOINC code');
    const none = interpret({ name: 'Glucose', x: 0, page: 1, y: 0, value: '95', units: 'mg/dL' });
    assert.deepEqual(none.interpretation, { flag: null, source: 'none' });
    const absent = interpret({
      name: 'Ferritin',
      x: 0,
      page: 1,
      y: 0,
      units: 'ng/mL',
      referenceText: '15-150',
    });
    assert.equal(absent.measurement.type, 'absent');
    assert.match(absent.measurement.absent_reason!, /no value/);
    const unknown = interpret({
      name: 'Zebra factor',
      x: 0,
      page: 1,
      y: 0,
      value: '3',
      units: 'U/L',
      referenceText: '1-5',
    });
    assert.equal(unknown.biomarker.key, null);
    const bounded = interpret({
      name: 'hs-CRP',
      x: 0,
      page: 1,
      y: 0,
      value: '<0.3',
      units: 'mg/L',
      referenceText: '0.0-3.0',
    });
    assert.deepEqual(bounded.measurement, {
      type: 'bounded',
      bounded: { operator: 'lt', value: 0.3 },
      units: 'mg/L',
      ucum_code: 'mg/L',
    });
    assert.equal(bounded.interpretation.flag, 'normal');
  });
});

describe('the biomarker dictionary', () => {
  test('at least 150 tests over every panel, unique keys, synonyms that resolve to their own entry', () => {
    assert.ok(BIOMARKERS.length >= 150, `${BIOMARKERS.length} entries`);
    assert.equal(new Set(BIOMARKERS.map((entry) => entry.key)).size, BIOMARKERS.length);
    for (const panel of Object.keys(PANEL_NAMES))
      assert.ok(
        BIOMARKERS.some((entry) => entry.panel === panel),
        `no test in panel ${panel}`,
      );
    for (const required of [
      'glucose',
      'hba1c',
      'ldl',
      'hemoglobin',
      'tsh',
      'alt',
      'creatinine',
      'ferritin',
      'vitamin_d',
      'testosterone_total',
      'crp',
    ])
      assert.ok(biomarkerByKey(required), required);
  });

  test('every LOINC code passes LOINC’s mod-10 check digit', () => {
    const valid = (code: string) => {
      const [number, digit] = code.split('-') as [string, string];
      let sum = 0;
      [...number].reverse().forEach((char, index) => {
        const value = Number(char) * (index % 2 === 0 ? 2 : 1);
        sum += value > 9 ? value - 9 : value;
      });
      return (10 - (sum % 10)) % 10 === Number(digit);
    };
    const codes = BIOMARKERS.flatMap((entry) => [
      entry.loinc,
      ...(entry.alternates ?? []).map((alternate) => alternate.loinc),
    ]);
    const bad = codes.filter((code): code is string => code !== undefined && !valid(code));
    assert.deepEqual(bad, []);
  });

  test('names as labs print them, OCR slips, and count vs percentage chosen by the unit', () => {
    const key = (name: string, unit?: string) => matchBiomarker(name, unit)?.key;
    assert.equal(key('Hemoglobin A1c'), 'hba1c');
    assert.equal(key('Hemoglobin Alc'), 'hba1c');
    assert.equal(key('HbA1c'), 'hba1c');
    assert.equal(key('LDL Chol Calc (NIH)'), 'ldl');
    assert.equal(key('HDL Cholesterol'), 'hdl');
    assert.equal(key('Cholesterol, Total'), 'cholesterol_total');
    assert.equal(key('ALT (SGPT)'), 'alt');
    assert.equal(key('Vitamin D, 25-Hydroxy'), 'vitamin_d');
    assert.equal(key('TSH, 3rd Generation'), 'tsh');
    assert.equal(key('Glucose, Serum'), 'glucose');
    assert.equal(key('Neutrophils', '%'), 'neutrophils_percent');
    assert.equal(key('Neutrophils', 'x10E3/uL'), 'neutrophils');
    assert.equal(key('Neutrophils (Absolute)', 'x10E3/uL'), 'neutrophils');
    assert.equal(key('Patient name'), undefined);
  });

  test('UCUM codes for printed units (case and OCR slips undone), conversions between US and SI', () => {
    assert.equal(ucumFor('x10E3/uL'), '10*3/uL');
    assert.equal(ucumFor('K/µL'), '10*3/uL');
    assert.equal(ucumFor('x10^9/L'), '10*9/L');
    assert.equal(ucumFor('x1079/L'), '10*9/L');
    assert.equal(ucumFor('uIU/mL'), 'u[IU]/mL');
    assert.equal(ucumFor('ulu/mL'), 'u[IU]/mL');
    assert.equal(ucumFor('mL/min/1.73m2'), 'mL/min/{1.73_m2}');
    assert.equal(ucumFor('furlongs'), undefined);
    assert.equal(displayUnit('X10E3/uL'), 'x10E3/uL');
    assert.equal(displayUnit('fl'), 'fL');
    const glucose = biomarkerByKey('glucose')!;
    assert.equal(Number(convertValue(glucose, 100, 'mg/dL', 'mmol/L')!.toFixed(2)), 5.55);
    assert.equal(Number(convertValue(glucose, 5.55, 'mmol/L', 'mg/dL')!.toFixed(0)), 100);
    const a1c = biomarkerByKey('hba1c')!;
    assert.equal(Math.round(convertValue(a1c, 6.1, '%', 'mmol/mol')!), 43);
    assert.equal(convertValue(glucose, 1, 'mg/dL', 'furlongs'), undefined);
    assert.equal(loincFor(biomarkerByKey('creatinine')!, 'umol/L'), '14682-9');
  });
});

describe('report metadata', () => {
  test('dates (US and day-first), times, lab, sex and age; nothing when not printed', () => {
    const rows = [
      row('Quest Diagnostics'),
      row('Patient: Jane Doe', 'Sex: F', 'DOB: 02/20/1980'),
      row('Collected: 03/14/2025 8:15 AM', 'Reported: March 15, 2025'),
    ];
    const metadata = readMetadata(rows);
    assert.deepEqual(metadata, {
      reportDate: '2025-03-15',
      collectionDate: '2025-03-14',
      collectionTime: '08:15',
      patientSex: 'female',
      patientAge: 45,
      labName: 'Quest Diagnostics',
      locale: 'en-US',
    });
    assert.equal(readDate('14/03/2025', true), '2025-03-14');
    assert.equal(readDate('31/02/2025', true), undefined);
    assert.deepEqual(readMetadata([row('Glucose', '95', 'mg/dL', '70-99')]), { locale: 'en-US' });
  });
});
