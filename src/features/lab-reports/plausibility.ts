// Plausibility before output: a row read as a result is emitted only when its value can be a real
// result of the test it names, judged by the test's limits (dictionary/plausible.ts) and by the
// range the report printed beside it. A value that disagrees with its range by a power of ten is
// a lost decimal point (OCR reads 3.5 as 35, 4.5–5.5 as 45–55): it is restored from the range's
// scale and the result is marked for review (its `source` then gives the restored reading: what
// the report printed, as far as the reader can tell); a value that cannot be a result is not emitted.
// Every emitted result gets a confidence (0–1); below NEEDS_REVIEW_BELOW it needs review.
import type { BiomarkerEntry } from './dictionary/biomarkers.ts';
import { withinLimits } from './dictionary/plausible.ts';
import { onTypicalScale } from './dictionary/typical-ranges.ts';
import { displayUnit, nearestUnit, ucumFor } from './dictionary/units.ts';
import type { RawResult } from './extraction/parse-values.ts';
import { judge, parseNumber, parseRange, type ParsedRange } from './extraction/ranges.ts';

/** The direction a printed flag gives (direction-less marks such as `*` give none). */
const FLAG_DIRECTION: Record<string, 'high' | 'low'> = {
  H: 'high',
  HH: 'high',
  High: 'high',
  HIGH: 'high',
  '↑': 'high',
  '↑↑': 'high',
  '▲': 'high',
  L: 'low',
  LL: 'low',
  Low: 'low',
  LOW: 'low',
  '↓': 'low',
  '↓↓': 'low',
  '▼': 'low',
};

/** Results with a lower confidence are marked `needs_review`. */
export const NEEDS_REVIEW_BELOW = 0.75;
/** An OCR confidence (0–100) below which a reading is not repaired: its digits are themselves in doubt. */
const DOUBTFUL_OCR = 30;

export type Judgement =
  { emit: true; raw: RawResult; confidence: number; reasons: string[] } | { emit: false; reason: string };

/** `(135-165)`, `4,800 - 10,800`, `[1.5-4.1]` → the range text parseRange reads. */
export function rangeText(text: string): string {
  return text
    .replace(/^[([]\s*(.*?)\s*[)\]]$/, '$1')
    .replace(/(\d),(?=\d{3}\b)/g, '$1')
    .replace(/\s+/g, '');
}

const hasPoint = (text: string) => /\d\.\d/.test(text);
const scaled = (value: number, power: number) => Number((value / 10 ** power).toFixed(6));

/** Whether a value and the range printed beside it are of the same scale (within a factor of 5). */
function sameScale(value: number, range: ParsedRange | undefined): boolean {
  if (!range) return true;
  if (range.upper !== undefined && range.upper > 0 && value > range.upper * 5) return false;
  if (range.lower !== undefined && range.lower > 0 && value < range.lower / 5) return false;
  return true;
}

/** Whether a value sits near its range (half the lower bound to twice the upper). */
function nearRange(value: number, range: ParsedRange): boolean {
  return (
    (range.lower === undefined || value >= range.lower / 2) &&
    (range.upper === undefined || value <= range.upper * 2)
  );
}

/** A range one of whose ends lost its decimal point (`32.5-345`, `15-4.1`), repaired. */
function repairedRangeEnds(text: string): string | undefined {
  const ends = /^(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?)$/.exec(text);
  if (!ends) return undefined;
  const [low, high] = [ends[1]!, ends[2]!];
  const decimals = (end: string) => end.split('.')[1]?.length ?? 0;
  if (hasPoint(low) && !hasPoint(high) && Number(high) >= 10 * Number(low)) {
    const fixed = scaled(Number(high), decimals(low));
    if (fixed > Number(low)) return `${low}-${fixed.toFixed(decimals(low))}`;
  }
  if (!hasPoint(low) && hasPoint(high) && Number(low) > Number(high)) {
    const fixed = scaled(Number(low), decimals(high));
    if (fixed < Number(high)) return `${fixed.toFixed(decimals(high))}-${high}`;
  }
  return undefined;
}

/** The range text divided by 10^power (`45-55` → `4.5-5.5`). */
function rangeScaled(text: string, power: number): string | undefined {
  const ends = /^(\d+)-(\d+)$/.exec(text);
  if (!ends) return undefined;
  return `${scaled(Number(ends[1]), power).toFixed(power)}-${scaled(Number(ends[2]), power).toFixed(power)}`;
}

