// What every provider normalizer shares: the context the connector framework passes in, the
// shape of the per-provider normalizer tables, and time-zone helpers. Provider payload types
// live with each provider; nothing here names one.
import type { Activity, Athlete, Body, Daily, Sleep } from '../../model/index.ts';
import { formatDateTime, localMidnightMs, MS_PER_DAY } from '../../model/time.ts';
import { NormalizationError } from './errors.ts';

/** What the framework knows about the user beyond the payload itself. */
export type NormalizeContext = {
  /** The user's UTC offset in minutes east, when known; used only where a payload carries none. */
  userOffsetMinutes: number | null;
  /** When the payload was fetched (epoch ms): places undated documents (profiles) on a day. */
  now?: number;
  /** The user's maximum heart rate, when known: turns bpm zone bounds into percentages. */
  maxHeartRate?: number | null;
};

/** Records by the unified type a normalizer produces (the provider-facing data types). */
export type UnifiedRecords = {
  activity: Activity;
  athlete: Athlete;
  body: Body;
  daily: Daily;
  sleep: Sleep;
};
export type UnifiedTypeName = keyof UnifiedRecords;

/**
 * One row of a provider's normalizer table. `companions` are further provider kinds the
 * framework fetches for the same range and hands over in the same payload; a change to any of
 * them (a webhook) means this kind's records must be normalized again.
 */
export type Normalizer<Payload, Type extends UnifiedTypeName> = {
  unifiedType: Type;
  companions: readonly string[];
  normalize(payload: Payload, context: NormalizeContext): UnifiedRecords[Type][];
};

/**
 * Keeps each row's payload type while checking the row's shape, and makes a payload that is not
 * in the documented shape a NormalizationError naming the row (never a bare TypeError).
 */
export function normalizer<Payload, Type extends UnifiedTypeName>(
  row: Normalizer<Payload, Type>,
): Normalizer<Payload, Type> {
  return {
    ...row,
    normalize(payload, context) {
      try {
        return row.normalize(payload, context);
      } catch (error) {
        if (error instanceof NormalizationError) throw error;
        const reason = error instanceof Error ? error.message : String(error);
        throw new NormalizationError(
          `${row.unifiedType} payload`,
          `not in the documented shape (${reason})`,
          {
            cause: error,
          },
        );
      }
    },
  };
}

/** 0 (UTC) when the offset is zero or unknown, else 1 (local): `timestamp_localization` from an offset. */
export function localizationOf(offsetMinutes: number): 0 | 1 {
  return offsetMinutes === 0 ? 0 : 1;
}

/** Minutes east of UTC for a Time Zone Designator (`+hh:mm`, `-hh:mm`, `+hhmm`, `Z`); null otherwise. */
export function tzdOffsetMinutes(tzd: string | null | undefined): number | null {
  if (typeof tzd !== 'string') return null;
  if (tzd === 'Z' || tzd === 'z') return 0;
  const match = /^([+-])(\d{2}):?(\d{2})$/.exec(tzd);
  if (!match) return null;
  const minutes = Number(match[2]) * 60 + Number(match[3]);
  return match[1] === '-' ? -minutes : minutes;
}

/** The offset written at the end of an ISO datetime (`Z` is 0); null when it has none. */
export function trailingOffsetMinutes(text: string): number | null {
  const last = text.charCodeAt(text.length - 1);
  if (last === 90 || last === 122) return 0; // 'Z' | 'z'
  const match = /T.*([+-]\d{2}:?\d{2})$/.exec(text);
  return match?.[1] ? tzdOffsetMinutes(match[1]) : null;
}

/**
 * The instant of an ISO datetime. Text without an offset is wall-clock time at
 * `fallbackOffsetMinutes` (Date.parse would read it in the machine's zone, which is never right).
 */
export function instantOf(text: string, fallbackOffsetMinutes: number): number {
  const explicit = trailingOffsetMinutes(text);
  const epochMs =
    explicit === null ? Date.parse(`${text}Z`) - fallbackOffsetMinutes * 60_000 : Date.parse(text);
  if (Number.isNaN(epochMs)) throw new RangeError(`invalid datetime: ${text}`);
  return epochMs;
}

/** The offset to write a provider datetime in: its own, else the user's, else UTC. */
export function offsetFor(text: string | null | undefined, context: NormalizeContext): number {
  const own = typeof text === 'string' ? trailingOffsetMinutes(text) : null;
  // A trailing `Z` is taken at its word (UTC). Providers that write UTC instants next to a
  // separate offset field resolve the offset from that field instead (their normalizers say so).
  return own ?? context.userOffsetMinutes ?? 0;
}

/** Re-writes a provider datetime in the wire form, keeping the offset it was written in. */
export function wireDateTime(text: string, context: NormalizeContext): string {
  const offset = offsetFor(text, context);
  return formatDateTime(instantOf(text, offset), offset);
}

/** Wire datetimes of local midnight starting `isoDate` and the next one (a day record's bounds). */
export function dayBoundsOf(
  isoDate: string,
  offsetMinutes: number,
): { start_time: string; end_time: string } {
  const startMs = localMidnightMs(isoDate, offsetMinutes);
  return {
    start_time: formatDateTime(startMs, offsetMinutes),
    end_time: formatDateTime(startMs + MS_PER_DAY, offsetMinutes),
  };
}

/** Score contributors as the current schema's name -> score map, dropping nulls. */
export function contributorMap(
  contributors: Readonly<Record<string, number | null | undefined>> | null | undefined,
): Record<string, number> | null {
  if (!contributors) return null;
  const map: Record<string, number> = {};
  for (const [name, score] of Object.entries(contributors)) {
    if (typeof score === 'number') map[name] = score;
  }
  return map;
}

/** Average, minimum and maximum of the non-null values; nulls when there are none. */
export function statsOf(values: readonly (number | null)[]): {
  avg: number | null;
  min: number | null;
  max: number | null;
} {
  let total = 0;
  let count = 0;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const value of values) {
    if (value === null) continue;
    total += value;
    count += 1;
    if (value < min) min = value;
    if (value > max) max = value;
  }
  return count === 0 ? { avg: null, min: null, max: null } : { avg: total / count, min, max };
}
