// Raw results → the layered results of the wire contract: the verbatim source, the biomarker
// identity from the dictionary, one typed measurement, and the interpretation (the report's own
// flag when it printed one, else computed from its reference range, else none). Nothing is made
// up: a value that cannot be read becomes an `absent` measurement with the reason.
import { loincFor } from './dictionary/convert.ts';
import type { BiomarkerEntry } from './dictionary/biomarkers.ts';
import { matchBiomarker } from './dictionary/match.ts';
import { displayUnit, ucumFor } from './dictionary/units.ts';
import type { RawResult } from './extraction/parse-values.ts';
import {
  judge,
  judgeBound,
  parseNumber,
  parseRange,
  type ParsedRange,
  type Verdict,
} from './extraction/ranges.ts';
import { NEEDS_REVIEW_BELOW, rangeText } from './plausibility.ts';
import type { LabResult } from './result-types.ts';

const REPORT_FLAGS: Record<string, 'high' | 'low' | 'abnormal'> = {
  h: 'high',
  hh: 'high',
  high: 'high',
  l: 'low',
  ll: 'low',
  low: 'low',
  a: 'abnormal',
  aa: 'abnormal',
  '*': 'abnormal',
  '**': 'abnormal',
  '!': 'abnormal',
  abnormal: 'abnormal',
  abn: 'abnormal',
  critical: 'abnormal',
  // Arrows some reports and portals print instead of letters.
  '↑': 'high',
  '↑↑': 'high',
  '▲': 'high',
  '↓': 'low',
  '↓↓': 'low',
  '▼': 'low',
};

type Measured =
  | { kind: 'numeric'; value: number }
  | { kind: 'bounded'; operator: 'lt' | 'gt'; value: number }
  | { kind: 'qualitative'; text: string }
  | { kind: 'absent'; reason: string };

function measure(raw: RawResult): Measured {
  if (raw.value === undefined)
    return { kind: 'absent', reason: 'no value printed or the value could not be read' };
  const text = raw.value.trim();
  const bound = /^([<>≤≥])(.+)$/.exec(text);
  if (bound) {
    const value = parseNumber(bound[2]!);
    if (value === undefined) return { kind: 'absent', reason: `unreadable value "${text}"` };
    return { kind: 'bounded', operator: bound[1] === '<' || bound[1] === '≤' ? 'lt' : 'gt', value };
  }
  const value = parseNumber(text);
  if (value !== undefined) return { kind: 'numeric', value };
  if (/^[a-z][a-z -]*$/i.test(text)) return { kind: 'qualitative', text };
  return { kind: 'absent', reason: `unreadable value "${text}"` };
}

function verdictOf(
  measured: Measured,
  range: ParsedRange | undefined,
  referenceText: string | undefined,
): Verdict | undefined {
  if (measured.kind === 'numeric') return range ? judge(measured.value, range) : undefined;
  if (measured.kind === 'bounded')
    return range ? judgeBound(measured.operator, measured.value, range) : undefined;
  if (measured.kind === 'qualitative' && referenceText && !range) {
    return measured.text.toLowerCase() === referenceText.toLowerCase() ? 'normal' : undefined;
  }
  return undefined;
}

const appliedRange = (range: ParsedRange | undefined) =>
  range && (range.lower !== undefined || range.upper !== undefined)
    ? {
        ...(range.lower === undefined ? {} : { lower: range.lower }),
        ...(range.upper === undefined ? {} : { upper: range.upper }),
      }
    : undefined;

/**
 * `assessed`: the dictionary entry and confidence plausibility.ts gave the row; without it the
 * entry is looked up here and the result is as certain as its match (1, or 0 with no entry).
 */
export function interpret(
  raw: RawResult,
  panel?: { id: number; name: string; key: string },
  assessed?: { entry: BiomarkerEntry; confidence: number },
): LabResult {
  const entry = assessed?.entry ?? matchBiomarker(raw.name, raw.units);
  const confidence = assessed?.confidence ?? (entry ? 1 : 0);
  const ucum = raw.units ? ucumFor(raw.units) : undefined;
  const measured = measure(raw);
  const range = raw.referenceText ? parseRange(rangeText(raw.referenceText)) : undefined;
  const verdict = verdictOf(measured, range, raw.referenceText);
  const reportFlag = raw.flag ? REPORT_FLAGS[raw.flag.toLowerCase()] : undefined;
  // A direction-less mark ("*", "A") takes its direction from the range when the range gives one.
  const flag = reportFlag === 'abnormal' && (verdict === 'high' || verdict === 'low') ? verdict : reportFlag;
  const units = raw.units ? { units: displayUnit(raw.units), ...(ucum ? { ucum_code: ucum } : {}) } : {};
  const measurement =
    measured.kind === 'numeric'
      ? { type: 'numeric', numeric: measured.value, ...units }
      : measured.kind === 'bounded'
        ? { type: 'bounded', bounded: { operator: measured.operator, value: measured.value }, ...units }
        : measured.kind === 'qualitative'
          ? { type: 'qualitative', qualitative: { text: measured.text } }
          : { type: 'absent', absent_reason: measured.reason, ...units };
  const applied = appliedRange(range);
  const interpretation = flag
    ? { flag, flag_raw: raw.flag!, source: 'report', ...(applied ? { applied_range: applied } : {}) }
    : verdict
      ? { flag: verdict, source: 'computed', ...(applied ? { applied_range: applied } : {}) }
      : { flag: null, ...(raw.flag ? { flag_raw: raw.flag } : {}), source: 'none' };
  const loinc = entry ? loincFor(entry, ucum) : undefined;
  return {
    source: {
      name: raw.name,
      ...(panel ? { panel: panel.name } : {}),
      ...(raw.value === undefined ? {} : { value: raw.value }),
      ...(raw.units ? { units: raw.units } : {}),
      ...(raw.flag ? { flag: raw.flag } : {}),
      ...(raw.referenceText ? { reference_text: raw.referenceText } : {}),
    },
    biomarker: entry
      ? {
          key: entry.key,
          display_name: entry.name,
          ...(loinc ? { loinc_code: loinc } : {}),
          ...(panel ? { panel_id: panel.id, panel_key: panel.key } : {}),
          ...(entry.specimen ? { specimen: entry.specimen } : {}),
        }
      : { key: null, ...(panel ? { panel_id: panel.id, panel_key: panel.key } : {}) },
    measurement,
    interpretation,
    ...(applied ? { reference_ranges: [{ ...applied, type: 'normal' }] } : {}),
    confidence,
    needs_review: confidence < NEEDS_REVIEW_BELOW,
  } as LabResult;
}
