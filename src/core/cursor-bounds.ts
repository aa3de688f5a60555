// What a decoded page cursor may hold before it reaches a query. A cursor comes back from the
// client, so it is input like any other: a tampered one must be a 400 naming it, never a 500 from
// the database (issue 40, row 11: a far-future date passed JavaScript's checks and failed in
// PGlite). PostgreSQL's timestamptz reaches 294276 AD, but PGlite serializes a Date with
// toISOString, whose years past 9999 (`+275760-…`) PostgreSQL cannot parse, and a bigint stops at
// 2^63 - 1; text may hold no NUL (PostgreSQL refuses it) and no lone surrogate (not UTF-8).

const FIRST_INSTANT = Date.parse('0001-01-01T00:00:00.000Z');
const LAST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');
const BIGINT_MAX = 9223372036854775807n;

/** An instant (ms since the epoch) both stores take: years 1 to 9999. */
export const isStorableInstant = (ms: number) =>
  Number.isFinite(ms) && ms >= FIRST_INSTANT && ms <= LAST_INSTANT;

/** Text both stores take as a query parameter: well-formed UTF-16 (so UTF-8), no control characters, at most `maxLength`. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what it refuses
const CONTROL = /[\u0000-\u001f\u007f]/;
export const isStorableText = (value: string, maxLength: number) =>
  value.length <= maxLength && value.isWellFormed() && !CONTROL.test(value);

/** Decimal digits of a positive bigint PostgreSQL can hold (1 to 2^63 - 1). */
export const isPositiveBigintText = (value: string) =>
  /^[1-9]\d{0,18}$/.test(value) && BigInt(value) <= BIGINT_MAX;