/** A number whose point OCR lost after a leading zero (`092` → `0.92`, `<03` → `<0.3`). */
function leadingZeroRestored(text: string): string | undefined {
  const lost = /^([<>≤≥]?)0(\d+)$/.exec(text);
  return lost ? `${lost[1]}0.${lost[2]}` : undefined;
}

/**
 * A range whose marks OCR lost: an end with a leading zero beside one with a point (`057-1.00` →
 * `0.57-1.00`), or the point and dash both (`3552` → `35-52`, later scaled to the value by the
 * decimal repairs).
 */
function ocrRangeRestored(text: string): string | undefined {
  const fused = /^(\d+)$/.exec(text);
  if (fused && fused[1]!.length % 2 === 0 && fused[1]!.length >= 4) {
    const half = fused[1]!.length / 2;
    const [low, high] = [fused[1]!.slice(0, half), fused[1]!.slice(half)];
    return Number(low) < Number(high) ? `${low}-${high}` : undefined;
  }
  // Only beside an end that kept its point: some labs print `00 - 06` as it stands.
  const ends = /^(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?)$/.exec(text);
  if (!ends) return undefined;
  const [low, high] = [ends[1]!, ends[2]!];
  const lowFixed = leadingZeroRestored(low);
  const highFixed = leadingZeroRestored(high);
  if (lowFixed && hasPoint(high) && !hasPoint(low)) return `${lowFixed}-${high}`;
  if (highFixed && hasPoint(low) && !hasPoint(high)) return `${low}-${highFixed}`;
  return undefined;
}

/**
 * What OCR does to printed numbers and nothing else does: points lost after a leading zero and
 * ranges run together. Only for OCR readings (a text layer never loses a point); each repair
 * lowers the confidence so the result is shown for review.
 */
function ocrRepaired(raw: RawResult, entry?: BiomarkerEntry): { raw: RawResult; reasons: string[] } {
  if (raw.ocrConfidence === undefined) return { raw, reasons: [] };
  const reasons: string[] = [];
  let repaired = raw;
  const value = raw.value === undefined ? undefined : leadingZeroRestored(raw.value);
  if (value) {
    repaired = { ...repaired, value };
    reasons.push('decimal point restored in the value');
  }
  const range = raw.referenceText ? ocrRangeRestored(rangeText(raw.referenceText)) : undefined;
  if (range) {
    repaired = { ...repaired, referenceText: range };
    reasons.push('decimal point or dash restored in the range');
  }
  const units = repaired.units;
  if (units && entry) {
    const codes = [entry.ucum, ...(entry.alternates ?? []).map((alternate) => alternate.ucum)].filter(
      (code): code is string => code !== undefined,
    );
    // A known unit OCR read with a look-alike letter (`ulU/mL`) in its usual spelling; an unknown
    // one matched to the nearest of the test's own.
    const nearest = ucumFor(units) ? displayUnit(units) : nearestUnit(units, codes);
    if (nearest && nearest !== units) repaired = { ...repaired, units: nearest };
  }
  return { raw: repaired, reasons };
}

