// Google Health time rules. Instants are RFC 3339 UTC; the user's clock is a separate
// `…UtcOffset` Duration. When the offset is missing, the civil (local) time Google also writes
// tells it: civil minus physical. Only then the user's known offset, then UTC.
import { formatDateTime } from '../../../model/time.ts';
import type { NormalizeContext } from '../../../provider-kit/normalize/normalize.ts';
import type { CivilDate, CivilDateTime, GDuration, GInt64 } from './types.ts';
import { heartRate } from '../../../provider-kit/normalize/measures.ts';

export const isNumber = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value);

/** An int64 (string in Google's JSON) or number; null for anything else. */
export function int64(value: GInt64 | null | undefined): number | null {
  if (isNumber(value)) return value;
  if (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  return null;
}
export const numberOrNull = (value: unknown): number | null => (isNumber(value) ? value : null);
export const positiveOrNull = (value: unknown): number | null =>
  isNumber(value) && value > 0 ? value : null;
export const textOrNull = (value: unknown): string | null =>
  typeof value === 'string' && value !== '' ? value : null;

/** Seconds of a Duration ("1800s", "-3600s", "1.5s") or number; null when unreadable. */
export function durationSeconds(value: GDuration | null | undefined): number | null {
  if (isNumber(value)) return value;
  if (typeof value !== 'string') return null;
  const match = /^(-?\d+(?:\.\d+)?)s$/.exec(value.trim());
  return match ? Number(match[1]) : null;
}

/** Epoch ms of an RFC 3339 instant; null when unreadable. */
export function instantMs(text: unknown): number | null {
  if (typeof text !== 'string') return null;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? null : ms;
}

function civilMs(civil: CivilDateTime | undefined): number | null {
  const date = civil?.date;
  if (!date || !isNumber(date.year) || !isNumber(date.month) || !isNumber(date.day)) return null;
  const time = civil.time ?? {};
  return Date.UTC(date.year, date.month - 1, date.day, time.hours ?? 0, time.minutes ?? 0, time.seconds ?? 0);
}

/** Minutes east of UTC at an instant: its offset, else civil − physical, else the user's, else 0. */
export function offsetMinutes(
  atMs: number,
  utcOffset: GDuration | null | undefined,
  civil: CivilDateTime | undefined,
  context: NormalizeContext,
): number {
  const seconds = durationSeconds(utcOffset);
  if (seconds !== null && Math.abs(seconds) <= 14 * 3600) return Math.round(seconds / 60);
  const local = civilMs(civil);
  if (local !== null) {
    const minutes = Math.round((local - atMs) / 60_000);
    if (Math.abs(minutes) <= 14 * 60) return minutes;
  }
  return context.userOffsetMinutes ?? 0;
}

export const wire = (epochMs: number, offset: number) => formatDateTime(epochMs, offset);

/** `YYYY-MM-DD` of a civil date; null when incomplete. */
export function isoOf(date: CivilDate | undefined): string | null {
  if (!date || !isNumber(date.year) || !isNumber(date.month) || !isNumber(date.day)) return null;
  const pad = (value: number, width = 2) => String(value).padStart(width, '0');
  return `${pad(date.year, 4)}-${pad(date.month)}-${pad(date.day)}`;
}

/** The data point id: the last segment of its resource name. */
export const pointId = (name: unknown): string | null =>
  typeof name === 'string' && name.includes('/dataPoints/') ? (name.split('/').pop() ?? null) : null;

/** Heart rates of 0 and 255 are what devices write when there is no reading (the shared rule). */
export const heartRateOrNull = (bpm: number | null): number | null => heartRate(bpm);
