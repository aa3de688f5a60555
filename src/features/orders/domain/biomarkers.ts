// Biomarkers measured by the sample catalog, and the adult reference ranges the sandbox uses to
// generate and interpret results. What a biomarker is (its name, LOINC code and UCUM unit) comes
// from the service's one dictionary (model/biomarkers.ts), which the lab-report reader reads too;
// this module adds only what the sandbox lab reports. Ranges are typical published adult
// intervals, good enough for a sandbox; a real lab reports its own.
import { dictionaryEntry } from '../../../model/biomarkers.ts';

/** Inclusive bounds; a missing side means the range is open on that side (e.g. LDL "< 100"). */
export interface ReferenceRange {
  low?: number;
  high?: number;
}

export interface Biomarker {
  /** The dictionary entry's key. */
  key: string;
  /** LOINC code of the observation. */
  loinc: string;
  /** LOINC long common name, used as the coding display. */
  loinc_display: string;
  /** What a person reads on a report. */
  name: string;
  /** UCUM code (http://unitsofmeasure.org). */
  ucum: string;
  /** The same unit as people write it. */
  unit: string;
  /** Decimal places the lab reports; results are rounded to this before interpretation. */
  decimals: number;
  reference_range: ReferenceRange;
  /** Where a range depends on sex at birth, these replace `reference_range`. */
  reference_range_by_sex?: { male: ReferenceRange; female: ReferenceRange };
}

/** What the sandbox adds to a dictionary entry. */
type SandboxFacts = Omit<Biomarker, 'key' | 'loinc' | 'name' | 'ucum'>;

/** The dictionary entry `key` as the order API reports it: coded in its conventional unit. */
function measured<const T extends SandboxFacts>(key: string, facts: T) {
  const entry = dictionaryEntry(key);
  if (!entry.loinc || !entry.ucum) throw new Error(`biomarker "${key}" has no LOINC code or unit`);
  return { key, loinc: entry.loinc, name: entry.name, ucum: entry.ucum, ...facts };
}

const SERUM = 'in Serum or Plasma';

