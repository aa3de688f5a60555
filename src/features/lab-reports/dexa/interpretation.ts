// Bone density scores read against the published thresholds, as a computed interpretation (the
// report's own wording, "osteopenia" and the like, is not a flag of the result). T-score: the
// WHO's classification (normal at −1.0 and above; low bone mass below). Z-score: the ISCD's
// (−2.0 and below is "below the expected range for age"). Other DXA quantities carry none.
import type { LabResult } from '../result-types.ts';
import type { Measure } from './measures.ts';

const LOWER = { t: -1.0, z: -2.0 } as const;

export function interpretScore(measure: Measure, value: number): LabResult['interpretation'] {
  if (!measure.score) return { flag: null, source: 'none' };
  const lower = LOWER[measure.score];
  const low = measure.score === 't' ? value < lower : value <= lower;
  return { flag: low ? 'low' : 'normal', source: 'computed', applied_range: { lower } };
}
