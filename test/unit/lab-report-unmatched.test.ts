// Nothing dropped silently (issue 46 item 3): a row that looks like a result (a value with a unit
// or a range) either becomes a result or is listed under `unmatched` with its printed text, and
// the dashboard's review view shows it. Also the dictionary's printed variants of calculated LDL,
// eGFR equations and ratios, each read as its own test and never as a neighbour's.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { findBiomarker } from '../../src/features/lab-reports/dictionary/match.ts';
import { parseRow } from '../../src/features/lab-reports/extraction/parse-values.ts';
import { parseReport } from '../../src/features/lab-reports/report.ts';
import { labReportsCard } from '../../src/http/dashboard/lab-reports.ts';

/** A one-page text PDF (pdf-lib, Helvetica) with each line drawn as one string, as many labs print. */
async function onePage(lines: string[]): Promise<Buffer> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  const page = document.addPage([612, 792]);
  let y = 740;
  for (const line of lines) {
    page.drawText(line, { x: 40, y, size: 9, font });
    y -= 14;
  }
  return Buffer.from(await document.save());
}

const rowOf = (text: string) => ({ page: 1, y: 1, cells: [{ text, x0: 40, x1: 300 }], text });

describe('rows that look like results are never dropped without a trace', () => {
  test('a ratio whose name reads like a unit ("Chol/HDLC Ratio") is a name with its value', () => {
    const [raw] = parseRow(rowOf('Chol/HDLC Ratio 3.9 <5.0'));
    assert.deepEqual([raw?.name, raw?.value, raw?.referenceText], ['Chol/HDLC', '3.9', '<5.0']);
    const [ag] = parseRow(rowOf('A/G Ratio 1.8 1.2-2.2'));
    assert.deepEqual([ag?.name, ag?.value, ag?.referenceText], ['A/G', '1.8', '1.2-2.2']);
  });

  test('a value with a unit or range but no name is kept nameless; street and page numbers are not', () => {
    const [raw] = parseRow(rowOf('128 H mg/dL 0-99'));
    assert.deepEqual([raw?.name, raw?.value, raw?.flag, raw?.units], ['', '128', 'H', 'mg/dL']);
    assert.deepEqual(parseRow(rowOf('1200 Harbor Way, Springfield')), []);
    assert.deepEqual(parseRow(rowOf('mg/dL 0-99')), []);
  });

  test('a generated metabolic panel: every result-like row is a result or listed under unmatched', async () => {
    const pdf = await onePage([
      'Northwind Clinical Laboratories',
      'COMPREHENSIVE METABOLIC PANEL',
      'Glucose 105 H mg/dL 70-99',
      'BUN 14 mg/dL 6-20',
      'Creatinine 0.90 mg/dL 0.57-1.00',
      'BUN/Creatinine Ratio 16 9-23',
      'eGFR 95 mL/min/1.73 >59',
      'eGFR Cystatin C 85 mL/min/1.73 >59',
      'Sodium 140 mmol/L 136-145',
      'Cholesterol, Total 212 H mg/dL 100-199',
      'HDL Cholesterol 55 mg/dL >39',
      'LDL Cholesterol Calc 128 H mg/dL 0-99',
      'Chol/HDLC Ratio 3.9 <5.0',
      'Zorbitol Index 12 mg/dL 6-20',
      '42 mg/dL 10-50',
    ]);
    const parsed = await parseReport(pdf, 'application/pdf');
    const byKey = Object.fromEntries(parsed.results.map((result) => [result.biomarker.key, result]));
    assert.deepEqual(Object.keys(byKey).sort(), [
      'bun',
      'bun_creatinine_ratio',
      'cholesterol_hdl_ratio',
      'cholesterol_total',
      'creatinine',
      'egfr',
      'egfr_cys',
      'glucose',
      'hdl',
      'ldl',
      'sodium',
    ]);
    assert.equal(byKey['ldl']!.source.value, '128');
    assert.equal(byKey['ldl']!.interpretation.flag, 'high');
    assert.equal(byKey['ldl']!.biomarker.loinc_code, '13457-7');
    assert.equal(byKey['bun_creatinine_ratio']!.biomarker.loinc_code, '3097-3');
    assert.equal(byKey['cholesterol_hdl_ratio']!.source.value, '3.9');
    // The cystatin C eGFR is no cystatin C result (85 mg/L would be a wrong health value).
    assert.equal(byKey['egfr_cys']!.source.value, '85');
    assert.equal(byKey['egfr']!.source.value, '95');
    assert.deepEqual(
      (parsed.unmatched ?? []).map((row) => [row.text, row.reason]),
      [
        ['Zorbitol Index 12 mg/dL 6-20', '"Zorbitol Index" is not a test the dictionary knows'],
        ['42 mg/dL 10-50', 'a value printed without a test name'],
      ],
    );
  });

  test("the dashboard's review view lists the unmatched rows with their printed text, escaped", () => {
    const page = labReportsCard(
      { kind: 'operator', ref: 'op', csrfToken: 'token' },
      [
        {
          session_id: 'lrs_1',
          current_status: 'completed',
          results: [],
          unmatched: [
            { page: 1, text: 'Zorbitol <Index> 12 mg/dL 6-20', reason: 'not a test the dictionary knows' },
          ],
        },
      ],
      '/dashboard',
    ).toString();
    assert.match(page, /Rows read but not taken as results/);
    assert.match(page, /Zorbitol &lt;Index&gt; 12 mg\/dL 6-20/);
    assert.match(page, /not a test the dictionary knows/);
  });
});

