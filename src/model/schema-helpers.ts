// Small builders that keep the model files close to the contract's wording
// (docs/wire-contract.md#data-model).
//
// The contract says every field is nullable unless stated otherwise, and that clients must
// tolerate new fields; so fields default to optional-or-null and objects stay open
// (no `additionalProperties: false`).
import Type, { type TSchema, type TSchemaOptions } from 'typebox';

/** Optional, and `null` when present-but-unknown. */
export function Nullable<T extends TSchema>(schema: T) {
  return Type.Optional(Type.Union([schema, Type.Null()]));
}

export const NullableNumber = (options?: TSchemaOptions) => Nullable(Type.Number(options));
export const NullableInteger = (options?: TSchemaOptions) => Nullable(Type.Integer(options));
export const NullableString = (options?: TSchemaOptions) => Nullable(Type.String(options));
export const NullableBoolean = (options?: TSchemaOptions) => Nullable(Type.Boolean(options));

/** A nullable array of `item`: how every sample list in the model is typed. */
export function NullableArray<T extends TSchema>(item: T, options?: TSchemaOptions) {
  return Nullable(Type.Array(item, options));
}

/** A wire datetime string (ISO-8601, microseconds, offset). Not format-checked: see time.ts. */
export const DateTimeText = (description = 'ISO-8601 datetime, e.g. 2022-10-28T10:00:00.000000+01:00') =>
  Type.String({ description });

export const NullableDateTime = (description?: string) => Nullable(DateTimeText(description));

/** `[lat|null, lng|null]` in degrees. An array with fixed length rather than a tuple so the JSON
 *  Schema reads the same under draft-07 (Fastify's Ajv) and 2020-12 (OpenAPI 3.1). */
export const LatLng = () =>
  Type.Array(Type.Union([Type.Number(), Type.Null()]), {
    minItems: 2,
    maxItems: 2,
    description: '[latitude, longitude] in degrees; either may be null',
  });

/**
 * JSON Schema for a numeric code table declared as a `const` object (name -> code).
 * The description lists `code NAME` pairs so the OpenAPI document explains each code.
 */
export function codeSchema<const E extends Record<string, number>>(codes: E, description?: string) {
  const values = Object.values(codes) as E[keyof E][];
  const legend = Object.entries(codes)
    .map(([name, code]) => `${code} ${name}`)
    .join(', ');
  return Type.Enum(values, { description: description ? `${description} (${legend})` : legend });
}

/** JSON Schema for a closed list of string values declared as a readonly tuple. */
export function stringSchema<const V extends readonly string[]>(values: V, description?: string) {
  return Type.Enum([...values] as V[number][], description ? { description } : {});
}
