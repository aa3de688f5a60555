// The DXA scan reader (issue 45 item 1; features/lab-reports/dexa): generated Hologic- and GE
// Lunar-style scan reports (text PDFs, values drawn per seed) read into results keyed by measure
// and body region, every printed value found with its unit, "Total" read as the table means it,
// rows naming no region left out; lab reports are not taken for scans; T- and Z-scores read
// against the WHO and ISCD thresholds.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readScan } from '../../src/features/lab-reports/dexa/index.ts';
import { columnOf } from '../../src/features/lab-reports/dexa/measures.ts';
import { numberOf, readDexaTables } from '../../src/features/lab-reports/dexa/read.ts';
import type { Row } from '../../src/features/lab-reports/extraction/rows.ts';
import { regionOf, totalIn } from '../../src/features/lab-reports/dexa/regions.ts';
import { readReport } from '../../src/features/lab-reports/read-report.ts';
import { DEFAULT_READER, readPages } from '../../src/features/lab-reports/read-pages.ts';
import type { LabResult } from '../../src/features/lab-reports/result-types.ts';
import { type DexaLayout, generateDexaReport, renderDexaPdf } from '../helpers/dexa-samples.ts';
import { generateReport, renderPdf } from '../helpers/lab-report-samples.ts';

/** Every truth row without its result, and every result no truth row expects. */
function mismatches(truth: ReturnType<typeof generateDexaReport>['truth'], results: LabResult[]): string[] {
  const problems: string[] = [];
  const left = [...results];
  for (const row of truth) {
    const index = left.findIndex(
      (result) => result.biomarker.key === row.key && result.biomarker.region === row.region,
    );
    if (index < 0) {
      problems.push(`missing ${row.key} @ ${row.region} (${row.printed})`);
      continue;
    }
    const [result] = left.splice(index, 1);
    if (result!.measurement.numeric !== row.value)
      problems.push(`${row.key} @ ${row.region}: ${result!.measurement.numeric} ≠ ${row.value}`);
    if (result!.source.value !== row.printed)
      problems.push(`${row.key} @ ${row.region}: printed "${result!.source.value}" ≠ "${row.printed}"`);
    if (result!.measurement.ucum_code !== row.ucum)
      problems.push(`${row.key} @ ${row.region}: ucum ${result!.measurement.ucum_code} ≠ ${row.ucum}`);
    if (result!.biomarker.specimen !== undefined) problems.push(`${row.key} @ ${row.region}: has a specimen`);
  }
  for (const extra of left) problems.push(`unexpected ${extra.biomarker.key} @ ${extra.biomarker.region}`);
  return problems;
}

