// Query parameters of the data reads, parsed by hand so every 400 names the parameter and says
// what was expected (`invalid start_date: expected YYYY-MM-DD or 10-digit unix seconds`).
import { invalidParameter } from '../../core/errors.ts';
import { type DataTypeName, dataTypes } from '../../model/index.ts';
import { isSupportedDate } from '../../model/calendar.ts';
import { addDays, dayNumberToIsoDate, isoDateToDayNumber, MS_PER_DAY } from '../../model/time.ts';

/** A range bound as the client wrote it: a calendar day, or an instant (unix seconds). */
export type Bound = { kind: 'date'; day: string } | { kind: 'instant'; ms: number };

/**
 * A requested range, half-open: [start, end). Dates select records whose anchor falls on a local
 * day from `start` up to, not including, `end` (so 2024-01-01..2024-01-31 is 30 days and costs
 * 30); instants select anchors in [start, end).
 */
export type DataWindow = {
  start: Bound;
  end: Bound;
  /** Instants of the bounds (dates at UTC midnight), for cost and large-request decisions. */
  startMs: number;
  endMs: number;
  /** Local days that must be synced to answer: [syncStartDay, syncEndDay). */
  syncStartDay: string;
  syncEndDay: string;
};

export type ReadParams = {
  /** Null for the athlete, which takes no dates (cost 1). */
  window: DataWindow | null;
  toWebhook: boolean;
  withSamples: boolean;
};

export type RawReadQuery = {
  start_date?: string;
  end_date?: string;
  to_webhook?: string;
  with_samples?: string;
};

const UNIX_SECONDS = /^\d{10}$/;
/** Local offsets stay within ±18 h, so a local day never lies further than this from UTC. */
const MAX_OFFSET_MS = 18 * 3_600_000;

export const boundMs = (bound: Bound) =>
  bound.kind === 'date' ? isoDateToDayNumber(bound.day) * MS_PER_DAY : bound.ms;

const utcDay = (ms: number) => Math.floor(ms / MS_PER_DAY);

/** The later / earlier of two `YYYY-MM-DD` days (they compare as text). */
export const laterDay = (a: string, b: string) => (a > b ? a : b);
export const earlierDay = (a: string, b: string) => (a < b ? a : b);

/** A real calendar date in the supported range, or 10-digit unix seconds; 2024-02-30 is neither. */
export function parseBound(name: string, raw: string): Bound {
  const text = raw.trim();
  if (isSupportedDate(text)) return { kind: 'date', day: text };
  if (UNIX_SECONDS.test(text)) return { kind: 'instant', ms: Number(text) * 1000 };
  throw invalidParameter(name, 'expected YYYY-MM-DD or 10-digit unix seconds');
}

/** `true`/`false` as the reference SDK sends them (also 1/0); anything else is a 400. */
export function parseBoolean(name: string, raw: string | undefined, fallback: boolean): boolean {
  if (raw === undefined || raw === '') return fallback;
  const text = raw.trim().toLowerCase();
  if (text === 'true' || text === '1') return true;
  if (text === 'false' || text === '0') return false;
  throw invalidParameter(name, 'expected true or false');
}

/**
 * The window between two bounds, with the local days to sync around instant bounds widened.
 * An empty window (start == end) holds no record, so it syncs nothing: a read fetches from the
 * provider only around the window it paid for.
 */
export function windowOf(start: Bound, end: Bound): DataWindow {
  const startMs = boundMs(start);
  const endMs = boundMs(end);
  if (endMs < startMs) throw invalidParameter('end_date', 'must not be before start_date');
  if (endMs === startMs) {
    const day = dayNumberToIsoDate(utcDay(startMs));
    return { start, end, startMs, endMs, syncStartDay: day, syncEndDay: day };
  }
  const syncStart = start.kind === 'date' ? utcDay(startMs) : utcDay(startMs - MAX_OFFSET_MS);
  const syncEnd = end.kind === 'date' ? utcDay(endMs) : utcDay(endMs + MAX_OFFSET_MS) + 1;
  return {
    start,
    end,
    startMs,
    endMs,
    syncStartDay: dayNumberToIsoDate(syncStart),
    syncEndDay: dayNumberToIsoDate(Math.max(syncStart, syncEnd)),
  };
}

