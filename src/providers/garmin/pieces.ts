// The piece (a local day) each Garmin summary is normalized in. A pulled list may hold up to 90
// days of one summary type (a backfill's answer), so the fetchers sort every summary into its day
// and normalize day by day. A piece must hold everything its normalizer joins: a day's summary
// with that day's epochs, stress and pulse ox (normalize/daily.ts groups by the same day); a
// sleep with its night's HRV (same calendarDate) and the all-day respiration of the night, which
// began the evening before (so a respiration day is filed under its own day and the next); an
// activity with its details and manual edits (same start); a weigh-in with the day's metrics.
import { addDays, localIsoDate } from '../../model/time.ts';
import type { NormalizeContext } from '../../provider-kit/normalize/normalize.ts';
import { isNumber, offsetMinutesOf } from './normalize/time.ts';

type Summary = {
  calendarDate?: unknown;
  startTimeInSeconds?: unknown;
  startTimeOffsetInSeconds?: unknown;
  measurementTimeInSeconds?: unknown;
  measurementTimeOffsetInSeconds?: unknown;
  periodStartDate?: unknown;
  summary?: unknown;
};

const isDate = (value: unknown): value is string =>
  typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value);

/** The local day a summary starts on, as normalize/daily.ts reads it. */
function startDay(summary: Summary, context: NormalizeContext): string | null {
  if (isDate(summary.calendarDate)) return summary.calendarDate;
  if (!isNumber(summary.startTimeInSeconds)) return null;
  const offset = offsetMinutesOf(summary as Parameters<typeof offsetMinutesOf>[0], context, {
    dayStart: true,
  });
  return localIsoDate(summary.startTimeInSeconds * 1000, offset);
}

/**
 * The pieces `item` of `kind` belongs to: one, two for a respiration day, none for a summary that
 * names no day (every normalizer skips those: they have no time to place a record at).
 */
export function piecesOf(kind: string, item: unknown, context: NormalizeContext): string[] {
  if (!item || typeof item !== 'object') return [];
  const summary = item as Summary;
  let day: string | null;
  switch (kind) {
    case 'activities':
    case 'manuallyUpdatedActivities':
    case 'activityDetails': {
      // A detail carries its activity's summary; both name the same start instant.
      const own = kind === 'activityDetails' ? (summary.summary as Summary | undefined) : summary;
      const start = own && typeof own === 'object' ? own.startTimeInSeconds : undefined;
      day = isNumber(start) ? new Date(start * 1000).toISOString().slice(0, 10) : null;
      break;
    }
    case 'bodyComps': {
      const at = summary.measurementTimeInSeconds;
      const offset = isNumber(summary.measurementTimeOffsetInSeconds)
        ? Math.round(summary.measurementTimeOffsetInSeconds / 60)
        : offsetMinutesOf(summary as Parameters<typeof offsetMinutesOf>[0], context);
      day = isNumber(at) ? localIsoDate(at * 1000, offset) : null;
      break;
    }
    case 'mct':
      day = isDate(summary.periodStartDate) ? summary.periodStartDate : null;
      break;
    case 'allDayRespiration': {
      const own = startDay(summary, context);
      return own ? [own, addDays(own, 1)] : [];
    }
    default:
      day = startDay(summary, context);
  }
  return day ? [day] : [];
}
