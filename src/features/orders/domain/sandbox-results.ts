// Deterministic sandbox lab results. Values are derived from a hash of the order item id and the
// LOINC code, so the same item always yields the same report (downloads are repeatable, tests are
// stable) while different items differ. Most values land inside the reference range; about one in
// ten falls below it and one in ten above it, so integrations see H and L flags early.

import { createHash } from 'node:crypto';
import type { Biomarker, ReferenceRange, SexAtBirth } from './biomarkers.ts';
import { referenceRangeFor } from './biomarkers.ts';

/** HL7 v3 ObservationInterpretation codes used on sandbox results. */
export type Interpretation = 'L' | 'N' | 'H';

export interface BiomarkerResult {
  biomarker: Biomarker;
  value: number;
  /** The range this person's value was judged against. */
  reference_range: ReferenceRange;
  interpretation: Interpretation;
}

/** Share of values generated below and above the range (each, where that side exists). */
export const OUT_OF_RANGE_SHARE = 0.1;

/** Inclusive range check: a value equal to a bound is normal. */
export function interpret(value: number, range: ReferenceRange): Interpretation {
  if (range.low !== undefined && value < range.low) return 'L';
  if (range.high !== undefined && value > range.high) return 'H';
  return 'N';
}

export function generateSandboxResults(
  orderItemId: string,
  biomarkers: readonly Biomarker[],
  sex: SexAtBirth | undefined,
): BiomarkerResult[] {
  return biomarkers.map((biomarker) => {
    const range = referenceRangeFor(biomarker, sex);
    const [band, position] = uniformPair(`${orderItemId}|${biomarker.loinc}`);
    const value = round(pickValue(range, band, position), biomarker.decimals);
    // Interpreting the rounded value keeps flag and number consistent at the boundaries.
    return { biomarker, value, reference_range: range, interpretation: interpret(value, range) };
  });
}

/**
 * `band` chooses below / inside / above the range; `position` places the value within that band.
 * Open-ended ranges get a plausible width so in-range values are not all piled on the bound.
 */
function pickValue(range: ReferenceRange, band: number, position: number): number {
  const { low, high } = range;
  const floor = low ?? (high ?? 1) * 0.55;
  const ceiling = high ?? (low ?? 1) * 1.8;
  const width = ceiling - floor;
  // Excursions scale with the range (and, below it, with the bound) so they stay clinically plausible.
  const excursion = 0.05 + 0.3 * position;
  if (band < OUT_OF_RANGE_SHARE && low !== undefined) return low - excursion * Math.min(width, low);
  if (band > 1 - OUT_OF_RANGE_SHARE && high !== undefined) return high + excursion * width;
  return floor + position * width;
}

function round(value: number, decimals: number): number {
  const scale = 10 ** decimals;
  return Math.round(value * scale) / scale;
}

function uniformPair(seed: string): [number, number] {
  const bytes = createHash('sha256').update(seed).digest();
  return [bytes.readUInt32BE(0) / 2 ** 32, bytes.readUInt32BE(4) / 2 ** 32];
}
