// Finding a printed test name in the dictionary. Names are compared in a normal form (lowercase,
// punctuation as spaces, common OCR confusions undone); an exact synonym wins, then the longest
// synonym found as whole words inside the printed name ("Glucose, Serum (fasting)" → glucose…).
// The printed unit decides between a count and its percentage sibling (Neutrophils % vs ×10³/µL).
import { BIOMARKERS, type BiomarkerEntry } from './biomarkers.ts';
import { canonicalUnitText, ucumFor } from './units.ts';

/** Lowercase, OCR slips undone (`Alc` → `a1c`), punctuation reduced to single spaces. */
export function normalName(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[’']/g, '')
      // OCR reads the 1 in "A1c"/"B12" as l or I.
      .replace(/\ba[li]c\b/g, 'a1c')
      .replace(/\bb[li]2\b/g, 'b12')
      .replace(/[^a-z0-9%#/+-]+/g, ' ')
      .replace(/\s*([/-])\s*/g, '$1')
      .replace(/\s+/g, ' ')
      .trim()
  );
}

const BY_KEY = new Map(BIOMARKERS.map((entry) => [entry.key, entry]));
const BY_SYNONYM = new Map<string, BiomarkerEntry>();
for (const entry of BIOMARKERS) {
  for (const name of [entry.name, ...entry.synonyms]) {
    const normal = normalName(name);
    if (!BY_SYNONYM.has(normal)) BY_SYNONYM.set(normal, entry);
  }
}
/** Longest first, so "hdl cholesterol" is tried before "cholesterol". */
const SYNONYMS_BY_LENGTH = [...BY_SYNONYM.keys()]
  .filter((name) => name.length >= 3)
  .sort((a, b) => b.length - a.length);

/** Whether the text is, as a whole, a name the dictionary knows. */
export function isKnownName(text: string): boolean {
  return BY_SYNONYM.has(normalName(text));
}

export function biomarkerByKey(key: string): BiomarkerEntry | undefined {
  return BY_KEY.get(key);
}

function containsWords(haystack: string, needle: string): boolean {
  const at = haystack.indexOf(needle);
  if (at < 0) return false;
  const before = at === 0 ? ' ' : haystack[at - 1]!;
  const after = haystack[at + needle.length] ?? ' ';
  return before === ' ' && (after === ' ' || after === ',');
}

/** Drops qualifiers labs append that do not change the test (", serum", "(calc)"). */
function withoutQualifiers(normal: string): string {
  return normal
    .replace(
      /\b(serum|plasma|blood|whole blood|s|p|calc|calculated|level|result|test|quant|quantitative)\b/g,
      ' ',
    )
    .replace(/\s+/g, ' ')
    .trim();
}

/** The dictionary entry a printed name refers to, or undefined (never a guess below a whole-word match). */
export function matchBiomarker(printedName: string, printedUnit?: string): BiomarkerEntry | undefined {
  const normal = normalName(printedName);
  if (!normal) return undefined;
  let found = BY_SYNONYM.get(normal) ?? BY_SYNONYM.get(withoutQualifiers(normal));
  if (!found) {
    const name = normal.length > 3 ? normal : '';
    const hit = name ? SYNONYMS_BY_LENGTH.find((synonym) => containsWords(name, synonym)) : undefined;
    found = hit ? BY_SYNONYM.get(hit) : undefined;
  }
  return found ? bySiblingUnit(found, printedName, printedUnit) : undefined;
}

function bySiblingUnit(entry: BiomarkerEntry, printedName: string, printedUnit?: string): BiomarkerEntry {
  const percentPrinted = printedUnit !== undefined && canonicalUnitText(printedUnit) === '%';
  if (entry.percentOf && (percentPrinted || /%/.test(printedName)))
    return BY_KEY.get(entry.percentOf) ?? entry;
  if (!percentPrinted && printedUnit) {
    const absolute = BIOMARKERS.find((candidate) => candidate.percentOf === entry.key);
    if (absolute) return absolute;
  }
  return entry;
}

/** Edits (insertions, deletions, substitutions) between two strings, stopping early past `limit`. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      best = Math.min(best, current[j]!);
    }
    if (best > limit) return limit + 1;
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The dictionary entry of a printed name, and whether it was found only approximately: one
 * misread letter in a name of five or more letters, two in one of ten or more (`Hemoglobim`,
 * `Creatinme`), and only when a single entry is that close. Short names (`Na`, `K`) never match
 * approximately.
 */
export function findBiomarker(
  printedName: string,
  printedUnit?: string,
): { entry: BiomarkerEntry; fuzzy: boolean } | undefined {
  const exact = matchBiomarker(printedName, printedUnit);
  if (exact) return { entry: exact, fuzzy: false };
  const normal = withoutQualifiers(normalName(printedName));
  if (normal.length < 5) {
    const confused = confusedName(normal, printedUnit);
    return confused ? { entry: bySiblingUnit(confused, printedName, printedUnit), fuzzy: true } : undefined;
  }
  const limit = normal.length >= 10 ? 2 : 1;
  let best: { synonym: string; distance: number } | undefined;
  let tied = false;
  for (const synonym of SYNONYMS_BY_LENGTH) {
    if (synonym.length < 5) continue;
    const distance = editDistance(normal, synonym, limit);
    if (distance > limit) continue;
    const entry = BY_SYNONYM.get(synonym)!;
    if (!best || distance < best.distance) {
      best = { synonym, distance };
      tied = false;
    } else if (distance === best.distance && BY_SYNONYM.get(best.synonym) !== entry) tied = true;
  }
  if (!best || tied) return undefined;
  return { entry: bySiblingUnit(BY_SYNONYM.get(best.synonym)!, printedName, printedUnit), fuzzy: true };
}

/**
 * Letters OCR takes for one another in printed names (lowercased): a capital I read as f, l, 1,
 * t, j or a bar; rn for m and back; cl for d; a round letter for another. Each pair is tried
 * both ways.
 */
const NAME_CONFUSIONS: [string, string][] = [
  ['i', 'f'],
  ['i', 'l'],
  ['i', '1'],
  ['i', 't'],
  ['i', 'j'],
  ['m', 'rn'],
  ['d', 'cl'],
  ['o', '0'],
  ['o', 'c'],
  ['e', 'c'],
  ['s', '5'],
];

/** The UCUM codes a test is reported in. */
const unitsOf = (entry: BiomarkerEntry) =>
  [entry.ucum, ...(entry.alternates ?? []).map((alternate) => alternate.ucum)].filter(Boolean);

/**
 * A short name (too short for an approximate match: one edit from `Iron` is also `Irin`, `Iso`…)
 * with one OCR letter confusion undone (`fron` → `iron`): taken only when the result is exactly
 * one dictionary name and the unit printed beside it is one the test is reported in, so the
 * unit confirms what the letters alone cannot.
 */
function confusedName(normal: string, printedUnit: string | undefined): BiomarkerEntry | undefined {
  const ucum = printedUnit ? ucumFor(printedUnit) : undefined;
  if (!ucum || normal.length < 3) return undefined;
  const found = new Set<BiomarkerEntry>();
  for (const [a, b] of NAME_CONFUSIONS)
    for (const [from, to] of [
      [a, b],
      [b, a],
    ] as const) {
      for (let at = normal.indexOf(from); at >= 0; at = normal.indexOf(from, at + 1)) {
        const candidate = normal.slice(0, at) + to + normal.slice(at + from.length);
        const entry = BY_SYNONYM.get(candidate);
        if (entry) found.add(entry);
      }
    }
  if (found.size !== 1) return undefined;
  const [entry] = [...found] as [BiomarkerEntry];
  return unitsOf(entry).includes(ucum) ? entry : undefined;
}
