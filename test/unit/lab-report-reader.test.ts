// The lab-report reader's layout model and plausibility gate (issue 26), on rows and words built
// by hand: which column is the current result, what a row yields against its columns, which
// values are possible, and the text layer's overprinted and superscript words.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { biomarkerByKey, findBiomarker } from '../../src/features/lab-reports/dictionary/match.ts';
import { findTables, roleOfTitle } from '../../src/features/lab-reports/extraction/columns.ts';
import type { RawResult } from '../../src/features/lab-reports/extraction/parse-values.ts';
import { readTableRow } from '../../src/features/lab-reports/extraction/read-table.ts';
import { buildRows, type Row } from '../../src/features/lab-reports/extraction/rows.ts';
import type { TextToken } from '../../src/features/lab-reports/extraction/tokens.ts';
import { judgeResult } from '../../src/features/lab-reports/plausibility.ts';

/** A row from [x, text] cells (each cell 6 points per character wide). */
function row(y: number, ...cells: [number, string][]): Row {
  const built = cells.map(([x, text]) => ({ text, x0: x, x1: x + text.length * 6 }));
  return { page: 1, y, cells: built, text: built.map((cell) => cell.text).join('  ') };
}

function readAll(rows: Row[]) {
  const [table] = findTables(rows);
  assert.ok(table, 'a table is found');
  return rows
    .filter((candidate) => candidate.y > table.headerY)
    .map((candidate) => readTableRow(table, candidate))
    .flatMap((read) => (read && 'raw' in read ? [read.raw] : []));
}

describe('the table model: which column is the current result', () => {
  test('collection-date columns: the latest date, wherever it stands; flags of earlier columns ignored', () => {
    for (const order of [
      ['07-Nov-17', '15-Apr-18', '02-Aug-19'],
      ['02-Aug-19', '15-Apr-18', '07-Nov-17'],
    ]) {
      const latestAt = [160, 230, 300][order.indexOf('02-Aug-19')]!;
      const values = Object.fromEntries(order.map((date, index) => [date, [160, 230, 300][index]!]));
      const rows = [
        row(100, [40, 'Collection date'], [160, order[0]!], [230, order[1]!], [300, order[2]!]),
        row(114, [40, 'Test'], [380, 'Reference'], [460, 'Units']),
        row(
          130,
          [40, 'Haemoglobin'],
          [values['07-Nov-17']!, '132 L'],
          [values['15-Apr-18']!, '129 L'],
          [latestAt, '146'],
          [380, '(135-165)'],
          [460, 'g/L'],
        ),
      ];
      const [result] = readAll(rows);
      assert.deepEqual(
        [result?.name, result?.value, result?.flag, result?.referenceText, result?.units],
        ['Haemoglobin', '146', undefined, '135-165', 'g/L'],
      );
    }
  });

  test('"Latest" printed over a date column names it; a Previous column and a lab-code column are never the value', () => {
    const marked = [
      row(90, [300, 'Latest results']),
      row(100, [40, 'Collection date'], [160, '02-Aug-19'], [300, '01-Jul-19']),
      row(114, [40, 'Test'], [380, 'Ref range']),
      row(130, [40, 'Sodium'], [160, '141'], [300, '139'], [380, '135-145']),
    ];
    assert.equal(readAll(marked)[0]?.value, '139');
    const previous = [
      row(
        100,
        [40, 'Test'],
        [160, 'Previous'],
        [230, 'Result'],
        [300, 'Lab'],
        [340, 'Units'],
        [400, 'Reference interval'],
      ),
      row(
        116,
        [40, 'Potassium'],
        [160, '4.1'],
        [230, '5.6 H'],
        [300, 'QX'],
        [340, 'mmol/L'],
        [400, '3.5 - 5.2'],
      ),
    ];
    const [potassium] = readAll(previous);
    assert.deepEqual([potassium?.value, potassium?.flag, potassium?.units], ['5.6', 'H', 'mmol/L']);
  });

  test('"In range" and "Out of range": the current result is in whichever the row fills', () => {
    const rows = [
      row(
        100,
        [40, 'Test Name'],
        [200, 'In Range'],
        [280, 'Out Of Range'],
        [380, 'Reference Range'],
        [480, 'Lab'],
      ),
      row(116, [40, 'Glucose'], [200, '89'], [380, '65-99 mg/dL'], [480, 'EN']),
      row(130, [40, 'Potassium'], [280, '5.6 H'], [380, '3.5-5.3 mmol/L'], [480, 'EN']),
    ];
    assert.deepEqual(
      readAll(rows).map((raw) => [raw.name, raw.value, raw.flag]),
      [
        ['Glucose', '89', undefined],
        ['Potassium', '5.6', 'H'],
      ],
    );
  });

  test('column titles in the common forms of several languages', () => {
    const cases: [string, string | undefined][] = [
      ['Investigation', 'name'],
      ['Ergebnis', 'result'],
      ['Résultat', 'result'],
      ['Resultado anterior', 'previous'],
      ['Einheit', 'unit'],
      ['Valores de referencia', 'range'],
      ['Biological Reference Interval', 'range'],
      ['REFERENCE RANGE / UNITS', 'range'],
      ['REFERENCE RANGE UNITS', 'range'],
      ['Flag', 'flag'],
      ['BİRİM', 'unit'],
      ['Test Description', 'name'],
      ['Method', 'other'],
      ['Patient name', undefined],
    ];
    for (const [title, role] of cases) assert.equal(roleOfTitle(title), role, title);
  });
});

