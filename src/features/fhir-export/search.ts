// Search parameters of the FHIR reads, parsed by hand so every 400 names the parameter and says what
// was expected (https://hl7.org/fhir/R4/search.html: `date` prefixes, token `system|code`, `_count`).
// Unknown parameters are refused rather than ignored (the R4 `handling=strict` behaviour): a
// misspelt filter that silently returned everything would be worse than a 400.
import { invalidParameter } from '../../core/errors.ts';
import { isStorableInstant, isStorableText } from '../../core/cursor-bounds.ts';
import { EXPORTED_TYPES } from './map-records.ts';
import { isSupportedDate } from '../../model/calendar.ts';
import { addDays } from '../../model/time.ts';
import { type Bound, filterOf, windowOf } from '../data/params.ts';
import type { RecordFilter } from '../data/service.ts';
import { requireUuid } from '../connections/service.ts';
import { TRIBUTARY_CODE_SYSTEM } from './codes.ts';
import { LOINC_SYSTEM } from '../../model/fhir.ts';

export const DEFAULT_COUNT = 100;
export const MAX_COUNT = 1000;

export type Query = Record<string, string | string[] | undefined>;

export interface CodeFilter {
  system: string | null;
  code: string;
}

/** Where a page starts: the data type's index, the last record fully given, observations of the next already given. */
export interface Cursor {
  type: number;
  after: { at: string; key: string } | null;
  skip: number;
}

export interface SearchParams {
  userId: string;
  filter: RecordFilter | undefined;
  codes: CodeFilter[] | null;
  count: number;
  cursor: Cursor;
  includeDevices: boolean;
  includeProvenance: boolean;
  withSamples: boolean;
  since: Date | undefined;
}

const values = (query: Query, name: string): string[] => {
  const raw = query[name];
  if (raw === undefined) return [];
  return Array.isArray(raw) ? raw : [raw];
};

const single = (query: Query, name: string): string | undefined => {
  const all = values(query, name);
  if (all.length > 1) throw invalidParameter(name, 'given more than once');
  return all[0];
};

// FHIR dateTime with seconds and an offset (date-only values are handled as days).
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

function parseDateValue(name: string, text: string): { day: string } | { ms: number } {
  if (isSupportedDate(text)) return { day: text };
  if (INSTANT.test(text)) {
    const ms = Date.parse(text);
    if (!Number.isNaN(ms)) return { ms };
  }
  throw invalidParameter(
    name,
    'expected YYYY-MM-DD or a dateTime with its offset, after a prefix ge, gt, le, lt or eq',
  );
}

/** `date=ge…&date=le…`: the records anchored in the range (docs/fhir.md#searching). */
export function parseDates(query: Query, name = 'date'): RecordFilter | undefined {
  const given = values(query, name);
  if (given.length === 0) return undefined;
  let start: Bound | null = null;
  let end: Bound | null = null;
  const setStart = (bound: Bound) => {
    if (start) throw invalidParameter(name, 'more than one lower bound (ge, gt, eq)');
    start = bound;
  };
  const setEnd = (bound: Bound) => {
    if (end) throw invalidParameter(name, 'more than one upper bound (le, lt, eq)');
    end = bound;
  };
  for (const raw of given) {
    const match = /^(ge|gt|le|lt|eq)?(.+)$/.exec(raw.trim());
    const prefix = match?.[1] ?? 'eq';
    const value = parseDateValue(name, match?.[2] ?? '');
    const next = (v: typeof value): Bound =>
      'day' in v ? { kind: 'date', day: addDays(v.day, 1) } : { kind: 'instant', ms: v.ms + 1 };
    const self = (v: typeof value): Bound =>
      'day' in v ? { kind: 'date', day: v.day } : { kind: 'instant', ms: v.ms };
    if (prefix === 'ge') setStart(self(value));
    else if (prefix === 'gt') setStart(next(value));
    else if (prefix === 'le') setEnd(next(value));
    else if (prefix === 'lt') setEnd(self(value));
    else {
      setStart(self(value));
      setEnd(next(value));
    }
  }
  const from: Bound = start ?? { kind: 'date', day: '1900-01-01' };
  const to: Bound = end ?? { kind: 'date', day: '2200-01-01' };
  try {
    return filterOf(windowOf(from, to));
  } catch {
    throw invalidParameter(name, 'the upper bound is before the lower bound');
  }
}

function parseCodes(query: Query): CodeFilter[] | null {
  const given = values(query, 'code');
  if (given.length === 0) return null;
  const codes: CodeFilter[] = [];
  for (const token of given.flatMap((value) => value.split(','))) {
    const text = token.trim();
    const bar = text.indexOf('|');
    const system = bar < 0 ? null : text.slice(0, bar);
    const code = bar < 0 ? text : text.slice(bar + 1);
    if (code === '')
      throw invalidParameter('code', 'expected a code or system|code, e.g. http://loinc.org|8867-4');
    if (system !== null && system !== LOINC_SYSTEM && system !== TRIBUTARY_CODE_SYSTEM) {
      throw invalidParameter(
        'code',
        `unknown code system ${system}: expected ${LOINC_SYSTEM} or ${TRIBUTARY_CODE_SYSTEM}`,
      );
    }
    codes.push({ system, code });
  }
  return codes;
}

export function parseCount(query: Query): number {
  const raw = single(query, '_count');
  if (raw === undefined) return DEFAULT_COUNT;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_COUNT) {
    throw invalidParameter('_count', `expected a whole number from 1 to ${MAX_COUNT}`);
  }
  return Number(raw);
}

