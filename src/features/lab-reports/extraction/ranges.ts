// Reference ranges in their printed forms (`70-99`, `4.8-5.6`, `<200`, `≤5.0`, `>39`, `≥60`) and
// the flag a value earns against one. Strict bounds (`<200`) exclude the bound; inclusive ones
// (`≤200`, and both ends of `a-b`) include it.
export type ParsedRange = {
  lower?: number;
  upper?: number;
  lowerInclusive: boolean;
  upperInclusive: boolean;
};

const BETWEEN = /^(-?\d+(?:\.\d+)?)-(-?\d+(?:\.\d+)?)$/;
const ONE_SIDED = /^([<>≤≥])(\d+(?:\.\d+)?)$/;

export function parseNumber(text: string): number | undefined {
  const cleaned = text.replace(/,(?=\d{3}\b)/g, '');
  if (!/^-?(\d+(\.\d+)?|\.\d+)$/.test(cleaned)) return undefined;
  const value = Number(cleaned);
  return Number.isFinite(value) ? value : undefined;
}

export function parseRange(text: string): ParsedRange | undefined {
  const compact = text.replace(/\s+/g, '');
  const between = BETWEEN.exec(compact);
  if (between) {
    const lower = Number(between[1]);
    const upper = Number(between[2]);
    if (lower > upper) return undefined;
    return { lower, upper, lowerInclusive: true, upperInclusive: true };
  }
  const oneSided = ONE_SIDED.exec(compact);
  if (!oneSided) return undefined;
  const bound = Number(oneSided[2]);
  switch (oneSided[1]) {
    case '<':
      return { upper: bound, upperInclusive: false, lowerInclusive: true };
    case '≤':
      return { upper: bound, upperInclusive: true, lowerInclusive: true };
    case '>':
      return { lower: bound, lowerInclusive: false, upperInclusive: true };
    default:
      return { lower: bound, lowerInclusive: true, upperInclusive: true };
  }
}

export type Verdict = 'low' | 'high' | 'normal';

/** A numeric value against a range. */
export function judge(value: number, range: ParsedRange): Verdict {
  if (range.lower !== undefined && (value < range.lower || (!range.lowerInclusive && value === range.lower)))
    return 'low';
  if (range.upper !== undefined && (value > range.upper || (!range.upperInclusive && value === range.upper)))
    return 'high';
  return 'normal';
}

/**
 * A one-sided value (`<0.5`, `>90`) against a range: a verdict only when every value the bound
 * allows gets the same one; otherwise undefined (no flag rather than a guess).
 */
export function judgeBound(operator: 'lt' | 'gt', bound: number, range: ParsedRange): Verdict | undefined {
  if (operator === 'lt') {
    if (range.lower !== undefined && range.lower > 0) return bound <= range.lower ? 'low' : undefined;
    return range.upper !== undefined && bound <= range.upper ? 'normal' : undefined;
  }
  if (range.upper !== undefined) return bound >= range.upper ? 'high' : undefined;
  return range.lower !== undefined && bound >= range.lower ? 'normal' : undefined;
}
