// Dates and datetimes that come from outside (query parameters, request bodies, provider
// payloads) are read here, strictly. `Date.parse` rolls 2026-02-30 over to 2 March and takes
// years the database cannot store (PostgreSQL has no year 0), so a date that reached SQL
// unchecked came back as a 500. Every reader of outside dates goes through this file: a real
// calendar date, a real time of day, an offset within ±18 h, inside the supported range.

/** The supported range of calendar dates: health data, plans and birth dates all fall inside. */
export const EARLIEST_SUPPORTED_DATE = '1900-01-01';
export const LATEST_SUPPORTED_DATE = '9999-12-31';
export const SUPPORTED_DATE_RANGE = `${EARLIEST_SUPPORTED_DATE}..${LATEST_SUPPORTED_DATE}`;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|([+-])(\d{2}):?(\d{2}))?$/i;
const MAX_OFFSET_MINUTES = 18 * 60;

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** A real day of a real month, inside the supported range (the range compares as text). */
function isSupportedDay(year: number, month: number, day: number, text: string): boolean {
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return false;
  return text >= EARLIEST_SUPPORTED_DATE && text <= LATEST_SUPPORTED_DATE;
}

/** True for `YYYY-MM-DD` naming a real calendar date in the supported range. */
export function isSupportedDate(text: string): boolean {
  const match = DATE.exec(text);
  if (!match) return false;
  return isSupportedDay(Number(match[1]), Number(match[2]), Number(match[3]), text);
}

export type DateTimeReading = {
  /** Epoch milliseconds. */
  ms: number;
  /** The offset the text wrote, in minutes east of UTC; null when it wrote none. */
  offsetMinutes: number | null;
};

/**
 * Reads an ISO 8601 datetime (`2024-03-05T07:12:00.000000+01:00`, seconds and fraction
 * optional, `Z` or `±HH:MM` / `±HHMM`). Null for anything else: an impossible date or time, an
 * offset beyond ±18 h, a date outside the supported range, or (with `requireOffset`) no offset.
 * Without an offset the text is read as UTC.
 */
export function readDateTime(
  text: string,
  options: { requireOffset?: boolean } = {},
): DateTimeReading | null {
  const match = DATE_TIME.exec(text);
  if (!match) return null;
  const [year, month, day, hour, minute] = [1, 2, 3, 4, 5].map((index) => Number(match[index])) as [
    number,
    number,
    number,
    number,
    number,
  ];
  const second = match[6] === undefined ? 0 : Number(match[6]);
  if (!isSupportedDay(year, month, day, text.slice(0, 10))) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  let offsetMinutes: number | null = null;
  if (match[8] !== undefined) {
    offsetMinutes =
      match[8].toUpperCase() === 'Z'
        ? 0
        : (match[9] === '-' ? -1 : 1) * (Number(match[10]) * 60 + Number(match[11]));
    if (Number(match[11]) > 59 || Math.abs(offsetMinutes) > MAX_OFFSET_MINUTES) return null;
  } else if (options.requireOffset) {
    return null;
  }
  const millis = match[7] === undefined ? 0 : Math.floor(Number(`0.${match[7]}`) * 1000);
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, millis);
  // Date.UTC maps years 0-99 to 1900-1999; the supported range starts later, so this is exact.
  return { ms: utc - (offsetMinutes ?? 0) * 60_000, offsetMinutes };
}
