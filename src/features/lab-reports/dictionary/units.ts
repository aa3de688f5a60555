// Printed units → UCUM codes. Labs print the same unit many ways (`x10E3/uL`, `K/uL`, `10^3/µL`);
// the measurement keeps the printed text and adds the UCUM code when the spelling is known.
// Unknown spellings keep their text and get no code (never a guessed one).

/** Spellings compared after `canonicalUnitText` (lowercase, µ→u, no spaces). */
const UCUM_BY_SPELLING: Record<string, string> = {
  'mg/dl': 'mg/dL',
  'g/dl': 'g/dL',
  'g/l': 'g/L',
  'mg/l': 'mg/L',
  'ug/dl': 'ug/dL',
  'mcg/dl': 'ug/dL',
  'ug/l': 'ug/L',
  'mcg/l': 'ug/L',
  'ug/ml': 'ug/mL',
  'mcg/ml': 'ug/mL',
  'ng/ml': 'ng/mL',
  'ng/dl': 'ng/dL',
  'ng/l': 'ng/L',
  'pg/ml': 'pg/mL',
  'mmol/l': 'mmol/L',
  'umol/l': 'umol/L',
  'nmol/l': 'nmol/L',
  'pmol/l': 'pmol/L',
  'mmol/mol': 'mmol/mol',
  'meq/l': 'meq/L',
  'u/l': 'U/L',
  'iu/l': '[IU]/L',
  'miu/l': 'm[IU]/L',
  'miu/ml': 'm[IU]/mL',
  'uiu/ml': 'u[IU]/mL',
  'iu/ml': '[IU]/mL',
  'u/ml': 'U/mL',
  'ku/l': 'k[IU]/L',
  'mu/l': 'mU/L',
  'uu/ml': 'u[IU]/mL',
  '%': '%',
  fl: 'fL',
  pg: 'pg',
  'x10e3/ul': '10*3/uL',
  'x10^3/ul': '10*3/uL',
  '10^3/ul': '10*3/uL',
  '10*3/ul': '10*3/uL',
  'k/ul': '10*3/uL',
  'thou/ul': '10*3/uL',
  'x10e6/ul': '10*6/uL',
  'x10^6/ul': '10*6/uL',
  '10^6/ul': '10*6/uL',
  '10*6/ul': '10*6/uL',
  'm/ul': '10*6/uL',
  'mill/ul': '10*6/uL',
  'x10^9/l': '10*9/L',
  'x10e9/l': '10*9/L',
  '10^9/l': '10*9/L',
  '10*9/l': '10*9/L',
  'x10^12/l': '10*12/L',
  'x10e12/l': '10*12/L',
  '10^12/l': '10*12/L',
  '10*12/l': '10*12/L',
  'l/l': 'L/L',
  // Counts per cubic millimetre (= per microlitre), as Indian and other labs print them.
  cumm: '/uL',
  '/cumm': '/uL',
  'cells/cumm': '/uL',
  '/mm3': '/uL',
  'cells/mm3': '/uL',
  'cells/ul': '/uL',
  'cells/mcl': '/uL',
  '/ul': '/uL',
  '/mcl': '/uL',
  'thou/cumm': '10*3/uL',
  'lakhs/cumm': '10*5/uL',
  'lakh/cumm': '10*5/uL',
  'mill/cumm': '10*6/uL',
  'million/cumm': '10*6/uL',
  'millions/cumm': '10*6/uL',
  'mill/mm3': '10*6/uL',
  'ml/min/1.73m2': 'mL/min/{1.73_m2}',
  'ml/min/1.73m^2': 'mL/min/{1.73_m2}',
  'ml/min/1.73': 'mL/min/{1.73_m2}',
  'mm/hr': 'mm/h',
  'mm/h': 'mm/h',
  sec: 's',
  s: 's',
  seconds: 's',
  ratio: '{ratio}',
  'mg/g': 'mg/g',
  'mg/gcreat': 'mg/g{creat}',
  'mg/mmol': 'mg/mmol',
  'mosm/kg': 'mosm/kg',
  'mg/24h': 'mg/(24.h)',
  'g/mol': 'g/mol',
};

