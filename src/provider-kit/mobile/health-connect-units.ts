// Health Connect's unit objects (`{inKilocalories}`, `{inMeters}` …): the accessors each
// quantity may come in and their factors to the unit Tributary stores, and reading one. Part of
// health-connect.ts (the records), split off as a pure move.
import { MobileRecordError, numberOf } from './samples.ts';

export type Json = Record<string, unknown>;

export const asObject = (value: unknown): Json | null =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : null;

/** A unit object's value in the wanted accessor (or a plain number, taken as already in it). */
export type Accessors = readonly (readonly [string, number])[];

export function unitValue(value: unknown, accessors: Accessors, field: string): number {
  const plain = numberOf(value);
  if (plain !== null) return plain;
  const object = asObject(value);
  if (object) {
    for (const [name, factor] of accessors) {
      const found = numberOf(object[name]);
      if (found !== null) return found * factor;
    }
  }
  throw new MobileRecordError(`${field} is missing or has no known unit`);
}

export const ENERGY = [
  ['inKilocalories', 1],
  ['inCalories', 1 / 1000],
  ['inKilojoules', 1 / 4.184],
  ['inJoules', 1 / 4184],
] as const;
export const LENGTH = [
  ['inMeters', 1],
  ['inKilometers', 1000],
  ['inMiles', 1609.344],
  ['inFeet', 0.3048],
  ['inInches', 0.0254],
] as const;
export const MASS = [
  ['inKilograms', 1],
  ['inGrams', 1 / 1000],
  ['inPounds', 0.45359237],
  ['inOunces', 0.028349523125],
] as const;
export const GRAMS = [
  ['inGrams', 1],
  ['inKilograms', 1000],
  ['inMilligrams', 1 / 1000],
  ['inMicrograms', 1 / 1e6],
] as const;
export const MILLIGRAMS = GRAMS.map(([name, factor]) => [name, factor * 1000] as [string, number]);
export const PRESSURE = [['inMillimetersOfMercury', 1]] as const;
export const GLUCOSE = [
  ['inMilligramsPerDeciliter', 1],
  ['inMillimolesPerLiter', 18.0156],
] as const;
export const TEMPERATURE = [['inCelsius', 1]] as const;
export const VOLUME = [
  ['inMilliliters', 1],
  ['inLiters', 1000],
  ['inFluidOuncesUs', 29.5735295625],
] as const;
export const PERCENT = [['value', 1]] as const;

export function celsius(value: unknown, field: string): number {
  const object = asObject(value);
  const fahrenheit = object ? numberOf(object.inFahrenheit) : null;
  if (object && numberOf(object.inCelsius) === null && fahrenheit !== null)
    return ((fahrenheit - 32) * 5) / 9;
  return unitValue(value, TEMPERATURE, field);
}