/**
 * Without `end_date` the range runs up to now: through today for a date start, to this instant
 * for a unix-seconds start (never before the start, so a future start yields an empty range).
 */
export function parseWindow(query: RawReadQuery, now: Date): DataWindow {
  if (query.start_date === undefined || query.start_date === '') {
    throw invalidParameter('start_date', 'required; expected YYYY-MM-DD or 10-digit unix seconds');
  }
  const start = parseBound('start_date', query.start_date);
  let end: Bound;
  if (query.end_date !== undefined && query.end_date !== '') {
    end = parseBound('end_date', query.end_date);
  } else if (start.kind === 'date') {
    const tomorrow = dayNumberToIsoDate(utcDay(now.getTime()) + 1);
    end = { kind: 'date', day: laterDay(tomorrow, start.day) };
  } else {
    end = { kind: 'instant', ms: Math.max(start.ms, now.getTime()) };
  }
  return windowOf(start, end);
}

export function parseReadParams(
  type: DataTypeName,
  query: RawReadQuery,
  now: Date,
  defaults: { toWebhook: boolean },
): ReadParams {
  const toWebhook = parseBoolean('to_webhook', query.to_webhook, defaults.toWebhook);
  if (!dataTypes[type].acceptsWithSamples && query.with_samples !== undefined) {
    throw invalidParameter('with_samples', `not supported for ${type}`);
  }
  const withSamples = parseBoolean('with_samples', query.with_samples, false);
  return { window: parseWindow(query, now), toWebhook, withSamples };
}

export function parseAthleteParams(query: { to_webhook?: string }): ReadParams {
  return { window: null, toWebhook: parseBoolean('to_webhook', query.to_webhook, true), withSamples: false };
}

/** The record filter of a window: exact on days or instants, plus an instant superset for the index. */
export type RecordFilter = {
  fromAt: Date;
  toAt: Date;
  fromDay: string | null;
  toDay: string | null;
};

export function filterOf(window: DataWindow): RecordFilter {
  const { start, end } = window;
  return {
    fromAt: new Date(start.kind === 'date' ? window.startMs - MAX_OFFSET_MS : window.startMs),
    toAt: new Date(end.kind === 'date' ? window.endMs + MAX_OFFSET_MS : window.endMs),
    fromDay: start.kind === 'date' ? start.day : null,
    toDay: end.kind === 'date' ? end.day : null,
  };
}

/** A bound moved by whole days (a date by calendar days, an instant by 24 hours). */
function shifted(bound: Bound, days: number): Bound {
  return bound.kind === 'date'
    ? { kind: 'date', day: addDays(bound.day, days) }
    : { kind: 'instant', ms: bound.ms + days * MS_PER_DAY };
}

const earlier = (a: Bound, b: Bound) => (boundMs(a) <= boundMs(b) ? a : b);

/**
 * A window cut into consecutive windows of at most `days` days, with the same kind of bounds: for
 * reads that compute over records and must hold only a part of a long window at once.
 */
export function splitWindow(window: DataWindow, days: number): DataWindow[] {
  const parts: DataWindow[] = [];
  let start = window.start;
  do {
    const end = earlier(shifted(start, days), window.end);
    parts.push(windowOf(start, end));
    start = end;
  } while (boundMs(start) < boundMs(window.end));
  return parts;
}

/** The `days` before a window and the `days` after it. */
export function marginsOf(window: DataWindow, days: number): [DataWindow, DataWindow] {
  return [
    windowOf(shifted(window.start, -days), window.start),
    windowOf(window.end, shifted(window.end, days)),
  ];
}
