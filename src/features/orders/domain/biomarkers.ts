// Biomarkers measured by the sample catalog, coded in LOINC with UCUM units, and the adult
// reference ranges the sandbox uses to generate and interpret results. Ranges are typical
// published adult intervals, good enough for a sandbox; a real lab reports its own.

/** Inclusive bounds; a missing side means the range is open on that side (e.g. LDL "< 100"). */
export interface ReferenceRange {
  low?: number;
  high?: number;
}

export interface Biomarker {
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

const SERUM = 'in Serum or Plasma';

export const BIOMARKERS = {
  total_cholesterol: {
    loinc: '2093-3',
    loinc_display: `Cholesterol [Mass/volume] ${SERUM}`,
    name: 'Total cholesterol',
    ucum: 'mg/dL',
    unit: 'mg/dL',
    decimals: 0,
    reference_range: { high: 199 },
  },
  hdl_cholesterol: {
    loinc: '2085-9',
    loinc_display: `Cholesterol in HDL [Mass/volume] ${SERUM}`,
    name: 'HDL cholesterol',
    ucum: 'mg/dL',
    unit: 'mg/dL',
    decimals: 0,
    reference_range: { low: 40 },
    reference_range_by_sex: { male: { low: 40 }, female: { low: 50 } },
  },
  ldl_cholesterol: {
    loinc: '13457-7',
    loinc_display: `Cholesterol in LDL [Mass/volume] ${SERUM} by calculation`,
    name: 'LDL cholesterol (calculated)',
    ucum: 'mg/dL',
    unit: 'mg/dL',
    decimals: 0,
    reference_range: { high: 99 },
  },
  triglycerides: {
    loinc: '2571-8',
    loinc_display: `Triglyceride [Mass/volume] ${SERUM}`,
    name: 'Triglycerides',
    ucum: 'mg/dL',
    unit: 'mg/dL',
    decimals: 0,
    reference_range: { high: 149 },
  },
  hba1c: {
    loinc: '4548-4',
    loinc_display: 'Hemoglobin A1c/Hemoglobin.total in Blood',
    name: 'HbA1c',
    ucum: '%',
    unit: '%',
    decimals: 1,
    reference_range: { low: 4.0, high: 5.6 },
  },
  vitamin_d: {
    loinc: '62292-8',
    loinc_display: `25-Hydroxyvitamin D2+D3 [Mass/volume] ${SERUM}`,
    name: 'Vitamin D, 25-hydroxy',
    ucum: 'ng/mL',
    unit: 'ng/mL',
    decimals: 0,
    reference_range: { low: 30, high: 100 },
  },
  tsh: {
    loinc: '3016-3',
    loinc_display: `Thyrotropin [Units/volume] ${SERUM}`,
    name: 'TSH',
    ucum: 'm[IU]/L',
    unit: 'mIU/L',
    decimals: 2,
    reference_range: { low: 0.45, high: 4.5 },
  },
  free_t4: {
    loinc: '3024-7',
    loinc_display: `Thyroxine (T4) free [Mass/volume] ${SERUM}`,
    name: 'Free T4',
    ucum: 'ng/dL',
    unit: 'ng/dL',
    decimals: 2,
    reference_range: { low: 0.82, high: 1.77 },
  },
  free_t3: {
    loinc: '3051-0',
    loinc_display: `Triiodothyronine (T3) Free [Mass/volume] ${SERUM}`,
    name: 'Free T3',
    ucum: 'pg/mL',
    unit: 'pg/mL',
    decimals: 1,
    reference_range: { low: 2.0, high: 4.4 },
  },
  total_testosterone: {
    loinc: '2986-8',
    loinc_display: `Testosterone [Mass/volume] ${SERUM}`,
    name: 'Total testosterone',
    ucum: 'ng/dL',
    unit: 'ng/dL',
    decimals: 0,
    reference_range: { low: 264, high: 916 },
    reference_range_by_sex: { male: { low: 264, high: 916 }, female: { low: 8, high: 60 } },
  },
  free_testosterone: {
    loinc: '2991-8',
    loinc_display: `Testosterone Free [Mass/volume] ${SERUM}`,
    name: 'Free testosterone',
    ucum: 'pg/mL',
    unit: 'pg/mL',
    decimals: 1,
    reference_range: { low: 46, high: 224 },
    reference_range_by_sex: { male: { low: 46, high: 224 }, female: { high: 4.2 } },
  },
  shbg: {
    loinc: '13967-5',
    loinc_display: `Sex hormone binding globulin [Moles/volume] ${SERUM}`,
    name: 'SHBG',
    ucum: 'nmol/L',
    unit: 'nmol/L',
    decimals: 1,
    reference_range: { low: 16.5, high: 55.9 },
    reference_range_by_sex: { male: { low: 16.5, high: 55.9 }, female: { low: 24.6, high: 122 } },
  },
  glucose: {
    loinc: '2345-7',
    loinc_display: `Glucose [Mass/volume] ${SERUM}`,
    name: 'Glucose',
    ucum: 'mg/dL',
    unit: 'mg/dL',
    decimals: 0,
    reference_range: { low: 70, high: 99 },
  },
  bun: {
    loinc: '3094-0',
    loinc_display: `Urea nitrogen [Mass/volume] ${SERUM}`,
    name: 'Blood urea nitrogen',
    ucum: 'mg/dL',
    unit: 'mg/dL',
    decimals: 0,
    reference_range: { low: 6, high: 20 },
  },
  creatinine: {
    loinc: '2160-0',
    loinc_display: `Creatinine [Mass/volume] ${SERUM}`,
    name: 'Creatinine',
    ucum: 'mg/dL',
    unit: 'mg/dL',
    decimals: 2,
    reference_range: { low: 0.57, high: 1.27 },
    reference_range_by_sex: { male: { low: 0.76, high: 1.27 }, female: { low: 0.57, high: 1.0 } },
  },
  sodium: {
    loinc: '2951-2',
    loinc_display: `Sodium [Moles/volume] ${SERUM}`,
    name: 'Sodium',
    ucum: 'mmol/L',
    unit: 'mmol/L',
    decimals: 0,
    reference_range: { low: 134, high: 144 },
  },
  potassium: {
    loinc: '2823-3',
    loinc_display: `Potassium [Moles/volume] ${SERUM}`,
    name: 'Potassium',
    ucum: 'mmol/L',
    unit: 'mmol/L',
    decimals: 1,
    reference_range: { low: 3.5, high: 5.2 },
  },
  chloride: {
    loinc: '2075-0',
    loinc_display: `Chloride [Moles/volume] ${SERUM}`,
    name: 'Chloride',
    ucum: 'mmol/L',
    unit: 'mmol/L',
    decimals: 0,
    reference_range: { low: 96, high: 106 },
  },
  carbon_dioxide: {
    loinc: '2028-9',
    loinc_display: `Carbon dioxide, total [Moles/volume] ${SERUM}`,
    name: 'Carbon dioxide, total',
    ucum: 'mmol/L',
    unit: 'mmol/L',
    decimals: 0,
    reference_range: { low: 20, high: 29 },
  },
  calcium: {
    loinc: '17861-6',
    loinc_display: `Calcium [Mass/volume] ${SERUM}`,
    name: 'Calcium',
    ucum: 'mg/dL',
    unit: 'mg/dL',
    decimals: 1,
    reference_range: { low: 8.7, high: 10.2 },
  },
  total_protein: {
    loinc: '2885-2',
    loinc_display: `Protein [Mass/volume] ${SERUM}`,
    name: 'Total protein',
    ucum: 'g/dL',
    unit: 'g/dL',
    decimals: 1,
    reference_range: { low: 6.0, high: 8.5 },
  },
  albumin: {
    loinc: '1751-7',
    loinc_display: `Albumin [Mass/volume] ${SERUM}`,
    name: 'Albumin',
    ucum: 'g/dL',
    unit: 'g/dL',
    decimals: 1,
    reference_range: { low: 3.8, high: 4.9 },
  },
  total_bilirubin: {
    loinc: '1975-2',
    loinc_display: `Bilirubin.total [Mass/volume] ${SERUM}`,
    name: 'Bilirubin, total',
    ucum: 'mg/dL',
    unit: 'mg/dL',
    decimals: 1,
    reference_range: { high: 1.2 },
  },
  alkaline_phosphatase: {
    loinc: '6768-6',
    loinc_display: `Alkaline phosphatase [Enzymatic activity/volume] ${SERUM}`,
    name: 'Alkaline phosphatase',
    ucum: 'U/L',
    unit: 'U/L',
    decimals: 0,
    reference_range: { low: 44, high: 121 },
  },
  ast: {
    loinc: '1920-8',
    loinc_display: `Aspartate aminotransferase [Enzymatic activity/volume] ${SERUM}`,
    name: 'AST',
    ucum: 'U/L',
    unit: 'U/L',
    decimals: 0,
    reference_range: { high: 40 },
  },
  alt: {
    loinc: '1742-6',
    loinc_display: `Alanine aminotransferase [Enzymatic activity/volume] ${SERUM}`,
    name: 'ALT',
    ucum: 'U/L',
    unit: 'U/L',
    decimals: 0,
    reference_range: { high: 44 },
  },
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
