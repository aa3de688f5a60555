// The platform-neutral form of on-device health data (Apple HealthKit, Health Connect, Samsung
// Health): what a provider's mobile hooks turn the platform's own records into, and what the
// mobile feature stores (one row per platform record) and rolls up into the unified model.
// Values are in one canonical unit per kind, so the roll-up never looks at a platform unit.
import type { Readable } from 'node:stream';
import { sampleProblem } from './plausible.ts';

/**
 * Canonical units: steps/floors count; distance m; energy kcal; heart rate and respiratory rate
 * per minute; HRV ms; oxygen saturation and body fat percent (0-100); vo2max mL/(kg·min);
 * weight and lean mass kg; height cm; blood pressure mmHg; glucose mg/dL; temperature °C;
 * water mL; nutrition parts by the unified model's macro/micro keys (`protein_g`, `calories`…).
 */
export const MOBILE_KINDS = [
  'steps',
  'distance',
  'active_energy',
  'basal_energy',
  'floors',
  'heart_rate',
  'resting_heart_rate',
  'hrv_sdnn',
  'hrv_rmssd',
  'oxygen_saturation',
  'respiratory_rate',
  'vo2max',
  'weight',
  'body_fat',
  'height',
  'bmi',
  'lean_mass',
  'bp_systolic',
  'bp_diastolic',
  'glucose',
  'body_temperature',
  'nutrition',
  'water',
  'sleep',
  'menstrual_flow',
  'workout',
  'activity_summary',
] as const;
export type MobileKind = (typeof MOBILE_KINDS)[number];

/** What recorded a sample: the duplicate-source rule prefers a watch, then a phone. */
export type DeviceClass = 'watch' | 'phone' | 'scale' | 'other';

export type MobileSource = {
  /** The platform's source name (Apple `sourceName`, Health Connect `dataOrigin.packageName`). */
  name: string;
  device: DeviceClass;
  model: string | null;
  manufacturer: string | null;
};

export type RoutePoint = { t: number; lat: number; lng: number; alt: number | null };

export type MobileWorkout = {
  /** An ActivityType code of the unified model. */
  type: number;
  name: string | null;
  durationSeconds: number | null;
  distanceMeters: number | null;
  energyKcal: number | null;
  avgHr: number | null;
  minHr: number | null;
  maxHr: number | null;
  route: RoutePoint[];
};

export type MobileSample = {
  /** The platform's record id (HealthKit UUID, Health Connect `metadata.id`), or a content hash. */
  id: string;
  kind: MobileKind;
  startMs: number;
  endMs: number;
  /** Minutes east of UTC where the sample was recorded: decides its local day. */
  offsetMinutes: number;
  /** The local day, when the platform names it (Apple activity summaries) rather than a time. */
  day?: string;
  value: number | null;
  /** Several values of one record: nutrition by model key; activity summary fields. */
  parts?: Record<string, number>;
  /** Sleep: a SleepLevel code; menstrual flow: a MenstruationFlow code. */
  level?: number;
  source: MobileSource;
  workout?: MobileWorkout;
};

export type MobileBatch = {
  samples: MobileSample[];
  /** Record ids the platform reports deleted (anchored-query / changes-API deletions). */
  deletions: string[];
  /** Records that could not be read, with why; the rest of the batch is still taken. */
  invalid: { index: number; problem: string }[];
};

/**
 * One element of an export file, with its attributes and child elements. An element that
 * references another file of the archive (see `MobileHooks.exportFile.references`) gets what the
 * provider's reader made of that file as its children.
 */
export type XmlElement = {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
};

/**
 * A provider's mobile hooks. `parseUpload` reads the body of `POST /v2/sdk/upload` (already
 * checked to be a JSON object naming the platform); `exportFile`, when the platform has an export
 * file, names its format and turns each top-level element into samples through the same
 * normalizer, so an SDK upload and an import of the same data give the same records.
 */
export type MobileHooks = {
  /** `nowMs` bounds the dates a record may carry (model/plausibility.ts). */
  parseUpload(body: Record<string, unknown>, nowMs: number): MobileBatch;
  exportFile?: {
    /** The path segment of `POST /v2/import/{format}`, e.g. `apple-health`. */
    format: string;
    /** The archive entry holding the document (a zip export). */
    entry: RegExp;
    /** Names of the elements (children of the root) that carry data. */
    elements: readonly string[];
    /**
     * Elements that point at another file of the archive (Apple's `<FileReference path>` to a
     * workout route's GPX): the file is streamed to `read`, whose elements become the
     * referencing element's children. A file larger than `maxBytes` is not read; a file named by
     * more than `maxReferences` elements fails the import (250 workouts naming one 32 MB route
     * made 8 GB). `read` bounds what it builds and throws past its limits.
     */
    references?: {
      element: string;
      attribute: string;
      maxBytes: number;
      maxReferences: number;
      read(source: Readable): Promise<XmlElement[]>;
    };
    fromElement(element: XmlElement): MobileSample[];
  };
};

/** Throws with `problem` when a record is unusable; parsers collect these into `invalid`. */
export class MobileRecordError extends Error {
  override name = 'MobileRecordError';
}

/**
 * The samples of one record when every one is plausible (dates in the window, values in physical
 * range: model/plausibility.ts); otherwise the record is refused with the first problem.
 */
export function plausibleSamples(samples: MobileSample[], nowMs: number): MobileSample[] {
  for (const sample of samples) {
    const problem = sampleProblem(sample, nowMs);
    if (problem) throw new MobileRecordError(`implausible: ${problem}`);
  }
  return samples;
}

/**
 * Collects samples of a list of records, turning each unusable or implausible record into an
 * `invalid` entry: the rest of the list is still taken.
 */
