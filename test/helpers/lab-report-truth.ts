// Scoring the lab-report reader result by result against a truth file: the results as printed
// (name, value, unit, range, flag), plus `optional` rows (earlier columns of a cumulative report)
// that count neither way. The same scorer reads the shared real reports
// (`../shared/reference/lab-reports/`, read in place, never copied) and the class documents the
// project generates (test/helpers/lab-report-classes.ts).
//
// A result pairs with a printed row when both name the same dictionary entry (the row's name and
// unit looked up the way the reader looks them up) or, failing that, when the printed names are
// the same words. Anything left over is invented, unless it names an optional row and carries one
// of its values (an earlier column of a cumulative report: neither found nor invented).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { matchBiomarker, normalName } from '../../src/features/lab-reports/dictionary/match.ts';
import { parseNumber, parseRange } from '../../src/features/lab-reports/extraction/ranges.ts';
import type { MediaType } from '../../src/features/lab-reports/media-types.ts';
import type { LabResult } from '../../src/features/lab-reports/result-types.ts';

export type TruthResult = { name: string; value: string; unit: string; range: string; flag: string };
export type TruthFile = {
  file: string;
  kind: 'text-pdf' | 'image' | 'scanned-pdf';
  results: TruthResult[];
  optional?: { name: string; value: string }[];
};

const REPOSITORY_ROOT = new URL('../../', import.meta.url);
/**
 * `<repository>/../shared/reference/lab-reports`; `SHARED_REFERENCE_DIR` names the shared reference
 * elsewhere (a git worktree checked out away from it).
 */
export const SHARED_LAB_REPORTS_DIR = process.env.SHARED_REFERENCE_DIR
  ? join(process.env.SHARED_REFERENCE_DIR, 'lab-reports')
  : fileURLToPath(new URL('../shared/reference/lab-reports/', REPOSITORY_ROOT));

export type TruthDocument = { label: string; bytes: Buffer; mediaType: MediaType; truth: TruthFile };

/** The shared real reports with their truth files, or why there are none. */
export function sharedReports(): { documents: TruthDocument[] } | { missing: string } {
  if (!existsSync(SHARED_LAB_REPORTS_DIR))
    return {
      missing:
        `the shared real lab reports are not at ${SHARED_LAB_REPORTS_DIR} ` +
        '(../shared/reference/lab-reports beside the repository)',
    };
  const documents = readdirSync(SHARED_LAB_REPORTS_DIR)
    .filter((name) => name.endsWith('.truth.json'))
    .sort()
    .map((name) => {
      const truth = JSON.parse(readFileSync(join(SHARED_LAB_REPORTS_DIR, name), 'utf8')) as TruthFile;
      const bytes = readFileSync(join(SHARED_LAB_REPORTS_DIR, truth.file));
      return { label: truth.file, bytes, mediaType: mediaTypeOf(truth.file), truth };
    });
  return documents.length > 0 ? { documents } : { missing: `no *.truth.json in ${SHARED_LAB_REPORTS_DIR}` };
}

function mediaTypeOf(file: string): MediaType {
  if (file.endsWith('.pdf')) return 'application/pdf';
  if (/\.jpe?g$/i.test(file)) return 'image/jpeg';
  return 'image/png';
}

export type Tally = {
  printed: number;
  found: number;
  emitted: number;
  invented: number;
  values: number;
  units: number;
  ranges: number;
  flags: number;
  /** Emitted results without a dictionary key (the reader must emit none). */
  unkeyed: number;
};
export const emptyTally = (): Tally => ({
  printed: 0,
  found: 0,
  emitted: 0,
  invented: 0,
  values: 0,
  units: 0,
  ranges: 0,
  flags: 0,
  unkeyed: 0,
});

export function addTally(into: Tally, from: Tally): Tally {
  for (const key of Object.keys(into) as (keyof Tally)[]) into[key] += from[key];
  return into;
}

const keyOf = (name: string, unit?: string) => matchBiomarker(name, unit || undefined)?.key;
const words = (text: string) =>
  normalName(text)
    .replace(/[^a-z0-9%]+/g, ' ')
    .trim();

function sameValue(printed: string, result: LabResult): boolean {
  const text = printed.replace(/\s+/g, '');
  const measurement = result.measurement;
  const bound = /^([<>])(.+)$/.exec(text);
  if (bound) {
    return (
      measurement.type === 'bounded' &&
      measurement.bounded?.operator === (bound[1] === '<' ? 'lt' : 'gt') &&
      measurement.bounded.value === parseNumber(bound[2]!)
    );
  }
  const number = parseNumber(text);
  if (number !== undefined) return measurement.type === 'numeric' && measurement.numeric === number;
  const answer = measurement.qualitative?.text ?? measurement.text ?? '';
  return answer.toLowerCase() === printed.toLowerCase();
}