// A cursor is ours only if every part is in the range this server writes: a record key is short
// text, an Observation offset within a record is small, the type an index of EXPORTED_TYPES.
const MAX_CURSOR_CHARS = 2048;
const MAX_CURSOR_KEY = 512;
const MAX_CURSOR_SKIP = 100_000;

export function parseCursor(query: Query): Cursor {
  const raw = single(query, '_cursor');
  if (raw === undefined) return { type: 0, after: null, skip: 0 };
  try {
    if (raw.length > MAX_CURSOR_CHARS || !/^[A-Za-z0-9_-]+$/.test(raw)) throw new Error('not base64url');
    const parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Cursor;
    const after = parsed.after;
    if (
      Number.isInteger(parsed.type) &&
      parsed.type >= 0 &&
      parsed.type < EXPORTED_TYPES.length &&
      Number.isInteger(parsed.skip) &&
      parsed.skip >= 0 &&
      parsed.skip <= MAX_CURSOR_SKIP &&
      (after === null ||
        (typeof after === 'object' &&
          typeof after.key === 'string' &&
          isStorableText(after.key, MAX_CURSOR_KEY) &&
          typeof after.at === 'string' &&
          isStorableInstant(Date.parse(after.at))))
    ) {
      return { type: parsed.type, after, skip: parsed.skip };
    }
  } catch {
    // fall through to the 400
  }
  throw invalidParameter('_cursor', 'not a cursor this server gave: follow the next link as it is');
}

export const encodeCursor = (cursor: Cursor) => Buffer.from(JSON.stringify(cursor)).toString('base64url');

function parseFlag(query: Query, name: string): boolean {
  const raw = single(query, name);
  if (raw === undefined) return false;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw invalidParameter(name, 'expected true or false');
}

function refuseUnknown(query: Query, known: readonly string[]) {
  for (const name of Object.keys(query)) {
    if (!known.includes(name))
      throw invalidParameter(name, `unknown search parameter: expected one of ${known.join(', ')}`);
  }
}

/** `_since`: an instant (FHIR `instant`: a dateTime with seconds and an offset). */
export function parseSince(query: Query): Date | undefined {
  const raw = single(query, '_since');
  if (raw === undefined) return undefined;
  if (!INSTANT.test(raw) || !isStorableInstant(Date.parse(raw))) {
    throw invalidParameter('_since', 'expected an instant with its offset, e.g. 2025-01-01T00:00:00Z');
  }
  return new Date(Date.parse(raw));
}

const OBSERVATION_PARAMS = [
  'subject',
  'patient',
  'date',
  'code',
  '_count',
  '_cursor',
  '_include',
  '_revinclude',
  'with-samples',
] as const;

/** `GET /v2/fhir/Observation`: the subject is required (one person's record per search). */
export function parseObservationSearch(query: Query): SearchParams {
  refuseUnknown(query, OBSERVATION_PARAMS);
  const subject = single(query, 'subject');
  const patient = single(query, 'patient');
  if (subject !== undefined && patient !== undefined)
    throw invalidParameter('patient', 'give subject or patient, not both');
  let userId: string;
  if (subject !== undefined) {
    const match = /^Patient\/(.+)$/.exec(subject);
    if (!match) throw invalidParameter('subject', 'expected Patient/{user_id}');
    userId = requireUuid('subject', match[1] ?? '');
  } else if (patient !== undefined) {
    userId = requireUuid('patient', patient.replace(/^Patient\//, ''));
  } else {
    throw invalidParameter('subject', 'required: Patient/{user_id}');
  }
  const includes = values(query, '_include');
  for (const include of includes) {
    if (include !== 'Observation:device')
      throw invalidParameter('_include', 'only Observation:device is supported');
  }
  const revincludes = values(query, '_revinclude');
  for (const include of revincludes) {
    if (include !== 'Provenance:target')
      throw invalidParameter('_revinclude', 'only Provenance:target is supported');
  }
  return {
    userId,
    filter: parseDates(query),
    codes: parseCodes(query),
    count: parseCount(query),
    cursor: parseCursor(query),
    includeDevices: includes.length > 0,
    includeProvenance: revincludes.length > 0,
    withSamples: parseFlag(query, 'with-samples'),
    since: undefined,
  };
}

const EVERYTHING_PARAMS = ['start', 'end', '_since', '_count', '_cursor', 'with-samples'] as const;

/** `GET /v2/fhir/Patient/{id}/$everything` (https://hl7.org/fhir/R4/patient-operation-everything.html). */
export function parseEverything(userId: string, query: Query): SearchParams {
  refuseUnknown(query, EVERYTHING_PARAMS);
  const start = single(query, 'start');
  const end = single(query, 'end');
  const dates: string[] = [];
  if (start !== undefined) dates.push(`ge${start}`);
  if (end !== undefined) dates.push(`le${end}`);
  for (const [name, value] of [
    ['start', start],
    ['end', end],
  ] as const) {
    if (value !== undefined && !isSupportedDate(value)) throw invalidParameter(name, 'expected YYYY-MM-DD');
  }
  return {
    userId: requireUuid('user_id', userId),
    filter: parseDates({ date: dates }),
    codes: null,
    count: parseCount(query),
    cursor: parseCursor(query),
    includeDevices: true,
    includeProvenance: true,
    withSamples: parseFlag(query, 'with-samples'),
    since: parseSince(query),
  };
}
