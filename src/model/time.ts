// Date and datetime helpers for the unified model.
//
// The wire contract writes datetimes as ISO-8601 with microseconds and an explicit UTC offset
// (`2022-10-28T10:00:00.000000+01:00`), and calendar days as `YYYY-MM-DD`. Every module that
// emits a datetime goes through `formatDateTime` so the shape is the same everywhere.

const MS_PER_MINUTE = 60_000;
export const MS_PER_DAY = 86_400_000;

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Offsets repeat for millions of samples, so their text is computed once per value. */
const offsetTextCache = new Map<number, string>();

function pad2(value: number): string {
  return value < 10 ? `0${value}` : String(value);
}

/** `+HH:MM` / `-HH:MM` for an offset east of UTC in minutes. */
export function formatOffset(offsetMinutes: number): string {
  let text = offsetTextCache.get(offsetMinutes);
  if (text === undefined) {
    assertOffset(offsetMinutes);
    const sign = offsetMinutes < 0 ? '-' : '+';
    const absolute = Math.abs(offsetMinutes);
    text = `${sign}${pad2(Math.floor(absolute / 60))}:${pad2(absolute % 60)}`;
    offsetTextCache.set(offsetMinutes, text);
  }
  return text;
}

/** Two- and three-digit zero-padded numbers, so formatting millions of samples stays cheap. */
const TWO_DIGITS = Array.from({ length: 60 }, (_, value) => pad2(value));
const THREE_DIGITS = Array.from({ length: 1000 }, (_, value) => String(value).padStart(3, '0'));
/** `YYYY-MM-DDT` of the local day last formatted (samples come in runs on the same day). */
let cachedDayNumber = Number.NaN;
let cachedDayPrefix = '';

/**
 * Formats an instant as the wire datetime in the given offset, e.g.
 * `formatDateTime(Date.UTC(2024, 2, 5, 7, 12), 0)` -> `2024-03-05T07:12:00.000000+00:00`.
 * Sub-millisecond precision does not exist in JS numbers we produce, so microseconds are the
 * milliseconds followed by `000`.
 */
export function formatDateTime(epochMs: number, offsetMinutes = 0): string {
  if (!Number.isFinite(epochMs)) throw new RangeError(`invalid instant: ${epochMs}`);
  const offsetText = formatOffset(offsetMinutes);
  const local = Math.round(epochMs) + offsetMinutes * MS_PER_MINUTE;
  const dayNumber = Math.floor(local / MS_PER_DAY);
  if (dayNumber !== cachedDayNumber) {
    cachedDayPrefix = new Date(dayNumber * MS_PER_DAY).toISOString().slice(0, 11);
    cachedDayNumber = dayNumber;
  }
  let rest = local - dayNumber * MS_PER_DAY;
  const millis = rest % 1000;
  rest = (rest - millis) / 1000;
  const seconds = rest % 60;
  rest = (rest - seconds) / 60;
  const minutes = rest % 60;
  const hours = (rest - minutes) / 60;
  return `${cachedDayPrefix}${TWO_DIGITS[hours]}:${TWO_DIGITS[minutes]}:${TWO_DIGITS[seconds]}.${THREE_DIGITS[millis]}000${offsetText}`;
}

/** Parses any ISO-8601 datetime the model carries (microseconds allowed) to epoch milliseconds. */
export function parseDateTime(text: string): number {
  const epochMs = Date.parse(text);
  if (Number.isNaN(epochMs)) throw new RangeError(`invalid datetime: ${text}`);
  return epochMs;
}

/** The UTC offset written in a wire datetime, in minutes; 0 for `Z` or no offset. */
export function offsetOfDateTime(text: string): number {
  const match = /([+-])(\d{2}):?(\d{2})$/.exec(text);
  if (!match || !/T/.test(text)) return 0;
  const minutes = Number(match[2]) * 60 + Number(match[3]);
  return match[1] === '-' ? -minutes : minutes;
}

/** True when `text` is a real calendar date in `YYYY-MM-DD` form (rejects 2024-02-30). */
export function isIsoDate(text: string): boolean {
  const match = ISO_DATE.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** Days since 1970-01-01 for an ISO date; the integer form makes day arithmetic exact. */
export function isoDateToDayNumber(text: string): number {
  if (!isIsoDate(text)) throw new RangeError(`invalid date: ${text} (expected YYYY-MM-DD)`);
  return Date.parse(`${text}T00:00:00Z`) / MS_PER_DAY;
}

export function dayNumberToIsoDate(dayNumber: number): string {
  return new Date(dayNumber * MS_PER_DAY).toISOString().slice(0, 10);
}

export function addDays(isoDate: string, days: number): string {
  return dayNumberToIsoDate(isoDateToDayNumber(isoDate) + days);
}

/** The instant of local midnight starting `isoDate` for a user at `offsetMinutes` east of UTC. */
export function localMidnightMs(isoDate: string, offsetMinutes = 0): number {
  return isoDateToDayNumber(isoDate) * MS_PER_DAY - offsetMinutes * MS_PER_MINUTE;
}

/** The last day `localIsoDate` formatted: instants come in runs of one day (an import's samples). */
let lastDay = { number: Number.NaN, text: '' };

/** The local calendar date an instant falls on for a user at `offsetMinutes`. */
export function localIsoDate(epochMs: number, offsetMinutes = 0): string {
  const local = epochMs + offsetMinutes * MS_PER_MINUTE;
  const dayNumber = Math.floor(local / MS_PER_DAY);
  if (dayNumber === lastDay.number) return lastDay.text;
  const text = new Date(local).toISOString().slice(0, 10);
  lastDay = { number: dayNumber, text };
  return text;
}

function assertOffset(offsetMinutes: number): void {
  if (!Number.isInteger(offsetMinutes) || Math.abs(offsetMinutes) > 18 * 60) {
    throw new RangeError(`invalid UTC offset: ${offsetMinutes} minutes (expected an integer within ±18 h)`);
  }
}

/** A Date as the wire datetime in UTC (see `formatDateTime`); a string is taken as already on the wire. */
export function wireDateTime(value: string | Date): string {
  return typeof value === 'string' ? value : formatDateTime(value.getTime(), 0);
}
