// The quantities a DXA report prints in its table columns, recognised by the column title, with
// the unit the title names (in parentheses) or the one the quantity is always given in. Each is a
// result key (`biomarker.key`); the region of the row scopes it.

export type Measure = {
  key: string;
  displayName: string;
  /** The unit when the title names none (a score has none). */
  defaultUnit?: string;
  /** Bone density scores are read against the WHO and ISCD thresholds (interpretation.ts). */
  score?: 't' | 'z';
};

const MEASURES: [RegExp, Measure][] = [
  [/^bmd\b/, { key: 'bone_mineral_density', displayName: 'Bone mineral density', defaultUnit: 'g/cm2' }],
  [/^bmc\b/, { key: 'bone_mineral_content', displayName: 'Bone mineral content', defaultUnit: 'g' }],
  [/^area\b/, { key: 'bone_area', displayName: 'Scanned bone area', defaultUnit: 'cm2' }],
  [/(^|\b)(young[- ]adult )?t[- ]?score\b/, { key: 't_score', displayName: 'T-score', score: 't' }],
  [/(^|\b)(age[- ]matched )?z[- ]?score\b/, { key: 'z_score', displayName: 'Z-score', score: 'z' }],
  [
    /^region \(?% ?fat\)?$/,
    { key: 'region_fat_percent', displayName: 'Region fat (% of region mass)', defaultUnit: '%' },
  ],
  [
    /^(% ?fat|fat ?%|tissue \(?% ?fat\)?|body fat ?%?)$/,
    { key: 'fat_percent', displayName: 'Fat (% of tissue)', defaultUnit: '%' },
  ],
  [/^fat( mass)?\b/, { key: 'fat_mass', displayName: 'Fat mass', defaultUnit: 'g' }],
  [
    /^lean ?\+ ?bmc\b/,
    { key: 'lean_plus_bmc_mass', displayName: 'Lean mass with bone mineral content', defaultUnit: 'g' },
  ],
  [/^lean( mass)?\b/, { key: 'lean_mass', displayName: 'Lean mass', defaultUnit: 'g' }],
  [/^tissue\b/, { key: 'tissue_mass', displayName: 'Soft tissue mass (fat and lean)', defaultUnit: 'g' }],
  [/^total( mass)?\b/, { key: 'total_mass', displayName: 'Total mass', defaultUnit: 'g' }],
];

/** Printed units to UCUM. */
const UCUM: Record<string, string> = {
  'g/cm2': 'g/cm2',
  'g/cm²': 'g/cm2',
  cm2: 'cm2',
  'cm²': 'cm2',
  g: 'g',
  kg: 'kg',
  lb: '[lb_av]',
  lbs: '[lb_av]',
  '%': '%',
};

export type Column = { measure: Measure; units?: string; ucum?: string };

/** The column a title names (and its unit), or undefined when it is no DXA quantity. */
export function columnOf(title: string): Column | undefined {
  const text = title.toLowerCase().replace(/\s+/g, ' ').trim();
  const unitMatch = /\(([^()]*)\)\s*$/.exec(text);
  const printedUnit = unitMatch?.[1]?.trim();
  const unitIsPercentFat = printedUnit !== undefined && /%\s*fat/.test(printedUnit);
  const bare = unitMatch && !unitIsPercentFat ? text.slice(0, unitMatch.index).trim() : text;
  const found = MEASURES.find(([pattern]) => pattern.test(bare));
  if (!found) return undefined;
  const measure = found[1];
  const units = printedUnit && !unitIsPercentFat && UCUM[printedUnit] ? printedUnit : measure.defaultUnit;
  return { measure, ...(units ? { units, ucum: UCUM[units] ?? units } : {}) };
}

/** A unit printed alone under a title (a second header line such as "(g/cm²)"). */
export function unitLine(text: string): string | undefined {
  const match = /^\(([^()]+)\)$/.exec(text.trim());
  return match && UCUM[match[1]!.trim().toLowerCase()] ? match[1]!.trim() : undefined;
}
