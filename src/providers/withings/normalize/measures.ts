// Withings measure types (`meastype`) -> where the value goes in a Body day. Real values are
// `value × 10^unit` in SI units (kg, m, °C, %, m/s, ml/min/kg), converted here to the model's.
import { AFibFlag, type CodeOf } from '../../../model/enums.ts';
import type { WithingsMeasure } from './types.ts';

/**
 * `value × 10^(unit + shift)`: the real value moved `shift` decimal places (3 turns kg into g).
 * Negative exponents divide, so 65750 × 10^-3 is exactly 65.75 and 58123 g stays an integer.
 */
export function scaledValue(measure: WithingsMeasure, shift = 0): number {
  const exponent = measure.unit + shift;
  return exponent < 0 ? measure.value / 10 ** -exponent : measure.value * 10 ** exponent;
}

/** The measure types the model has a place for. */
export const MeasureType = {
  WEIGHT: 1,
  HEIGHT: 4,
  FAT_FREE_MASS: 5,
  FAT_RATIO: 6,
  FAT_MASS: 8,
  DIASTOLIC: 9,
  SYSTOLIC: 10,
  HEART_PULSE: 11,
  TEMPERATURE: 12,
  SPO2: 54,
  BODY_TEMPERATURE: 71,
  SKIN_TEMPERATURE: 73,
  MUSCLE_MASS: 76,
  HYDRATION: 77,
  BONE_MASS: 88,
  PULSE_WAVE_VELOCITY: 91,
  VO2MAX: 123,
  AFIB_ECG: 130,
  AFIB_PPG: 139,
  VISCERAL_FAT: 170,
  BMR: 226,
} as const;

type AFibCode = CodeOf<typeof AFibFlag>;

/**
 * Withings AFib results (meastype 130/139 values, and heart-list `ecg.afib`) -> AFibFlag.
 * 0-2 are the model's own codes; the detailed results fold into them: 9/10 "negative" with a
 * heart-rate note, 11/12 "positive" likewise; no signal, noise, other, out-of-range heart rate,
 * "inconclusive US" and "no diagnosis" are inconclusive.
 */
export function afibFlag(value: number): AFibCode | null {
  switch (value) {
    case 0:
    case 9:
    case 10:
      return AFibFlag.NEGATIVE;
    case 1:
    case 11:
    case 12:
      return AFibFlag.POSITIVE;
    case 2:
    case 3:
    case 4:
    case 5:
    case 6:
    case 7:
    case 8:
    case 13:
      return AFibFlag.INCONCLUSIVE;
    default:
      return null;
  }
}

/** One group's measures by type (the last wins if a type repeats). */
export function measuresByType(measures: readonly WithingsMeasure[]): Map<number, WithingsMeasure> {
  const byType = new Map<number, WithingsMeasure>();
  for (const measure of measures) {
    if (typeof measure.value === 'number' && typeof measure.unit === 'number')
      byType.set(measure.type, measure);
  }
  return byType;
}
