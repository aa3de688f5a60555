// Garmin's clock rules in one place. Instants are UTC epoch seconds; the device's displayed
// clock is a separate `…OffsetInSeconds`. When that offset is missing, a day summary still
// tells it: it starts at local midnight of its `calendarDate`, so the offset is that midnight
// read as UTC minus the start instant. Only then the user's known offset, and only then UTC.
import { formatDateTime, MS_PER_DAY } from '../../../model/time.ts';
import type { NormalizeContext } from '../../../provider-kit/normalize/normalize.ts';
import type { OffsetSeries } from './types.ts';
import { heartRate, positiveOrNull } from '../../../provider-kit/normalize/measures.ts';

export const isNumber = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value);

/** Minutes east of UTC for a summary (see the file comment for the order of sources). */
export function offsetMinutesOf(
  summary: { startTimeOffsetInSeconds?: number | null; startTimeInSeconds?: number; calendarDate?: string },
  context: NormalizeContext,
  options: { dayStart?: boolean } = {},
): number {
  if (isNumber(summary.startTimeOffsetInSeconds)) return Math.round(summary.startTimeOffsetInSeconds / 60);
  if (options.dayStart && isNumber(summary.startTimeInSeconds) && typeof summary.calendarDate === 'string') {
    const midnight = Date.parse(`${summary.calendarDate}T00:00:00Z`);
    const minutes = Math.round((midnight - summary.startTimeInSeconds * 1000) / 60_000);
    // A real offset lies within ±14 h; anything else means the fields disagree.
    if (Number.isFinite(minutes) && Math.abs(minutes) <= 14 * 60 && Math.abs(minutes * 60_000) < MS_PER_DAY)
      return minutes;
  }
  return context.userOffsetMinutes ?? 0;
}

export const wireAt = (epochSeconds: number, offsetMinutes: number) =>
  formatDateTime(epochSeconds * 1000, offsetMinutes);

/**
 * A `{"offset": value}` series as time-ordered points from `startSeconds`; entries whose value
 * is not a reading (null, non-numbers, or what `keep` refuses: sentinels) are skipped.
 */
export function offsetPoints(
  series: OffsetSeries | null | undefined,
  startSeconds: number,
  keep: (value: number) => boolean = () => true,
): { atSeconds: number; value: number }[] {
  if (!series || typeof series !== 'object') return [];
  const points: { atSeconds: number; value: number }[] = [];
  for (const [key, value] of Object.entries(series)) {
    const offset = Number(key);
    if (!Number.isFinite(offset) || !isNumber(value) || !keep(value)) continue;
    points.push({ atSeconds: startSeconds + offset, value });
  }
  return points.sort((a, b) => a.atSeconds - b.atSeconds);
}

/** Heart rates of 0 and 255 are what Garmin devices write when there is no reading (the shared rule). */
export const isHeartRate = (bpm: number) => heartRate(bpm) !== null;
export const heartRateOrNull = heartRate;
/** A positive measurement, else null (a zero in a summary is "not recorded"). */
export { positiveOrNull };
export const numberOrNull = (value: number | null | undefined): number | null =>
  isNumber(value) ? value : null;
/** A string field, else null (an undocumented shape is no value, not a TypeError later). */
export const textOrNull = (value: unknown): string | null =>
  typeof value === 'string' && value !== '' ? value : null;
