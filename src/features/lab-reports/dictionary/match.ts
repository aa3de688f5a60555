// Finding a printed test name in the dictionary. Names are compared in a normal form (lowercase,
// punctuation as spaces, common OCR confusions undone); an exact synonym wins, then the longest
// synonym found as whole words inside the printed name ("Glucose, Serum (fasting)" → glucose…).
// The printed unit decides between a count and its percentage sibling (Neutrophils % vs ×10³/µL).
import { BIOMARKERS, type BiomarkerEntry } from './biomarkers.ts';
import { canonicalUnitText } from './units.ts';

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