describe('printed variants from lab catalogues', () => {
  const cases: [printed: string, unit: string | undefined, key: string, loinc: string | undefined][] = [
    ['LDL Chol Calc (NIH)', 'mg/dL', 'ldl', '13457-7'],
    ['LDL Cholesterol Calc', 'mg/dL', 'ldl', '13457-7'],
    ['LDL-CHOLESTEROL', 'mg/dL', 'ldl', '13457-7'],
    ['LDL Cholesterol (Martin-Hopkins)', 'mg/dL', 'ldl', '13457-7'],
    ['eGFR', 'mL/min/1.73', 'egfr', '98979-8'],
    ['eGFR CKD-EPI Cr 2021', 'mL/min/1.73', 'egfr', '98979-8'],
    ['eGFRcr', 'mL/min/1.73', 'egfr', '98979-8'],
    ['eGFR Creatinine-Cystatin C', 'mL/min/1.73', 'egfr_cr_cys', '98980-6'],
    ['eGFR Cystatin C', 'mL/min/1.73', 'egfr_cys', undefined],
    ['eGFR If Africn Am', 'mL/min/1.73', 'egfr_african_american', undefined],
    ['eGFR If NonAfricn Am', 'mL/min/1.73', 'egfr', '98979-8'],
    ['eGFR MDRD', 'mL/min/1.73', 'egfr_mdrd', '33914-3'],
    ['eGFR (CKD-EPI 2009)', 'mL/min/1.73', 'egfr_ckd_epi_2009', '62238-1'],
    ['LDL/HDL Ratio', undefined, 'ldl_hdl_ratio', '11054-4'],
    ['BUN/Creatinine Ratio', undefined, 'bun_creatinine_ratio', '3097-3'],
    ['BUN/Creatinine', 'Ratio', 'bun_creatinine_ratio', '3097-3'],
    ['CHOL/HDLC RATIO', undefined, 'cholesterol_hdl_ratio', '9830-1'],
    ['T. Chol/HDL Ratio', undefined, 'cholesterol_hdl_ratio', '9830-1'],
    ['A/G Ratio', undefined, 'albumin_globulin_ratio', '1759-0'],
    ['Cystatin C', 'mg/L', 'cystatin_c', '33863-2'],
  ];
  for (const [printed, unit, key, loinc] of cases)
    test(`"${printed}" is ${key}`, () => {
      const found = findBiomarker(printed, unit);
      assert.equal(found?.entry.key, key);
      assert.equal(found?.fuzzy, false, 'an exact dictionary match, not an approximate one');
      assert.equal(found?.entry.loinc, loinc);
    });
});
