// From a provider's record to a stored row and back: validation against the model schemas,
// identity and anchor, and the split of sample arrays into their own column.
//
// The split is done on text, once, at write time: the summary is the record with every sample
// array emptied (`[]`), the samples are `{"<path>":[…],…}`, and the splices remember where each
// array's text sits in both. Merging back for with_samples=true is then a few string slices —
// no parsing and re-serializing of megabytes of samples on every read.
import { randomBytes } from 'node:crypto';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { Athlete, type DataTypeName, type DataTypeRecords, dataTypes } from '../../model/index.ts';
import { isSupportedDate } from '../../model/calendar.ts';
import { parseDateTime } from '../../model/time.ts';
import type { ProviderDataType } from '../../provider-kit/types.ts';

/** What is written to `data_records` for one record. */
export type PreparedRecord = {
  identityKey: string;
  anchorAt: Date;
  anchorDay: string;
  summary: string;
  samples: string | null;
  splices: number[] | null;
  /** The record itself, for callers that pass it on (data events); null once not needed. */
  record: unknown;
  bytes: number;
};

export type Prepared = { ok: true; value: PreparedRecord } | { ok: false; problem: string };

/** The athlete is one record per user: a fixed identity, anchored when it was fetched. */
export const ATHLETE_KEY = 'athlete';

type Validator = {
  Check(value: unknown): boolean;
  Errors(value: unknown): Iterable<{ instancePath: string; message: string }>;
};
const validators = new Map<ProviderDataType, Validator>();

function validatorFor(type: ProviderDataType): Validator {
  let validator = validators.get(type);
  if (!validator) {
    const schema: TSchema = type === 'athlete' ? Athlete : dataTypes[type].schema;
    validator = Compile(schema) as unknown as Validator;
    validators.set(type, validator);
  }
  return validator;
}

function firstProblem(validator: Validator, value: unknown): string {
  for (const error of validator.Errors(value)) return `${error.instancePath || '/'} ${error.message}`;
  return 'does not match the schema';
}

/**
 * The instant and local day an anchor datetime names. The date written in a wire datetime is
 * already the local date; a datetime without an offset is local time, so it is read as UTC
 * (its written date stays the day it belongs to).
 */
export function anchorOf(text: string): { at: Date; day: string } | null {
  const hasZone = /(Z|[+-]\d{2}:?\d{2})$/i.test(text) && text.includes('T');
  let ms: number;
  try {
    ms = parseDateTime(hasZone || !text.includes('T') ? text : `${text}Z`);
  } catch {
    return null;
  }
  const day = text.slice(0, 10);
  // The day is stored in a date column: it must be a real calendar date the database can hold.
  if (!isSupportedDate(day) || !Number.isFinite(ms)) return null;
  return { at: new Date(ms), day };
}