describe('DXA scan reader', () => {
  for (const layout of ['hologic', 'lunar'] as DexaLayout[])
    for (const seed of [1, 7, 42])
      test(`${layout} layout, seed ${seed}: every region row read, nothing invented`, async () => {
        const report = generateDexaReport(layout, seed);
        const pdf = await renderDexaPdf(report);
        const parsed = await readReport(pdf, 'application/pdf', { scans: true });
        assert.equal(parsed.reportType, 'dexa');
        assert.deepEqual(mismatches(report.truth, parsed.results), []);
        assert.equal(parsed.reportDate, report.reportDate);
        assert.ok(parsed.results.every((result) => result.confidence === 1 && !result.needs_review));
      });

  test('a scan read under a version that does not tell scans apart goes to the lab reader', async () => {
    const pdf = await renderDexaPdf(generateDexaReport('hologic', 3));
    const parsed = await readReport(pdf, 'application/pdf', { scans: false });
    assert.equal(parsed.reportType, 'lab');
    assert.ok(parsed.results.every((result) => result.biomarker.region === undefined));
  });

  test('lab reports are not taken for scans', async () => {
    for (const layout of ['one-column', 'two-column'] as const) {
      const lab = generateReport({ layout, unitsColumn: true, system: 'US', flagStyle: 'letters' });
      const read = await readPages(await renderPdf(lab), 'application/pdf', DEFAULT_READER);
      assert.equal(readScan(read, undefined), undefined, layout);
      const parsed = await readReport(await renderPdf(lab), 'application/pdf', { scans: true });
      assert.equal(parsed.reportType, 'lab');
      assert.ok(parsed.results.length > 0);
    }
  });

  test('T- and Z-scores are read against the WHO and ISCD thresholds; masses carry no flag', async () => {
    const report = generateDexaReport('hologic', 11);
    const parsed = await readReport(await renderDexaPdf(report), 'application/pdf', { scans: true });
    for (const result of parsed.results) {
      const value = result.measurement.numeric!;
      if (result.biomarker.key === 't_score')
        assert.deepEqual(result.interpretation, {
          flag: value < -1 ? 'low' : 'normal',
          source: 'computed',
          applied_range: { lower: -1 },
        });
      else if (result.biomarker.key === 'z_score')
        assert.equal(result.interpretation.flag, value <= -2 ? 'low' : 'normal');
      else assert.deepEqual(result.interpretation, { flag: null, source: 'none' });
    }
  });

  test('values under a title the reader does not take are listed, never given to the neighbouring column', async () => {
    const report = generateDexaReport('lunar', 9);
    const parsed = await readReport(await renderDexaPdf(report), 'application/pdf', { scans: true });
    assert.deepEqual(mismatches(report.truth, parsed.results), []);
    const skipped = (parsed.unmatched ?? []).filter((entry) => /Young-Adult \(%\)/.test(entry.reason));
    assert.equal(skipped.length, 7, 'one per bone-density row: five spine rows, two hip rows');
  });

  test('OCR cells carry their confidence; a doubtful one needs review', () => {
    const cell = (text: string, x: number, confidence?: number) => ({
      text,
      x0: x - 10,
      x1: x + 10,
      ...(confidence === undefined ? {} : { confidence }),
    });
    const row = (y: number, cells: Row['cells']): Row => ({
      page: 1,
      y,
      cells,
      text: cells.map((entry) => entry.text).join(' '),
    });
    const rows = [
      row(10, [cell('DXA Results Summary', 100, 95)]),
      row(20, [cell('Region', 40, 96), cell('BMD (g/cm²)', 200, 93), cell('T-score', 300, 94)]),
      row(30, [cell('L1', 40, 97), cell('0.912', 200, 91), cell('-1.4', 300, 52)]),
      row(40, [cell('Total', 40, 97), cell('0.955', 201, 90), cell('-1.1', 299, 88)]),
    ];
    const reading = readDexaTables(rows);
    assert.deepEqual(
      reading.results.map((result) => [
        result.biomarker.region,
        result.biomarker.key,
        result.measurement.numeric,
        result.confidence,
        result.needs_review,
      ]),
      [
        ['l1', 'bone_mineral_density', 0.912, 0.91, false],
        ['l1', 't_score', -1.4, 0.52, true],
        ['l1_l4', 'bone_mineral_density', 0.955, 0.9, false],
        ['l1_l4', 't_score', -1.1, 0.88, false],
      ],
    );
    // Two values nearest one title: the row does not line up, and its second value is not guessed.
    const crooked = readDexaTables([
      rows[1]!,
      row(50, [cell('L2', 40), cell('0.901', 190), cell('0.903', 215)]),
    ]);
    assert.equal(crooked.results.length, 1);
    assert.match(crooked.unmatched[0]!.reason, /two values under "BMD/);
  });

  test('printed names, titles and numbers', () => {
    assert.equal(regionOf('L Arm'), 'left_arm');
    assert.equal(regionOf('Right  Leg'), 'right_leg');
    assert.equal(regionOf('Android (A)'), 'android');
    assert.equal(regionOf('L1 - L4'), 'l1_l4');
    assert.equal(regionOf('Femoral Neck'), 'femoral_neck');
    assert.equal(regionOf('Subtotal'), undefined);
    assert.equal(regionOf('Glucose'), undefined);
    assert.equal(totalIn(['l1', 'l2']), 'l1_l4');
    assert.equal(totalIn(['femoral_neck']), 'total_hip');
    assert.equal(totalIn(['trunk', 'head']), 'total');
    assert.equal(columnOf('BMD (g/cm²)')?.ucum, 'g/cm2');
    assert.equal(columnOf('Lean (lbs)')?.ucum, '[lb_av]');
    assert.equal(columnOf('Region (%Fat)')?.measure.key, 'region_fat_percent');
    assert.equal(columnOf('Tissue (%Fat)')?.measure.key, 'fat_percent');
    assert.equal(columnOf('Tissue (g)')?.measure.key, 'tissue_mass');
    assert.equal(columnOf('Result'), undefined);
    assert.equal(numberOf('−2.6'), -2.6);
    assert.equal(numberOf('12,345.6'), 12345.6);
    assert.equal(numberOf('1,23'), undefined);
    assert.equal(numberOf('n/a'), undefined);
  });
});