export function judgeResult(printed: RawResult, entry: BiomarkerEntry, fuzzyName: boolean): Judgement {
  const { raw, reasons } = ocrRepaired(printed, entry);
  let confidence = reasons.length > 0 ? 0.7 : 1;
  if (raw.ocrConfidence !== undefined) confidence *= 0.6 + (0.4 * Math.min(raw.ocrConfidence, 100)) / 100;
  if (fuzzyName) {
    confidence *= 0.85;
    reasons.push('name matched approximately');
  }
  const ucum = raw.units ? ucumFor(raw.units) : undefined;
  // Read along a row (no table titles to say which column is the result), a number counts only
  // with a unit or a range beside it: a bare number beside a word is a phone number, an ID, a date.
  if (raw.reading === 'row' && !raw.units && !raw.referenceText)
    return { emit: false, reason: `"${raw.value}" has neither a unit nor a range beside it` };
  // Labs never print a whole number with a leading zero (`02`, `007`): that is a code or a date part.
  if (raw.value !== undefined && /^0\d/.test(raw.value))
    return { emit: false, reason: `"${raw.value}" is not how a result is printed` };
  let result: RawResult = { ...raw };
  let printedRange = raw.referenceText ? rangeText(raw.referenceText) : undefined;
  const fixedEnds = printedRange ? repairedRangeEnds(printedRange) : undefined;
  if (fixedEnds) {
    printedRange = fixedEnds;
    result = { ...result, referenceText: fixedEnds };
    confidence = Math.min(confidence, 0.7);
    reasons.push('decimal point restored in the range');
  }
  const rescaled = raw.ocrConfidence === undefined ? undefined : offScale(raw, printedRange, entry, ucum);
  if (rescaled) {
    printedRange = rescaled.range;
    result = {
      ...result,
      referenceText: rescaled.range,
      ...(rescaled.value ? { value: rescaled.value } : {}),
    };
    confidence = Math.min(confidence, 0.6);
    reasons.push(`decimal points restored in the range${rescaled.value ? ' and the value' : ''}`);
  }
  let range = printedRange ? parseRange(printedRange) : undefined;
  const value = result.value === undefined ? undefined : parseNumber(result.value.replace(/^[<>≤≥]/, ''));
  if (value !== undefined) {
    const plausible = withinLimits(entry, value, ucum);
    if (plausible === false || !sameScale(value, range)) {
      // A point is never put into a reading the engine itself doubts: `38 L` read `381L` at
      // confidence 10 became 38.1; such a value is dropped instead (wrong is worse than missing).
      const doubtful = raw.ocrConfidence !== undefined && raw.ocrConfidence < DOUBTFUL_OCR;
      const repair = doubtful
        ? undefined
        : restoreDecimal(result.value!, value, entry, ucum, range, printedRange);
      if (repair?.value !== undefined) {
        result = { ...result, value: repair.value, ...(repair.range ? { referenceText: repair.range } : {}) };
        if (repair.range) range = parseRange(repair.range);
        confidence = Math.min(confidence, 0.6);
        reasons.push('decimal point restored in the value');
      } else if (repair?.range !== undefined) {
        result = { ...result, referenceText: repair.range };
        range = parseRange(repair.range);
        confidence = Math.min(confidence, 0.7);
        reasons.push('decimal point restored in the range');
      } else if (plausible === false) {
        return { emit: false, reason: `value ${result.value} is not a possible ${entry.name} result` };
      } else {
        confidence *= 0.6;
        reasons.push('value and printed range differ by more than a factor of 5');
      }
    }
    if (range && withinLimits(entry, range.upper ?? range.lower ?? 0, ucum) === false) {
      confidence = Math.min(confidence, 0.6);
      reasons.push('printed range outside what the test can be');
    }
    if (!range && plausible === undefined) confidence *= 0.85;
    const settled = result.value === undefined ? undefined : parseNumber(result.value.replace(/^[<>≤≥]/, ''));
    const direction = raw.flag ? FLAG_DIRECTION[raw.flag] : undefined;
    if (
      raw.ocrConfidence !== undefined &&
      range &&
      direction &&
      settled !== undefined &&
      !/^[<>≤≥]/.test(result.value!)
    ) {
      const verdict = judge(settled, range);
      if (verdict !== 'normal' && verdict !== direction) {
        // The printed flag says the other way (`241 L` beside 30-100): OCR lost a point (24.1 is
        // low) or misread a digit. The point is put back only when that agrees with the flag.
        const power = /^\d{2,}$/.test(result.value!)
          ? [1, 2].find((candidate) => judge(scaled(settled, candidate), range!) === direction)
          : undefined;
        if (power !== undefined && (raw.ocrConfidence ?? 0) >= DOUBTFUL_OCR) {
          result = { ...result, value: scaled(settled, power).toFixed(power) };
          reasons.push('decimal point restored in the value (the printed flag disagreed)');
        } else reasons.push('the printed flag disagrees with the value and range');
        confidence = Math.min(confidence, 0.6);
      }
    }
  }
  if (!raw.units && !raw.referenceText) confidence *= 0.85;
  return { emit: true, raw: result, confidence: Number(confidence.toFixed(2)), reasons };
}

/**
 * A range OCR read without its points (`39-55`, `120-220`, `07-31`) that is ten or a hundred times
 * any interval of the test (dictionary/typical-ranges.ts), while divided it is on scale: the range
 * divided, and the value with it when it was read on the range's scale without a point too (both
 * lost their points alike: `58` beside `39-55` is 5.8 beside 3.9-5.5).
 */
