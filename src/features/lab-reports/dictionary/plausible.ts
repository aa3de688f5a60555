// What a living person's result can be, for the tests most often misread: the widest values a
// lab could report (critical values included), in the dictionary entry's main unit. A value
// outside them is a misreading (a lost decimal point, a lab code, an ID), not a result. Tests
// without limits here are judged against their own printed range only (plausibility.ts).
import { convertValue } from './convert.ts';
import type { BiomarkerEntry } from './biomarkers.ts';

type Limits = readonly [min: number, max: number];

/** In each entry's main unit (`BiomarkerEntry.ucum`). Counts per µL are handled by COUNT_LIMITS. */
const LIMITS: Record<string, Limits> = {
  hemoglobin: [2, 26],
  hematocrit: [5, 80],
  mcv: [40, 160],
  mch: [10, 60],
  mchc: [15, 50],
  rdw: [5, 45],
  mpv: [3, 20],
  neutrophils_percent: [0, 100],
  lymphocytes_percent: [0, 100],
  monocytes_percent: [0, 100],
  eosinophils_percent: [0, 100],
  basophils_percent: [0, 100],
  glucose: [5, 2000],
  glucose_fasting: [5, 2000],
  sodium: [90, 200],
  potassium: [1, 12],
  chloride: [50, 160],
  calcium: [2, 20],
  albumin: [0.5, 8],
  creatinine: [0.05, 30],
  bun: [1, 300],
  cholesterol_total: [20, 1500],
  hdl: [2, 250],
  ldl: [2, 1000],
  triglycerides: [10, 15000],
  hba1c: [2, 25],
  tsh: [0, 1000],
  esr: [0, 200],
  urine_ph: [4, 9.5],
};

/** Cell counts, per µL (white cells 0.1–500 ×10³, platelets 1–5000 ×10³, red cells 0.5–10 ×10⁶). */
const COUNT_LIMITS: Record<string, Limits> = {
  wbc: [100, 500_000],
  platelets: [1_000, 5_000_000],
  rbc: [500_000, 10_000_000],
  neutrophils: [0, 400_000],
  lymphocytes: [0, 400_000],
  monocytes: [0, 100_000],
  eosinophils: [0, 100_000],
  basophils: [0, 50_000],
};

/** Powers of ten per µL of the count units (10⁹/L is 10³ per µL). */
const COUNT_SCALE: Record<string, number> = {
  '/uL': 0,
  '10*3/uL': 3,
  '10*5/uL': 5,
  '10*6/uL': 6,
  '10*9/L': 3,
  '10*12/L': 6,
};

/**
 * Whether a value in `ucum` can be a real result of this test: true or false when limits are
 * known for the test in that unit, undefined when they are not (the caller then relies on the
 * printed range).
 */
export function withinLimits(
  entry: BiomarkerEntry,
  value: number,
  ucum: string | undefined,
): boolean | undefined {
  if (ucum === '%' && /_percent$/.test(entry.key)) return value >= 0 && value <= 100;
  const counts = COUNT_LIMITS[entry.key];
  if (counts) {
    const scale = ucum === undefined ? undefined : COUNT_SCALE[ucum];
    if (scale === undefined) return undefined;
    const perMicrolitre = value * 10 ** scale;
    return perMicrolitre >= counts[0] && perMicrolitre <= counts[1];
  }
  const limits = LIMITS[entry.key];
  if (!limits || !entry.ucum) return undefined;
  const fits = (main: number) => main >= limits[0] && main <= limits[1];
  // A test reported without a unit symbol of its own (pH) is judged in its one scale.
  if (ucum === undefined && entry.ucum.startsWith('[')) return fits(value);
  if (ucum === undefined) {
    // No unit read: a value that fits the test in none of the units it is printed in cannot be
    // one of its results (a hematocrit of 412); one that fits in some unit is not judged.
    const units = [entry.ucum, ...(entry.alternates ?? []).map((alternate) => alternate.ucum)];
    const inSome = units.some((unit) => {
      const main = unit === undefined ? undefined : convertValue(entry, value, unit, entry.ucum!);
      return main === undefined || fits(main);
    });
    return inSome ? undefined : false;
  }
  const main = convertValue(entry, value, ucum, entry.ucum);
  if (main === undefined) return undefined;
  return fits(main);
}