export const BIOMARKERS = {
  total_cholesterol: measured('cholesterol_total', {
    loinc_display: `Cholesterol [Mass/volume] ${SERUM}`,
    unit: 'mg/dL',
    decimals: 0,
    reference_range: { high: 199 },
  }),
  hdl_cholesterol: measured('hdl', {
    loinc_display: `Cholesterol in HDL [Mass/volume] ${SERUM}`,
    unit: 'mg/dL',
    decimals: 0,
    reference_range: { low: 40 },
    reference_range_by_sex: { male: { low: 40 }, female: { low: 50 } },
  }),
  ldl_cholesterol: measured('ldl', {
    loinc_display: `Cholesterol in LDL [Mass/volume] ${SERUM} by calculation`,
    unit: 'mg/dL',
    decimals: 0,
    reference_range: { high: 99 },
  }),
  triglycerides: measured('triglycerides', {
    loinc_display: `Triglyceride [Mass/volume] ${SERUM}`,
    unit: 'mg/dL',
    decimals: 0,
    reference_range: { high: 149 },
  }),
  hba1c: measured('hba1c', {
    loinc_display: 'Hemoglobin A1c/Hemoglobin.total in Blood',
    unit: '%',
    decimals: 1,
    reference_range: { low: 4.0, high: 5.6 },
  }),
  vitamin_d: measured('vitamin_d', {
    loinc_display: `25-Hydroxyvitamin D2+D3 [Mass/volume] ${SERUM}`,
    unit: 'ng/mL',
    decimals: 0,
    reference_range: { low: 30, high: 100 },
  }),
  tsh: measured('tsh', {
    loinc_display: `Thyrotropin [Units/volume] ${SERUM}`,
    unit: 'mIU/L',
    decimals: 2,
    reference_range: { low: 0.45, high: 4.5 },
  }),
  free_t4: measured('free_t4', {
    loinc_display: `Thyroxine (T4) free [Mass/volume] ${SERUM}`,
    unit: 'ng/dL',
    decimals: 2,
    reference_range: { low: 0.82, high: 1.77 },
  }),
  free_t3: measured('free_t3', {
    loinc_display: `Triiodothyronine (T3) Free [Mass/volume] ${SERUM}`,
    unit: 'pg/mL',
    decimals: 1,
    reference_range: { low: 2.0, high: 4.4 },
  }),
  total_testosterone: measured('testosterone_total', {
    loinc_display: `Testosterone [Mass/volume] ${SERUM}`,
    unit: 'ng/dL',
    decimals: 0,
    reference_range: { low: 264, high: 916 },
    reference_range_by_sex: { male: { low: 264, high: 916 }, female: { low: 8, high: 60 } },
  }),
  free_testosterone: measured('testosterone_free', {
    loinc_display: `Testosterone Free [Mass/volume] ${SERUM}`,
    unit: 'pg/mL',
    decimals: 1,
    reference_range: { low: 46, high: 224 },
    reference_range_by_sex: { male: { low: 46, high: 224 }, female: { high: 4.2 } },
  }),
  shbg: measured('shbg', {
    loinc_display: `Sex hormone binding globulin [Moles/volume] ${SERUM}`,
    unit: 'nmol/L',
    decimals: 1,
    reference_range: { low: 16.5, high: 55.9 },
    reference_range_by_sex: { male: { low: 16.5, high: 55.9 }, female: { low: 24.6, high: 122 } },
  }),
  glucose: measured('glucose', {
    loinc_display: `Glucose [Mass/volume] ${SERUM}`,
    unit: 'mg/dL',
    decimals: 0,
    reference_range: { low: 70, high: 99 },
  }),
  bun: measured('bun', {
    loinc_display: `Urea nitrogen [Mass/volume] ${SERUM}`,
    unit: 'mg/dL',
    decimals: 0,
    reference_range: { low: 6, high: 20 },
  }),
  creatinine: measured('creatinine', {
    loinc_display: `Creatinine [Mass/volume] ${SERUM}`,
    unit: 'mg/dL',
    decimals: 2,
    reference_range: { low: 0.57, high: 1.27 },
    reference_range_by_sex: { male: { low: 0.76, high: 1.27 }, female: { low: 0.57, high: 1.0 } },
  }),
  sodium: measured('sodium', {
    loinc_display: `Sodium [Moles/volume] ${SERUM}`,
    unit: 'mmol/L',
    decimals: 0,
    reference_range: { low: 134, high: 144 },
  }),
  potassium: measured('potassium', {
    loinc_display: `Potassium [Moles/volume] ${SERUM}`,
    unit: 'mmol/L',
    decimals: 1,
    reference_range: { low: 3.5, high: 5.2 },
  }),
  chloride: measured('chloride', {
    loinc_display: `Chloride [Moles/volume] ${SERUM}`,
    unit: 'mmol/L',
    decimals: 0,
    reference_range: { low: 96, high: 106 },
  }),
  carbon_dioxide: measured('carbon_dioxide', {
    loinc_display: `Carbon dioxide, total [Moles/volume] ${SERUM}`,
    unit: 'mmol/L',
    decimals: 0,
    reference_range: { low: 20, high: 29 },
  }),
  calcium: measured('calcium', {
    loinc_display: `Calcium [Mass/volume] ${SERUM}`,
    unit: 'mg/dL',
    decimals: 1,
    reference_range: { low: 8.7, high: 10.2 },
  }),
  total_protein: measured('total_protein', {
    loinc_display: `Protein [Mass/volume] ${SERUM}`,
    unit: 'g/dL',
    decimals: 1,
    reference_range: { low: 6.0, high: 8.5 },
  }),
  albumin: measured('albumin', {
    loinc_display: `Albumin [Mass/volume] ${SERUM}`,
    unit: 'g/dL',
    decimals: 1,
    reference_range: { low: 3.8, high: 4.9 },
  }),
  total_bilirubin: measured('bilirubin_total', {
    loinc_display: `Bilirubin.total [Mass/volume] ${SERUM}`,
    unit: 'mg/dL',
    decimals: 1,
    reference_range: { high: 1.2 },
  }),
  alkaline_phosphatase: measured('alkaline_phosphatase', {
    loinc_display: `Alkaline phosphatase [Enzymatic activity/volume] ${SERUM}`,
    unit: 'U/L',
    decimals: 0,
    reference_range: { low: 44, high: 121 },
  }),
  ast: measured('ast', {
    loinc_display: `Aspartate aminotransferase [Enzymatic activity/volume] ${SERUM}`,
    unit: 'U/L',
    decimals: 0,
    reference_range: { high: 40 },
  }),
  alt: measured('alt', {
    loinc_display: `Alanine aminotransferase [Enzymatic activity/volume] ${SERUM}`,
    unit: 'U/L',
    decimals: 0,
    reference_range: { high: 44 },
  }),
} as const satisfies Record<string, Biomarker>;

export type BiomarkerKey = keyof typeof BIOMARKERS;

export type SexAtBirth = 'male' | 'female';

/** The range that applies to this person: sex-specific where the biomarker has one. */
export function referenceRangeFor(biomarker: Biomarker, sex: SexAtBirth | undefined): ReferenceRange {
  if (sex && biomarker.reference_range_by_sex) return biomarker.reference_range_by_sex[sex];
  return biomarker.reference_range;
}

/** Human text for a range, e.g. "70-99 mg/dL", "<=99 mg/dL", ">=40 mg/dL". */
export function describeRange(range: ReferenceRange, unit: string): string {
  if (range.low !== undefined && range.high !== undefined) return `${range.low}-${range.high} ${unit}`;
  if (range.high !== undefined) return `<=${range.high} ${unit}`;
  if (range.low !== undefined) return `>=${range.low} ${unit}`;
  return 'not established';
}
