// Unit conversions between the units the dictionary knows for a biomarker (conventional ↔ SI).
// Results are reported as printed; conversions serve consumers that want one unit, and the LOINC
// code of the printed form (LOINC codes mass and substance concentration separately).
import type { BiomarkerEntry } from './biomarkers.ts';

/** `value` from one UCUM unit to another for this biomarker, or undefined when no factor is known. */
export function convertValue(
  entry: BiomarkerEntry,
  value: number,
  fromUcum: string,
  toUcum: string,
): number | undefined {
  if (fromUcum === toUcum) return value;
  const main = entry.ucum;
  if (!main) return undefined;
  const toMain = fromUcum === main ? value : fromAlternate(entry, value, fromUcum);
  if (toMain === undefined) return undefined;
  if (toUcum === main) return toMain;
  const target = entry.alternates?.find((alternate) => alternate.ucum === toUcum);
  return target ? (toMain - (target.offset ?? 0)) * target.factor : undefined;
}

function fromAlternate(entry: BiomarkerEntry, value: number, ucum: string): number | undefined {
  const alternate = entry.alternates?.find((candidate) => candidate.ucum === ucum);
  return alternate ? value / alternate.factor + (alternate.offset ?? 0) : undefined;
}

/** The LOINC code of the biomarker as reported in `ucum` (the SI form's own code where it has one). */
export function loincFor(entry: BiomarkerEntry, ucum: string | undefined): string | undefined {
  const alternate = ucum ? entry.alternates?.find((candidate) => candidate.ucum === ucum) : undefined;
  return alternate?.loinc ?? entry.loinc;
}