export function canonicalUnitText(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[µμ]/g, 'u')
      .replace(/\s+/g, '')
      // OCR: the I of IU read as l, 1 or |; the caret of 10^9 read as a degree sign.
      .replace(/([um])[l1|]u\//, '$1iu/')
      .replace(/^u[l1|]{2}\//, 'uiu/')
      .replace(/[°?]/g, '^')
      .replace(/^x10[~^*7]?(3|6|9|12)\//, 'x10^$1/')
      .replace(/m\^2$/, 'm2')
  );
}

/** How units are written in results: the usual spelling of each (the printed text stays in source). */
const DISPLAY = [
  'mg/dL',
  'g/dL',
  'g/L',
  'mg/L',
  'ug/dL',
  'ug/L',
  'ug/mL',
  'ng/mL',
  'ng/dL',
  'ng/L',
  'pg/mL',
  'mmol/L',
  'umol/L',
  'nmol/L',
  'pmol/L',
  'mmol/mol',
  'mEq/L',
  'U/L',
  'IU/L',
  'mIU/L',
  'mIU/mL',
  'uIU/mL',
  'IU/mL',
  'U/mL',
  'kU/L',
  '%',
  'fL',
  'pg',
  'x10E3/uL',
  'x10E6/uL',
  'x10^3/uL',
  'x10^6/uL',
  'x10^9/L',
  'x10^12/L',
  'K/uL',
  'M/uL',
  'mL/min/1.73m2',
  'mm/hr',
  'mm/h',
  'sec',
  'ratio',
  'mg/g',
  'mOsm/kg',
];
const DISPLAY_BY_CANONICAL = new Map(DISPLAY.map((spelling) => [canonicalUnitText(spelling), spelling]));

/** The usual spelling of a printed unit when it is a known one (case and OCR slips undone), else the text. */
export function displayUnit(printed: string): string {
  return DISPLAY_BY_CANONICAL.get(canonicalUnitText(printed)) ?? printed.trim();
}

/** The UCUM code of a printed unit, or undefined when the spelling is not known. */
export function ucumFor(printed: string): string | undefined {
  return UCUM_BY_SPELLING[canonicalUnitText(printed)];
}

/** Whether a cell reads as a unit (a known spelling, or a clear `x/y` unit shape). */
export function looksLikeUnit(text: string): boolean {
  const canonical = canonicalUnitText(text);
  if (canonical in UCUM_BY_SPELLING) return true;
  return /^(x?10[e^*]\d+\/)?[a-z]{0,4}(\[?iu\]?)?\/(\d+(\.\d+)?)?[a-z]{1,5}(\d(\.\d+)?m\^?2)?$/.test(
    canonical,
  );
}

/** Characters OCR takes for one another in units: a substitution between them costs half. */
const LOOK_ALIKE = ['/il1|!', 'gqa9o', 'o0', 'un', 'ec', 'm', 'uv', 'l1'];
const lookAlike = (a: string, b: string) => LOOK_ALIKE.some((set) => set.includes(a) && set.includes(b));

/**
 * A slash and the letter after it that small, blurred type runs together into one letter: `/L`
 * read as `n` (`U/L` read `un`, in the page pass and again in the unit pass).
 */
const MERGED_SLASH: Record<string, string> = { n: '/l' };

/** Edits between two unit spellings, look-alike substitutions (and a merged slash) at half cost. */
function unitDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : lookAlike(a[i - 1]!, b[j - 1]!) ? 0.5 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (j >= 2 && MERGED_SLASH[a[i - 1]!] === b.slice(j - 2, j))
        current[j] = Math.min(current[j]!, previous[j - 2]! + 0.5);
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * A unit as OCR misread it (`mmoliL`, `ma/dL`, `mUmin/1.73m2`, `mmol`) matched to the one
 * spelling of the test's own units (`ucumCodes`: its conventional unit and alternates) it is
 * closest to: within one edit for short spellings, two from six characters, and only when no other
 * spelling of another unit is as close. Undefined when none is (the printed text is then kept).
 */
export function nearestUnit(printed: string, ucumCodes: readonly string[]): string | undefined {
  const text = canonicalUnitText(printed);
  if (!text || text in UCUM_BY_SPELLING) return undefined;
  const limit = text.length >= 6 ? 2 : 1;
  let best: { spelling: string; distance: number } | undefined;
  let tied = false;
  for (const [spelling, ucum] of Object.entries(UCUM_BY_SPELLING)) {
    if (!ucumCodes.includes(ucum)) continue;
    // The end of a unit lost at the edge of a cell (`mmol` for `mmol/L`): as close as one edit.
    const cut = text.length >= 3 && spelling.startsWith(`${text}/`) && spelling.length - text.length <= 2;
    const distance = cut ? 1 : unitDistance(text, spelling);
    if (distance > limit) continue;
    if (!best || distance < best.distance) {
      best = { spelling, distance };
      tied = false;
    } else if (distance === best.distance && UCUM_BY_SPELLING[best.spelling] !== ucum) tied = true;
  }
  if (!best || tied) return undefined;
  return DISPLAY_BY_CANONICAL.get(best.spelling) ?? best.spelling;
}
