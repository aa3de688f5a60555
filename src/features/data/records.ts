// From a provider's record to a stored row and back: validation against the model schemas,
// identity and anchor, and the split of sample arrays into their own column. The split is done on
// text, once, at write time (model/record-text.ts, which a migration uses too).
import type { TSchema } from 'typebox';
import { Athlete, type DataTypeName, type DataTypeRecords, dataTypes } from '../../model/index.ts';
import { isSupportedDate } from '../../model/calendar.ts';
import { upgradeRecord } from '../../model/legacy-shapes.ts';
import { splitSamples } from '../../model/record-text.ts';
import { recordProblem } from '../../model/plausibility.ts';
import { parseDateTime } from '../../model/time.ts';
import type { ProviderDataType } from '../../provider-kit/types.ts';
import { compileSchema } from '../../core/schema-compiler.ts';

export { mergedPieces, mergeSamples, splitSamples } from '../../model/record-text.ts';

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

/** A refusal names the field at fault when one is known (`metadata.summary_id`). */
export type Prepared =
  { ok: true; value: PreparedRecord } | { ok: false; problem: string; field: string | null };

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
    validator = compileSchema(schema) as unknown as Validator;
    validators.set(type, validator);
  }
  return validator;
}

/** Compiles the validator of `type` now, if no write compiled it yet (service.ts `prepareWrites`). */
export function compileValidator(type: ProviderDataType): void {
  validatorFor(type);
}

/** `/metadata/summary_id` -> `metadata.summary_id`; array positions kept (`samples.3.level`). */
const fieldOfPointer = (pointer: string) =>
  pointer.split('/').slice(1).map(unescapePointer).join('.') || '(the record)';
const unescapePointer = (part: string) => part.replaceAll('~1', '/').replaceAll('~0', '~');

function firstProblem(validator: Validator, value: unknown): { field: string | null; problem: string } {
  for (const error of validator.Errors(value)) {
    const field = fieldOfPointer(error.instancePath);
    return { field, problem: `${field} ${error.message}` };
  }
  return { field: null, problem: 'does not match the schema' };
}

/** What the model refuses in a record of `type` already in the current shape (null: nothing). */
export function schemaProblem(type: ProviderDataType, record: unknown): string | null {
  const validator = validatorFor(type);
  return validator.Check(record) ? null : firstProblem(validator, record).problem;
}

/**
 * What a record says it is, for naming a refused one: its own id, else its bounds, else its
 * time. Read loosely (the record failed the schema, so any field may be of another type).
 */
export function identityOf(record: unknown): string | null {
  if (typeof record !== 'object' || record === null) return null;
  const source = record as { metadata?: unknown; timestamp?: unknown };
  const metadata =
    typeof source.metadata === 'object' && source.metadata !== null
      ? (source.metadata as Record<string, unknown>)
      : {};
  const text = (value: unknown) =>
    typeof value === 'string' || typeof value === 'number' ? String(value).slice(0, 80) : null;
  const id = text(metadata.summary_id) ?? text(metadata.id);
  if (id !== null) return id;
  const start = text(metadata.start_time) ?? text(metadata.planned_date);
  const end = text(metadata.end_time);
  if (start !== null) return end === null ? start : `${start}|${end}`;
  return text(source.timestamp);
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

/**
 * Validates a provider's record and splits it for storage; `now` anchors records without a time.
 * Fields still in the older contract's shape are brought to the current one first.
 */
export function prepareRecord(type: ProviderDataType, input: unknown, now: Date): Prepared {
  const record = upgradeRecord(type, input);
  const validator = validatorFor(type);
  if (!validator.Check(record)) return { ok: false, ...firstProblem(validator, record) };
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
  // Measurements only: a planned workout is a plan (its date may lie ahead), not a reading.
  if (type !== 'plannedWorkout') {
    const implausible = recordProblem(record, now.getTime());
    // The plausibility rules name the field first (`metadata.start_time is before 1900-01-01`).
    if (implausible)
      return { ok: false, problem: `implausible: ${implausible}`, field: implausible.split(' ')[0] ?? null };
  }
  const definition = dataTypes[type];
  // The registry's per-type callbacks take that type's record; TypeScript cannot pair them up here.
  const identityKey = definition.identityKey(record as never);
  if (!identityKey)
    return {
      ok: false,
      problem: `no identity (${type} records are keyed by their id or bounds)`,
      field: 'metadata.summary_id',
    };
  const anchorText = definition.anchorTime(record as never);
  const anchor = anchorText ? anchorOf(anchorText) : { at: now, day: now.toISOString().slice(0, 10) };
  if (!anchor) return { ok: false, problem: `unreadable anchor time "${anchorText}"`, field: null };
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