describe('rows read against their columns', () => {
  const titles = row(100, [40, 'Test'], [200, 'Result'], [300, 'Units'], [380, 'Reference']);
  const one = (...cells: [number, string][]) => readAll([titles, row(120, ...cells)]);

  test('flags printed before the value, or run into it, are the flag and never part of the name', () => {
    assert.deepEqual(
      [one([40, 'Lymphocyte'], [180, 'L'], [200, '18'], [300, '%'], [380, '20 - 40'])[0]].map((raw) => [
        raw?.name,
        raw?.value,
        raw?.flag,
      ]),
      [['Lymphocyte', '18', 'L']],
    );
    const [high] = one([40, 'Glucose'], [200, 'High 5.6'], [300, 'mmol/L'], [380, '3.9-5.5']);
    assert.deepEqual([high?.value, high?.flag], ['5.6', 'High']);
    const [glued] = one([40, 'Hemoglobin'], [200, 'L118'], [380, '13.0 - 17.0 g/dL']);
    assert.deepEqual(
      [glued?.value, glued?.flag, glued?.units, glued?.referenceText],
      ['118', 'L', 'g/dL', '13.0-17.0'],
    );
  });

  test('a range in the range column is never a value; a range where the value belongs is no result', () => {
    const [hdl] = one([40, 'HDL Cholesterol'], [200, '52'], [380, '>35 mg/dL']);
    assert.deepEqual([hdl?.value, hdl?.referenceText, hdl?.units], ['52', '>35', 'mg/dL']);
    assert.deepEqual(one([40, 'Neutrophils'], [200, '40 - 80'], [300, '%']), []);
    // A range on its own line under its row: no name, no result.
    assert.deepEqual(one([380, 'Normal < 150; borderline 150 - 199']), []);
  });

  test('units inside the range column, a lost dash, and a point read for a dash', () => {
    const [counts] = one([40, 'Absolute Neutrophils'], [200, '6000'], [380, '1500  7500 cells/mcL']);
    assert.deepEqual([counts?.referenceText, counts?.units], ['1500-7500', 'cells/mcL']);
    const [glucose] = one([40, 'Glucose'], [200, '5.6'], [380, '3.9.5.5']);
    assert.equal(glucose?.referenceText, '3.9-5.5');
  });

  test('footnote marks and a trailing flag letter leave the name', () => {
    const [ferritin] = one([40, 'Ferritin *'], [200, '18'], [300, 'ug/L'], [380, '30-300']);
    assert.equal(ferritin?.name, 'Ferritin');
    const [mchc] = one([40, 'MEAN CELL HAEMOGLOBIN CON, MCHC H'], [200, '35.7'], [300, '%']);
    assert.deepEqual([mchc?.name, mchc?.flag], ['MEAN CELL HAEMOGLOBIN CON, MCHC', 'H']);
  });
});

