// Field-level checks shared by the order validators. Each failure becomes one `invalid_fields` entry
// `{field, tag, value, message}` (`CreateOrderValidationError`,
// docs/wire-contract.md#order-api-conventions); tags follow the validator vocabulary the wire uses
// (`required`, `email`, `e164`, ...) so clients can branch on them.

export const VALIDATION_TAGS = [
  'required',
  'type',
  'min_length',
  'max_length',
  'min',
  'max',
  'integer',
  'min_items',
  'max_items',
  'oneof',
  'email',
  'e164',
  'date',
  'past_date',
  'iso3166_1_alpha2',
  'postal_code',
  'unique',
  'unknown_variant',
  'unsupported_collection_type',
  'unsupported_ship_to_country',
  'out_of_stock',
  'currency_mismatch',
  'unknown_lab_code',
] as const;
export type ValidationTag = (typeof VALIDATION_TAGS)[number];

export interface InvalidField {
  /** JSON path into the request body, e.g. `recipient.email`, `items[0].variant_id`. */
  field: string;
  tag: ValidationTag;
  /** The offending value as text; "" when it was missing. */
  value: string;
  message: string;
}

export type JsonRecord = { readonly [key: string]: unknown };

export const isRecord = (value: unknown): value is JsonRecord =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const childPath = (parent: string, key: string): string => (parent ? `${parent}.${key}` : key);
export const indexPath = (parent: string, index: number): string => `${parent}[${index}]`;

// Echoing a multi-megabyte string back in a 400 helps nobody, so values are cut short.
const MAX_ECHOED_VALUE = 200;

export function describeValue(value: unknown): string {
  if (value === undefined || value === null) return '';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > MAX_ECHOED_VALUE ? `${text.slice(0, MAX_ECHOED_VALUE)}…` : text;
}

export class FieldIssues {
  readonly list: InvalidField[] = [];

  add(field: string, tag: ValidationTag, value: unknown, message: string): void {
    this.list.push({ field, tag, value: describeValue(value), message });
  }

  get isEmpty(): boolean {
    return this.list.length === 0;
  }
}

export interface StringRule {
  required: boolean;
  /** Minimum length after trimming; required strings default to 1. */
  minLength?: number;
  maxLength: number;
}

/**
 * Reads a string member. Missing, null and whitespace-only count as absent; the returned value is
 * trimmed so stray spaces never end up on a shipping label.
 */
export function readString(
  issues: FieldIssues,
  source: JsonRecord,
  key: string,
  path: string,
  rule: StringRule,
): string | undefined {
  const raw = source[key];
  if (raw === undefined || raw === null) {
    if (rule.required) issues.add(path, 'required', raw, `${path} is required`);
    return undefined;
  }
  if (typeof raw !== 'string') {
    issues.add(path, 'type', raw, `${path} must be a string`);
    return undefined;
  }
  const value = raw.trim();
  if (value === '') {
    if (rule.required) issues.add(path, 'required', raw, `${path} is required`);
    return undefined;
  }
  const minLength = rule.minLength ?? 1;
  if (value.length < minLength) {
    issues.add(path, 'min_length', raw, `${path} must be at least ${minLength} characters`);
    return undefined;
  }
  if (value.length > rule.maxLength) {
    issues.add(path, 'max_length', raw, `${path} must be at most ${rule.maxLength} characters`);
    return undefined;
  }
  return value;
}

export function readOneOf<T extends string>(
  issues: FieldIssues,
  source: JsonRecord,
  key: string,
  path: string,
  allowed: readonly T[],
): T | undefined {
  const value = readString(issues, source, key, path, { required: true, maxLength: 100 });
  if (value === undefined) return undefined;
  const match = allowed.find((candidate) => candidate === value);
  if (match === undefined) issues.add(path, 'oneof', value, `${path} must be one of: ${allowed.join(', ')}`);
  return match;
}

export function readInteger(
  issues: FieldIssues,
  source: JsonRecord,
  key: string,
  path: string,
  rule: { required: boolean; min: number; max: number },
): number | undefined {
  const raw = source[key];
  if (raw === undefined || raw === null) {
    if (rule.required) issues.add(path, 'required', raw, `${path} is required`);
    return undefined;
  }
  if (typeof raw !== 'number' || !Number.isFinite(raw)) {
    issues.add(path, 'type', raw, `${path} must be a number`);
    return undefined;
  }
  if (!Number.isInteger(raw)) {
    issues.add(path, 'integer', raw, `${path} must be a whole number`);
    return undefined;
  }
  if (raw < rule.min) {
    issues.add(path, 'min', raw, `${path} must be at least ${rule.min}`);
    return undefined;
  }
  if (raw > rule.max) {
    issues.add(path, 'max', raw, `${path} must be at most ${rule.max}`);
    return undefined;
  }
  return raw;
}

export function readOptionalBoolean(
  issues: FieldIssues,
  source: JsonRecord,
  key: string,
  path: string,
): boolean | undefined {
  const raw = source[key];
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw === 'boolean') return raw;
  issues.add(path, 'type', raw, `${path} must be true or false`);
  return undefined;
}

// Pragmatic address syntax: one @, no spaces, a dotted domain. Deliverability is not knowable here.
const EMAIL =
  /^[^\s@]{1,64}@(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$/;
export const isEmail = (value: string): boolean => value.length <= 254 && EMAIL.test(value);

/** E.164: a plus, a non-zero country code digit, at most 15 digits, no separators. */
export const isE164 = (value: string): boolean => /^\+[1-9]\d{1,14}$/.test(value);

/** A real calendar date written `YYYY-MM-DD` (so 2023-02-29 is rejected). */
export function isIsoDate(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

export const isAlpha2 = (value: string): boolean => /^[A-Za-z]{2}$/.test(value);

/** Postal code syntax is only checked where it is unambiguous; elsewhere any non-empty code passes. */
const POSTAL_CODE_SYNTAX: Readonly<Record<string, RegExp>> = {
  US: /^\d{5}(-\d{4})?$/,
  CA: /^[A-Za-z]\d[A-Za-z] ?\d[A-Za-z]\d$/,
  GB: /^[A-Za-z]{1,2}\d[A-Za-z\d]? ?\d[A-Za-z]{2}$/,
  DE: /^\d{5}$/,
  FR: /^\d{5}$/,
  NL: /^\d{4} ?[A-Za-z]{2}$/,
};

export function isPostalCodeFor(country: string, postalCode: string): boolean {
  const syntax = POSTAL_CODE_SYNTAX[country];
  return syntax === undefined || syntax.test(postalCode);
}
