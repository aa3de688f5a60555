// Splitting data deliveries. A request over a long range, or a payload too big for one POST, is
// announced with large_request_processing / large_request_sending {expected_payloads} and then sent
// as several data events of at most N records and M bytes each, all with the same reference. The
// limits are the webhook settings' (WEBHOOK_CHUNK_MAX_OBJECTS, WEBHOOK_MAX_PAYLOAD_BYTES).
import { DEFAULT_CHUNK_MAX_OBJECTS, DEFAULT_MAX_PAYLOAD_BYTES } from '../delivery/settings.ts';
/** A requested range longer than this many days is a large request. */
export const LARGE_REQUEST_THRESHOLD_DAYS = 28;

const DAY_MS = 24 * 60 * 60 * 1000;

export interface ChunkLimits {
  maxObjects?: number;
  maxBytes?: number;
  /**
   * Bytes of the event around `data` (type, user, version, reference), so the whole body stays
   * within `maxBytes`, not just the array.
   */
  reservedBytes?: number;
}

export function serializedSize(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? 'null', 'utf8');
}

/** Size of `[a,b,c]` from the members' sizes: brackets plus a comma between members. */
const arraySize = (memberBytes: number, count: number): number => 2 + memberBytes + Math.max(0, count - 1);

function positiveInteger(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer`);
  return value;
}

/**
 * Splits records into chunks of at most `maxObjects` records whose JSON array, plus
 * `reservedBytes`, is at most `maxBytes`. Order is kept. A record too big for any chunk travels
 * alone rather than being dropped: losing data is worse than one oversized POST.
 */
export function chunkRecords<T>(
  records: readonly T[],
  limits: ChunkLimits = {},
  /** Each record's `serializedSize`, when the caller has them already (each is a whole JSON.stringify). */
  sizes: readonly number[] = records.map(serializedSize),
): T[][] {
  const maxObjects = positiveInteger(limits.maxObjects ?? DEFAULT_CHUNK_MAX_OBJECTS, 'maxObjects');
  const maxBytes = positiveInteger(limits.maxBytes ?? DEFAULT_MAX_PAYLOAD_BYTES, 'maxBytes');
  const budget = maxBytes - (limits.reservedBytes ?? 0);
  const chunks: T[][] = [];
  let current: T[] = [];
  let currentBytes = 0;
  for (const [index, record] of records.entries()) {
    const size = sizes[index]!;
    const fitsCount = current.length < maxObjects;
    const fitsBytes = arraySize(currentBytes + size, current.length + 1) <= budget;
    if (current.length > 0 && !(fitsCount && fitsBytes)) {
      chunks.push(current);
      current = [];
      currentBytes = 0;
    }
    current.push(record);
    currentBytes += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/** Length of a requested range in days (fractional for unix-second bounds). */
export function requestRangeDays(start: Date, end: Date): number {
  return (end.getTime() - start.getTime()) / DAY_MS;
}

export function isLargeRequestRange(
  start: Date,
  end: Date,
  thresholdDays: number = LARGE_REQUEST_THRESHOLD_DAYS,
): boolean {
  return requestRangeDays(start, end) > thresholdDays;
}

export interface DeliveryPlanOptions extends ChunkLimits {
  largeRangeDays?: number;
  /** A payload whose body would exceed this is chunked even for a short range; defaults to maxBytes. */
  largePayloadBytes?: number;
}

export interface DeliveryPlan<T> {
  /** Send large_request_processing and large_request_sending before the chunks. */
  large: boolean;
  /** One data event per entry; for a large plan, `expected_payloads` is `chunks.length`. */
  chunks: T[][];
}

/** Decides whether a data request's records go out as one event or as announced chunks. */
export function planDataDelivery<T>(
  records: readonly T[],
  range: { start: Date; end: Date },
  options: DeliveryPlanOptions = {},
): DeliveryPlan<T> {
  const reserved = options.reservedBytes ?? 0;
  const payloadLimit = options.largePayloadBytes ?? options.maxBytes ?? DEFAULT_MAX_PAYLOAD_BYTES;
  // Measured once: an import's rebuild sends every record of weeks of days, samples and all.
  const sizes = records.map(serializedSize);
  const memberBytes = sizes.reduce((sum, size) => sum + size, 0);
  const large =
    isLargeRequestRange(range.start, range.end, options.largeRangeDays) ||
    reserved + arraySize(memberBytes, records.length) > payloadLimit;
  return large ? { large, chunks: chunkRecords(records, options, sizes) } : { large, chunks: [[...records]] };
}