const unitForm = (unit: string | undefined) =>
  (unit ?? '').toLowerCase().replace(/\s+/g, '').replace(/μ/g, 'µ');

function rangeOf(text: string | undefined) {
  if (!text) return undefined;
  return parseRange(text.replace(/^\((.*)\)$/, '$1').replace(/,(?=\d{3}\b)/g, ''));
}

function sameRange(printed: string, result: LabResult): boolean {
  const want = rangeOf(printed);
  const got = result.reference_ranges?.[0];
  if (!want) return !printed.trim() ? got === undefined : false;
  return got !== undefined && got.lower === want.lower && got.upper === want.upper;
}

const FLAG_WORDS: Record<string, string> = { h: 'high', high: 'high', l: 'low', low: 'low' };
const printedFlag = (flag: string | undefined) => (flag ? (FLAG_WORDS[flag.toLowerCase()] ?? flag) : '');

function sameFlag(printed: string, result: LabResult): boolean {
  const got = result.interpretation.source === 'report' ? (result.interpretation.flag ?? '') : '';
  // A direction-less mark (`*`) is read right when the result carries the report's flag (its
  // direction then comes from the range).
  if (printed === '*') return got !== '';
  return printedFlag(printed) === got;
}

export type Mismatch = { printed?: TruthResult; result?: LabResult; problem: string };

/** One document's results against its truth. */
export function scoreResults(
  truth: TruthFile,
  results: readonly LabResult[],
): { tally: Tally; mismatches: Mismatch[] } {
  const tally = emptyTally();
  const mismatches: Mismatch[] = [];
  const left = [...results];
  tally.emitted = results.length;
  tally.unkeyed = results.filter((result) => !result.biomarker.key).length;
  for (const printed of truth.results) {
    tally.printed += 1;
    const key = keyOf(printed.name, printed.unit);
    let at = key ? left.findIndex((result) => result.biomarker.key === key) : -1;
    if (at < 0) at = left.findIndex((result) => words(result.source.name ?? '') === words(printed.name));
    if (at < 0) {
      mismatches.push({ printed, problem: 'not found' });
      continue;
    }
    const [result] = left.splice(at, 1) as [LabResult];
    tally.found += 1;
    const checks: [keyof Tally, boolean, string][] = [
      ['values', sameValue(printed.value, result), `value ${result.source.value ?? '-'}`],
      [
        'units',
        unitForm(result.source.units) === unitForm(printed.unit),
        `unit ${result.source.units ?? '-'}`,
      ],
      ['ranges', sameRange(printed.range, result), `range ${result.source.reference_text ?? '-'}`],
      ['flags', sameFlag(printed.flag, result), `flag ${result.interpretation.flag ?? '-'}`],
    ];
    for (const [field, right, got] of checks) {
      if (right) tally[field] += 1;
      else mismatches.push({ printed, result, problem: `${field}: got ${got}` });
    }
  }
  for (const result of left) {
    const name = words(result.source.name ?? '');
    const earlier = (truth.optional ?? []).some(
      (row) =>
        (words(row.name) === name || (result.biomarker.key && keyOf(row.name) === result.biomarker.key)) &&
        sameValue(row.value, result),
    );
    if (earlier) {
      tally.emitted -= 1;
      continue;
    }
    tally.invented += 1;
    mismatches.push({ result, problem: `invented: ${result.source.name} = ${result.source.value ?? '-'}` });
  }
  return { tally, mismatches };
}

const share = (part: number, whole: number) => (whole === 0 ? 1 : part / whole);
export const recall = (tally: Tally) => share(tally.found, tally.printed);
export const precision = (tally: Tally) => share(tally.emitted - tally.invented, tally.emitted);
export const valueAccuracy = (tally: Tally) => share(tally.values, tally.printed);

const percent = (value: number) => `${(100 * value).toFixed(1)}%`;
/** One line of figures: recall, precision and value accuracy; unit, range and flag of found results. */
export function describeTally(label: string, tally: Tally): string {
  return (
    `${label}: ${tally.printed} printed, ${tally.emitted} emitted; recall ${percent(recall(tally))}, ` +
    `precision ${percent(precision(tally))}, values ${percent(valueAccuracy(tally))}, ` +
    `units ${percent(share(tally.units, tally.found))}, ranges ${percent(share(tally.ranges, tally.found))}, ` +
    `flags ${percent(share(tally.flags, tally.found))}, invented ${tally.invented}, without dictionary key ${tally.unkeyed}`
  );
}

export function describeMismatch(mismatch: Mismatch): string {
  const name = mismatch.printed ? `${mismatch.printed.name} (${mismatch.printed.value})` : '';
  return `${name} ${mismatch.problem}`.trim();
}