export function readRecords(
  list: unknown,
  field: string,
  read: (record: Record<string, unknown>) => MobileSample[],
  into: MobileBatch,
  nowMs: number,
  offset = 0,
): void {
  if (list === undefined || list === null) return;
  if (!Array.isArray(list)) throw new MobileRecordError(`${field} must be an array`);
  list.forEach((record, index) => {
    try {
      if (typeof record !== 'object' || record === null || Array.isArray(record))
        throw new MobileRecordError('not an object');
      into.samples.push(...plausibleSamples(read(record as Record<string, unknown>), nowMs));
    } catch (error) {
      if (!(error instanceof MobileRecordError) && !(error instanceof RangeError)) throw error;
      into.invalid.push({ index: offset + index, problem: `${field}[${index}]: ${error.message}` });
    }
  });
}

/** The deletions list of an upload: record ids as strings. */
export function readDeletions(list: unknown): string[] {
  if (list === undefined || list === null) return [];
  if (
    !Array.isArray(list) ||
    !list.every((id) => typeof id === 'string' && id.length > 0 && id.length <= 200)
  )
    throw new MobileRecordError('deletions must be an array of record ids');
  return list as string[];
}

export const emptyBatch = (): MobileBatch => ({ samples: [], deletions: [], invalid: [] });

export function requireString(record: Record<string, unknown>, field: string): string {
  const value = record[field];
  if (typeof value !== 'string' || value === '') throw new MobileRecordError(`${field} is missing`);
  return value;
}

export function optionalString(record: Record<string, unknown>, field: string): string | null {
  const value = record[field];
  return typeof value === 'string' && value !== '' ? value : null;
}

/**
 * An entry of a fixed table looked up by an uploaded value: only the table's own keys count, so
 * "toString" or "__proto__" find nothing, and an object (whose `toString` may be anything) is no key.
 */
export function lookupOwn<T>(table: Readonly<Record<string, T>>, value: unknown): T | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const key = String(value);
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

/** An uploaded value as text for a message: never throws, whatever the value is. */
export function textOf(value: unknown): string {
  if (value === null || typeof value !== 'object') return String(value);
  try {
    return JSON.stringify(value).slice(0, 200);
  } catch {
    return typeof value;
  }
}

/** A number, or a decimal string (export attributes); null when absent. */
export function numberOf(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && value.trim() !== '') {
    const parsed = Number(value);
    return Number.isFinite(parsed) ? parsed : null;
  }
  return null;
}

/**
 * Parses ISO 8601 with an offset or `Z`, and Apple's export form `2026-11-20 08:00:00 +0100`.
 * Returns the instant and the offset it was written in; text without an offset is refused
 * (its local day would be a guess).
 */
export function parsePlatformTime(text: unknown, field: string): { ms: number; offsetMinutes: number } {
  if (typeof text !== 'string') throw new MobileRecordError(`${field} is missing`);
  const fast = appleExportTime(text);
  if (fast) return fast;
  const match =
    /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?\s*(Z|[+-]\d{2}:?\d{2})$/i.exec(
      text.trim(),
    );
  if (!match) throw new MobileRecordError(`${field} "${text.slice(0, 40)}" is not a datetime with an offset`);
  const [, y, mo, d, h, mi, s, fraction, zone] = match;
  const offsetMinutes =
    zone === 'Z' || zone === 'z'
      ? 0
      : (zone!.startsWith('-') ? -1 : 1) * (Number(zone!.slice(1, 3)) * 60 + Number(zone!.slice(-2)));
  const local = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s ?? 0));
  const ms = local + Math.round(Number(fraction ?? 0) * 1000) - offsetMinutes * 60_000;
  if (!Number.isFinite(ms) || Number(mo) > 12 || Number(d) > 31 || Number(h) > 23)
    throw new MobileRecordError(`${field} "${text.slice(0, 40)}" is not a valid datetime`);
  return { ms, offsetMinutes };
}

const digit = (text: string, index: number) => text.charCodeAt(index) - 48;
const twoDigits = (text: string, index: number) => digit(text, index) * 10 + digit(text, index + 1);

/**
 * Apple's export form `2026-11-20 08:00:00 +0100` read by position: millions of them in an export,
 * so no regular expression. Null when the text is not exactly that form (the general parser decides).
 */
function appleExportTime(text: string): { ms: number; offsetMinutes: number } | null {
  if (text.length !== 25 || text.charCodeAt(10) !== 32 || text.charCodeAt(19) !== 32) return null;
  const sign = text.charCodeAt(20);
  if ((sign !== 43 && sign !== 45) || text.charCodeAt(4) !== 45 || text.charCodeAt(13) !== 58) return null;
  const year = twoDigits(text, 0) * 100 + twoDigits(text, 2);
  const month = twoDigits(text, 5);
  const day = twoDigits(text, 8);
  const hour = twoDigits(text, 11);
  const minute = twoDigits(text, 14);
  const second = twoDigits(text, 17);
  const offset = (sign === 45 ? -1 : 1) * (twoDigits(text, 21) * 60 + twoDigits(text, 23));
  const values = [year, month, day, hour, minute, second, offset];
  if (values.some((value) => !Number.isInteger(value) || Number.isNaN(value))) return null;
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return null;
  for (const index of [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18, 21, 22, 23, 24]) {
    const code = text.charCodeAt(index);
    if (code < 48 || code > 57) return null;
  }
  return {
    ms: Date.UTC(year, month - 1, day, hour, minute, second) - offset * 60_000,
    offsetMinutes: offset,
  };
}

/** Whether `value` lies in [min, max]: guards against garbage a device or app wrote. */
export function plausible(value: number | null, min: number, max: number): number | null {
  return value !== null && value >= min && value <= max ? value : null;
}