describe('plausibility before output', () => {
  const raw = (fields: Partial<RawResult> & Pick<RawResult, 'name'>): RawResult => ({
    x: 0,
    page: 1,
    y: 0,
    reading: 'table',
    ...fields,
  });
  const judge = (fields: Partial<RawResult> & Pick<RawResult, 'name'>) => {
    const found = findBiomarker(fields.name, fields.units);
    assert.ok(found, fields.name);
    return judgeResult(raw(fields), found.entry, found.fuzzy);
  };

  test('a value that lost its decimal point is restored from the range and marked for review', () => {
    const platelets = judge({
      name: 'Platelet count',
      value: '35',
      units: 'lakhs/cumm',
      referenceText: '1.5 - 4.1',
    });
    assert.ok(platelets.emit);
    assert.equal(platelets.raw.value, '3.5');
    assert.ok(platelets.confidence < 0.75);
  });

  test('a range that lost its points is restored when the value fits it', () => {
    const rbc = judge({ name: 'Total RBC count', value: '5.2', units: 'mill/cumm', referenceText: '45-55' });
    assert.ok(rbc.emit);
    assert.equal(rbc.raw.referenceText, '4.5-5.5');
    // A plausible range is never bent to fit a misread value: the value is marked instead.
    const neutrophils = judge({ name: 'Neutrophils', value: '7', units: '%', referenceText: '40-80' });
    assert.ok(neutrophils.emit);
    assert.equal(neutrophils.raw.referenceText, '40-80');
    assert.ok(neutrophils.confidence < 0.75);
    const mchc = judge({ name: 'MCHC', value: '32.8', units: 'g/dL', referenceText: '32.5-345' });
    assert.ok(mchc.emit);
    assert.equal(mchc.raw.referenceText, '32.5-34.5');
  });

  test('impossible values, codes and bare numbers are not emitted', () => {
    const impossible = judge({ name: 'Hemoglobin', value: '2230', units: 'g/dL' });
    assert.equal(impossible.emit, false);
    // One lost point makes it possible: restored, and marked.
    const restored = judge({ name: 'Hemoglobin', value: '223', units: 'g/dL' });
    assert.ok(restored.emit && restored.raw.value === '22.3' && restored.confidence < 0.75);
    const code = judge({ name: 'pH', value: '02', reading: 'row', units: 'pH' });
    assert.equal(code.emit, false);
    const bare = judge({ name: 'Glucose', value: '6600', reading: 'row' });
    assert.equal(bare.emit, false);
  });

  test('a plain result from a text layer is certain; a value far from its range is for review', () => {
    const sodium = judge({ name: 'Sodium', value: '140', units: 'mmol/L', referenceText: '135-145' });
    assert.ok(sodium.emit);
    assert.equal(sodium.confidence, 1);
    const far = judge({ name: 'Ferritin', value: '1900', units: 'ng/mL', referenceText: '15-150' });
    assert.ok(far.emit);
    assert.ok(far.confidence < 0.75);
  });

  test('names: one misread letter in a long name matches approximately; short names never do', () => {
    assert.deepEqual(findBiomarker('Hemoglobim'), { entry: biomarkerByKey('hemoglobin'), fuzzy: true });
    assert.equal(findBiomarker('Sodium')?.fuzzy, false);
    assert.equal(findBiomarker('Nb'), undefined);
    assert.equal(findBiomarker('Harbor Way'), undefined);
  });
});

describe('text drawn several times, and superscripts', () => {
  const token = (text: string, x0: number, y: number, height = 9): TextToken => ({
    text,
    x0,
    x1: x0 + text.length * 5,
    y,
    height,
  });

  test('bold by overprinting keeps one copy; a small raised lab code after a name is dropped', () => {
    const rows = buildRows({
      page: 1,
      width: 595,
      height: 842,
      source: 'text_layer',
      tokens: [
        token('Glucose', 40, 100),
        token('Glucose', 40.25, 100),
        token('Glucose', 40.5, 100),
        token('Glucose', 40.25, 99.8),
        token('2', 76, 96.5, 5.5),
        token('5.6', 200, 100),
        token('5.6', 200.3, 100),
      ],
    });
    assert.deepEqual(
      rows.map((built) => built.cells.map((cell) => cell.text)),
      [['Glucose', '5.6']],
    );
  });
});

describe('hostile images', () => {
  test('a broken PNG or JPEG fails as unreadable and the process carries on (a native decoder would end it)', async () => {
    const { parseReport, UnreadableFileError } = await import('../../src/features/lab-reports/report.ts');
    const broken = [
      Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.from('not really a PNG')]),
      Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46]),
    ];
    for (const bytes of broken)
      await assert.rejects(
        parseReport(bytes, bytes[0] === 0xff ? 'image/jpeg' : 'image/png'),
        UnreadableFileError,
      );
  });
});
