// Reference ranges printed per sex in one cell: `M: 13.5-17.5 F: 12.0-15.5`, `Male 30-400
// Female 13-150`, `Men >39 / Women >49`. Which one applies is the patient's sex (read from the
// report's header, metadata.ts); when the report does not say, neither is applied (no flag is
// computed from a range that may be the other sex's).
import { tidy, type RangesBySex } from './parse-values.ts';

// ≤ and ≥ as RegExp escapes: raw template text stays as written in the bundle (scripts/ascii-chunk.ts).
const BOUND = String.raw`[<>\u2264\u2265]?\d+(?:\.\d+)?(?:-\d+(?:\.\d+)?)?`;
const LABELLED = new RegExp(
  String.raw`(?:^|[\s/;,(])(males?|men|m|females?|women|f)\)?\s*[:=]?\s*(${BOUND})(?=$|[\s/;,)])`,
  'gi',
);

/** The male and female ranges of a printed cell, or undefined unless both are printed. */
export function rangesBySex(printed: string): RangesBySex | undefined {
  const found: Partial<RangesBySex> = {};
  for (const match of tidy(printed).matchAll(LABELLED)) {
    const sex = /^(f|w)/i.test(match[1]!) ? 'female' : 'male';
    found[sex] ??= match[2]!;
  }
  return found.male && found.female ? { male: found.male, female: found.female } : undefined;
}

/** The range that applies to the patient, or the printed text as is when their sex is unknown. */
export function rangeForPatient(
  printed: string,
  bySex: RangesBySex,
  sex: 'female' | 'male' | undefined,
): string {
  return sex ? bySex[sex] : printed;
}