function offScale(
  raw: RawResult,
  printedRange: string | undefined,
  entry: BiomarkerEntry,
  ucum: string | undefined,
): { range: string; value?: string } | undefined {
  if (!printedRange || hasPoint(printedRange)) return undefined;
  const parsed = parseRange(printedRange);
  // Two whole ends (`39-55`) or one with its sign (`<170`, `>100`).
  const shape = /^(\d+)-(\d+)$|^([<>≤≥])(\d+)$/.exec(printedRange);
  if (!parsed || !shape) return undefined;
  const { lower, upper } = parsed;
  const divided = (power: number) => (end: number | undefined) =>
    end === undefined ? undefined : scaled(end, power);
  if (onTypicalScale(entry.key, lower, upper, ucum) !== false) return undefined;
  for (const power of [1, 2]) {
    if (!onTypicalScale(entry.key, divided(power)(lower), divided(power)(upper), ucum)) continue;
    const range = shape[1]
      ? rangeScaled(printedRange, power)!
      : `${shape[3]}${scaled(Number(shape[4]), power).toFixed(power)}`;
    const value = raw.value === undefined ? undefined : parseNumber(raw.value);
    const valueToo =
      raw.value !== undefined &&
      /^\d{2,}$/.test(raw.value) &&
      value !== undefined &&
      sameScale(value, parsed);
    return valueToo ? { range, value: scaled(value, power).toFixed(power) } : { range };
  }
  return undefined;
}

function restoreDecimal(
  text: string,
  value: number,
  entry: BiomarkerEntry,
  ucum: string | undefined,
  range: ParsedRange | undefined,
  printedRange: string | undefined,
): { value?: string; range?: string } | undefined {
  const fits = (candidate: number, against: ParsedRange | undefined) =>
    withinLimits(entry, candidate, ucum) !== false && (!against || nearRange(candidate, against));
  // The value lost its point: only a whole number of two digits or more, and only when a range
  // (or the test's limits) says where the value belongs.
  // Without a range only one lost point is considered (the limits alone say little about the scale).
  if (/^\d{2,}$/.test(text) && (range || withinLimits(entry, value, ucum) === false))
    for (const power of range ? [1, 2] : [1]) {
      const candidate = scaled(value, power);
      if (fits(candidate, range)) return { value: candidate.toFixed(power) };
    }
  // Value and range lost their points alike (OCR: `56` beside `35-52` for 5.6 beside 3.5-5.2):
  // both scaled together, when the value cannot be the test's as read and both fit once scaled.
  if (
    /^\d{2,}$/.test(text) &&
    range &&
    printedRange &&
    !hasPoint(printedRange) &&
    withinLimits(entry, value, ucum) === false
  )
    for (const power of [1, 2]) {
      const candidate = scaled(value, power);
      const scaledRange = rangeScaled(printedRange, power);
      const parsed = scaledRange ? parseRange(scaledRange) : undefined;
      const ends = [parsed?.lower, parsed?.upper].filter((end): end is number => end !== undefined);
      if (parsed && fits(candidate, parsed) && ends.every((end) => withinLimits(entry, end, ucum) !== false))
        return { value: candidate.toFixed(power), range: scaledRange };
    }
  // The range lost its points (both ends whole numbers) and the value fits the range scaled down.
  // Only when the printed range cannot be the test's (RBC 45-55 ×10⁶/µL), or, for a test without
  // known limits, when the value falls inside the scaled range: a plausible range (neutrophils
  // 40-80 %) is never bent to fit a misread value (7 for 71); the value is marked instead.
  if (!range || !printedRange || hasPoint(printedRange) || withinLimits(entry, value, ucum) === false)
    return undefined;
  const ends = [range.lower, range.upper].filter((end): end is number => end !== undefined);
  const rangeImpossible = ends.some((end) => withinLimits(entry, end, ucum) === false);
  const limitsKnown = withinLimits(entry, value, ucum) !== undefined;
  if (limitsKnown && !rangeImpossible) return undefined;
  for (const power of [1, 2]) {
    const candidate = rangeScaled(printedRange, power);
    const parsed = candidate ? parseRange(candidate) : undefined;
    if (!candidate || !parsed || !sameScale(value, parsed)) continue;
    if (rangeImpossible ? nearRange(value, parsed) : judge(value, parsed) === 'normal')
      return { range: candidate };
  }
  return undefined;
}
