// PostgreSQL array literals of numbers, booleans and nullable strings, for the one-array-per-column
// (unnest) statements of hot batch writes. node-postgres turns a JS array parameter into a literal
// by quoting every element and escaping it with two regular-expression replacements, numbers and
// timestamps included: in the delivery engine's outcome write (14 columns, ~100 rows a statement)
// that, with an ISO string per timestamp, was a visible share of a delivery's CPU (issue 44).
// Numbers and booleans need no quotes; strings go through `quotedElement` (store/text-array.ts).
import { quotedElement } from './text-array.ts';

/** `{1,NULL,2.5}`: finite numbers as they print, null (or a non-finite number) as NULL. */
export function numberArrayLiteral(values: readonly (number | null)[]): string {
  // Joined once rather than appended to element by element, which made two intermediate strings
  // per element (the outcome write has seven such columns per delivery).
  const parts = new Array<string>(values.length);
  for (let index = 0; index < values.length; index++) {
    const value = values[index];
    parts[index] = value === null || value === undefined || !Number.isFinite(value) ? 'NULL' : String(value);
  }
  return `{${parts.join(',')}}`;
}

/** `{t,f}`. */
export function booleanArrayLiteral(values: readonly boolean[]): string {
  let literal = '{';
  for (let index = 0; index < values.length; index++)
    literal += index > 0 ? (values[index] ? ',t' : ',f') : values[index] ? 't' : 'f';
  return `${literal}}`;
}

/** `{"a",NULL}`: every string quoted (so none reads as NULL), null as NULL. */
export function nullableTextArrayLiteral(values: readonly (string | null)[]): string {
  const parts = new Array<string>(values.length);
  for (let index = 0; index < values.length; index++) {
    const value = values[index];
    parts[index] = value === null || value === undefined ? 'NULL' : quotedElement(value);
  }
  return `{${parts.join(',')}}`;
}
