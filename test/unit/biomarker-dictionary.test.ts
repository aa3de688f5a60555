// One biomarker dictionary for the whole service (issue 26, item 5): the order API and the
// lab-report reader used to declare the same LOINC codes twice. Now every code is written once, in
// src/model/biomarkers.ts, and both features resolve a biomarker to the same dictionary entry.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { BIOMARKERS as ORDER_BIOMARKERS } from '../../src/features/orders/domain/biomarkers.ts';
import { loincFor } from '../../src/features/lab-reports/dictionary/convert.ts';
import { biomarkerByKey, matchBiomarker } from '../../src/features/lab-reports/dictionary/match.ts';
import { BIOMARKERS as READER_BIOMARKERS } from '../../src/features/lab-reports/dictionary/biomarkers.ts';
import { BIOMARKERS, dictionaryEntry } from '../../src/model/biomarkers.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const DICTIONARY = 'src/model/biomarkers.ts';

/** Codes the dictionary gives two entries on purpose, with why. */
const SHARED_ON_PURPOSE = new Map([
  // Urea nitrogen reported in mmol/L is the molar concentration of urea: the same observation.
  ['22664-7', ['bun', 'urea']],
]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('one biomarker dictionary', () => {
  const owners = new Map<string, string[]>();
  for (const entry of BIOMARKERS)
    for (const code of [entry.loinc, ...(entry.alternates ?? []).map((unit) => unit.loinc)])
      if (code) owners.set(code, [...new Set([...(owners.get(code) ?? []), entry.key])]);

  test('within the dictionary, each LOINC code belongs to one entry', () => {
    for (const [code, keys] of owners)
      if (keys.length > 1) assert.deepEqual(keys, SHARED_ON_PURPOSE.get(code), `${code}: ${keys.join(', ')}`);
  });

  test('no source file outside the dictionary declares a dictionary LOINC code', () => {
    const declared: string[] = [];
    for (const path of sourceFiles(join(root, 'src'))) {
      const file = relative(root, path);
      if (file === DICTIONARY) continue;
      for (const [, code] of readFileSync(path, 'utf8').matchAll(/['"`](\d{1,6}-\d)['"`]/g))
        if (owners.has(code!)) declared.push(`${file}: ${code}`);
    }
    assert.deepEqual(declared, []);
  });

  test('the reader reads the same entries (its module re-exports the dictionary)', () => {
    assert.equal(READER_BIOMARKERS, BIOMARKERS);
    for (const entry of BIOMARKERS) assert.equal(biomarkerByKey(entry.key), entry, entry.key);
  });

  test('every order biomarker resolves, in the reader too, to the entry it is coded from', () => {
    for (const [orderKey, biomarker] of Object.entries(ORDER_BIOMARKERS)) {
      const entry = dictionaryEntry(biomarker.key);
      assert.equal(biomarker.loinc, entry.loinc, orderKey);
      assert.equal(biomarker.ucum, entry.ucum, orderKey);
      assert.equal(biomarker.name, entry.name, orderKey);
      // What the reader makes of the order's own result line (its name and unit) is that entry.
      const read = matchBiomarker(biomarker.name, biomarker.unit);
      assert.equal(read, entry, `${orderKey}: "${biomarker.name}" (${biomarker.unit}) read as ${read?.key}`);
      assert.equal(loincFor(entry, biomarker.ucum), biomarker.loinc, orderKey);
    }
  });

  test('an unknown key is refused at load, not coded as nothing', () => {
    assert.throws(() => dictionaryEntry('no_such_biomarker'), /no biomarker "no_such_biomarker"/);
  });
});
