// HealthKit's units -> Tributary's: every record names its unit (an export writes whatever unit the
// user's locale displays), so each conversion is a table of the units a type may arrive in.
import { MobileRecordError } from '../../provider-kit/mobile/samples.ts';

export type Conversion = Record<string, number>;

export const LENGTH_M: Conversion = {
  m: 1,
  km: 1000,
  mi: 1609.344,
  yd: 0.9144,
  ft: 0.3048,
  cm: 0.01,
  in: 0.0254,
  mm: 0.001,
};
export const ENERGY_KCAL: Conversion = { kcal: 1, Cal: 1, cal: 0.001, kJ: 1 / 4.184, J: 1 / 4184 };
export const MASS_KG: Conversion = { kg: 1, g: 0.001, lb: 0.45359237, st: 6.35029318, oz: 0.028349523125 };
export const MASS_G: Conversion = { g: 1, mg: 0.001, mcg: 0.000001, kg: 1000, oz: 28.349523125 };
export const MASS_MG: Conversion = { mg: 1, g: 1000, mcg: 0.001 };
export const PER_MINUTE: Conversion = { 'count/min': 1, 'count/s': 60 };
export const MS: Conversion = { ms: 1, s: 1000 };
export const COUNT: Conversion = { count: 1 };
export const PERCENT: Conversion = { '%': 100 };
export const PRESSURE: Conversion = { mmHg: 1, cmAq: 0.735559, kPa: 7.50062 };
export const VOLUME_ML: Conversion = { mL: 1, L: 1000, fl_oz_us: 29.5735295625, cup_us: 236.5882365 };
export const VO2: Conversion = { 'mL/min·kg': 1, 'ml/(kg*min)': 1 };
export const HEIGHT_CM: Conversion = { cm: 1, m: 100, ft: 30.48, in: 2.54, mm: 0.1 };

export function convert(value: number, unit: string | null, table: Conversion, type: string): number {
  const factor = table[unit ?? ''];
  if (factor === undefined) throw new MobileRecordError(`unit "${unit}" is not known for ${type}`);
  return value * factor;
}

export function celsius(value: number, unit: string | null): number {
  if (unit === 'degC') return value;
  if (unit === 'degF') return ((value - 32) * 5) / 9;
  if (unit === 'K') return value - 273.15;
  throw new MobileRecordError(`unit "${unit}" is not a temperature`);
}

/** mg/dL, or a molar unit `mmol<180.1558800000541>/L` (with the molar mass) or plain mmol/L. */
export function milligramsPerDeciliter(value: number, unit: string | null): number {
  if (unit === 'mg/dL') return value;
  const molar = /^mmol(?:<([\d.]+)>)?\/L$/.exec(unit ?? '');
  if (molar) return (value * Number(molar[1] ?? 180.15588)) / 10;
  throw new MobileRecordError(`unit "${unit}" is not a glucose unit`);
}