function valueAt(record: unknown, keys: readonly string[]): unknown {
  let node: unknown = record;
  for (const key of keys) {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** A copy of `node` with the value at `keys` replaced; objects along the path are shallow-copied. */
function replaceAt(node: unknown, keys: readonly string[], depth: number, value: unknown): unknown {
  const parent = node as Record<string, unknown>;
  const key = keys[depth]!;
  return {
    ...parent,
    [key]: depth === keys.length - 1 ? value : replaceAt(parent[key], keys, depth + 1, value),
  };
}

/** Stands in for a sample array while the summary is serialized; the nonce makes it unforgeable. */
const MARK = `\u0001${randomBytes(8).toString('hex')}:`;
const MARK_IN_JSON = new RegExp(`${JSON.stringify(MARK).slice(0, -1).replace(/\\/g, '\\\\')}(\\d+)"`, 'g');

/** Summary text, samples text and splices for a record whose sample paths are `paths`. */
export function splitSamples(
  record: unknown,
  paths: readonly string[],
): { summary: string; samples: string | null; splices: number[] | null } {
  let marked = record;
  const arrays: [string, unknown[]][] = [];
  for (const path of paths) {
    const keys = path.split('.');
    const value = valueAt(record, keys);
    if (!Array.isArray(value) || value.length === 0) continue;
    marked = replaceAt(marked, keys, 0, `${MARK}${arrays.length}`);
    arrays.push([path, value]);
  }
  if (arrays.length === 0) return { summary: JSON.stringify(record), samples: null, splices: null };

  const sampleParts: string[] = [];
  const ranges: [number, number][] = [];
  let length = 1;
  for (const [index, [path, values]] of arrays.entries()) {
    const head = `${index === 0 ? '' : ','}${JSON.stringify(path)}:`;
    const body = JSON.stringify(values);
    sampleParts.push(head, body);
    ranges.push([length + head.length, length + head.length + body.length]);
    length += head.length + body.length;
  }
  const markedText = JSON.stringify(marked);
  const summaryParts: string[] = [];
  const splices: number[] = [];
  let from = 0;
  let written = 0;
  for (const match of markedText.matchAll(MARK_IN_JSON)) {
    const before = markedText.slice(from, match.index);
    summaryParts.push(before, '[]');
    written += before.length;
    const range = ranges[Number(match[1])]!;
    splices.push(written, range[0], range[1]);
    written += 2;
    from = match.index + match[0].length;
  }
  summaryParts.push(markedText.slice(from));
  return { summary: summaryParts.join(''), samples: `{${sampleParts.join('')}}`, splices };
}

/** Validates a provider's record and splits it for storage; `now` anchors records without a time. */
export function prepareRecord(type: ProviderDataType, record: unknown, now: Date): Prepared {
  const validator = validatorFor(type);
  if (!validator.Check(record)) return { ok: false, problem: firstProblem(validator, record) };
  if (type === 'athlete') {
    const summary = JSON.stringify(record);
    const day = now.toISOString().slice(0, 10);
    return {
      ok: true,
      value: {
        identityKey: ATHLETE_KEY,
        anchorAt: now,
        anchorDay: day,
        summary,
        samples: null,
        splices: null,
        record,
        bytes: summary.length,
      },
    };
  }
  return prepareHistorical(type, record as DataTypeRecords[typeof type], now);
}

function prepareHistorical<T extends DataTypeName>(type: T, record: DataTypeRecords[T], now: Date): Prepared {
  const definition = dataTypes[type];
  // The registry's per-type callbacks take that type's record; TypeScript cannot pair them up here.
  const identityKey = definition.identityKey(record as never);
  if (!identityKey)
    return { ok: false, problem: `no identity (${type} records are keyed by their id or bounds)` };
  const anchorText = definition.anchorTime(record as never);
  const anchor = anchorText ? anchorOf(anchorText) : { at: now, day: now.toISOString().slice(0, 10) };
  if (!anchor) return { ok: false, problem: `unreadable anchor time "${anchorText}"` };
  const split = splitSamples(record, definition.samplePaths);
  return {
    ok: true,
    value: {
      identityKey,
      anchorAt: anchor.at,
      anchorDay: anchor.day,
      ...split,
      record,
      bytes: split.summary.length + (split.samples?.length ?? 0),
    },
  };
}

/**
 * The whole record's JSON text, as pieces: the summary's text between the emptied arrays, and
 * each sample array's text in its place. Slices share their parent strings, so nothing is copied
 * until the pieces are written out.
 */
export function mergedPieces(
  summary: string,
  samples: string | null,
  splices: readonly number[] | null,
): string[] {
  if (samples === null || splices === null || splices.length === 0) return [summary];
  const parts: string[] = [];
  let from = 0;
  for (let index = 0; index < splices.length; index += 3) {
    const at = splices[index]!;
    parts.push(summary.slice(from, at), samples.slice(splices[index + 1]!, splices[index + 2]!));
    from = at + 2;
  }
  parts.push(summary.slice(from));
  return parts;
}

/** The whole record's JSON text: the summary with each sample array's text spliced back in. */
export function mergeSamples(
  summary: string,
  samples: string | null,
  splices: readonly number[] | null,
): string {
  return mergedPieces(summary, samples, splices).join('');
}
