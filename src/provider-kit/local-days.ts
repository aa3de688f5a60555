// Day records (daily, body, nutrition) are a total or an average over one local day of the user.
// Providers serve the samples behind them by UTC instants, and a fetch window is cut at UTC
// midnight: at −08:00 a local day runs from 08:00Z to 08:00Z the next day, so a window that ends at
// midnight UTC holds only the first sixteen hours of its last local day, and one that starts there
// holds only the last eight of its first. A day assembled from that part is a wrong total, and
// storing it replaces the whole day another chunk assembled. Two rules keep every stored day whole:
// ask for the instants that cover each requested local day at any offset, and emit only the
// requested days, whose every sample the window held. The chunk that owns a margin day sees it whole.
import type { TypeFetcher } from './api.ts';
import type { DayRange } from './pagination.ts';

/** The widest offsets in use: UTC+14:00 (Line Islands) and UTC−12:00. */
const EAST_MS = 14 * 3_600_000;
const WEST_MS = 12 * 3_600_000;

/**
 * The UTC instants [from, to) that hold every local day of [startDate, endDate) whole, whatever
 * the user's offset (and whichever offsets a traveller's days carry).
 */
export function wholeLocalDaysWindow(range: DayRange): { fromMs: number; toMs: number } {
  return {
    fromMs: Date.parse(`${range.startDate}T00:00:00Z`) - EAST_MS,
    toMs: Date.parse(`${range.endDate}T00:00:00Z`) + WEST_MS,
  };
}

/** A day record: its start is local midnight, written with the day's own offset. */
type DayRecord = { metadata: { start_time: string } };

/** The local day a record belongs to: the date its start is written in (wire datetimes are local). */
export const localDayOf = (record: DayRecord): string => record.metadata.start_time.slice(0, 10);

/** True when `day` is one of the local days [startDate, endDate). */
export const isRequestedDay = (day: string, range: DayRange): boolean =>
  day >= range.startDate && day < range.endDate;

/**
 * The records of the requested local days only. A margin day (before `startDate` or from
 * `endDate`) was assembled from the part of it the window overlapped: it is dropped, never stored.
 */
export function requestedDaysOnly<R extends DayRecord>(records: readonly R[], range: DayRange): R[] {
  return records.filter((record) => isRequestedDay(localDayOf(record), range));
}

/**
 * A fetcher of day records that never yields a margin day, whatever the provider's window: wrap
 * the fetcher of every unified type whose records are assembled from samples by local day.
 */
export function wholeLocalDays(fetcher: TypeFetcher): TypeFetcher {
  return async function* (args) {
    for await (const page of fetcher(args)) {
      const records = page.records.filter(
        (record) =>
          !isDayRecord(record) ||
          isRequestedDay(localDayOf(record), { startDate: args.startDate, endDate: args.endDate }),
      );
      yield { ...page, records };
    }
  };
}

function isDayRecord(record: unknown): record is DayRecord {
  const start = (record as { metadata?: { start_time?: unknown } } | null)?.metadata?.start_time;
  return typeof start === 'string' && start.length >= 10;
}
