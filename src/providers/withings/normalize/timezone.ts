// UTC offsets of IANA zone names (Withings sends `timezone: "Europe/Paris"` beside unix times).
// Intl is slow per call, so offsets are cached per zone and quarter hour: zone transitions fall
// on quarter hours, so every instant in a quarter hour shares one offset.
import { localMidnightMs } from '../../../model/time.ts';

const QUARTER_HOUR_MS = 900_000;
const formatters = new Map<string, Intl.DateTimeFormat | null>();
const offsets = new Map<string, number | null>();

function formatterFor(zone: string): Intl.DateTimeFormat | null {
  let formatter = formatters.get(zone);
  if (formatter === undefined) {
    try {
      formatter = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' });
    } catch {
      // An unknown zone name: the caller falls back to the user's offset.
      formatter = null;
    }
    formatters.set(zone, formatter);
  }
  return formatter;
}

/** Minutes east of UTC in `zone` at `epochMs`; null for an unknown or absent zone. */
export function zoneOffsetMinutes(zone: string | null | undefined, epochMs: number): number | null {
  if (!zone) return null;
  const bucket = Math.floor(epochMs / QUARTER_HOUR_MS);
  const key = `${zone}|${bucket}`;
  const cached = offsets.get(key);
  if (cached !== undefined) return cached;
  const formatter = formatterFor(zone);
  let offset: number | null = null;
  if (formatter) {
    const name = formatter
      .formatToParts(bucket * QUARTER_HOUR_MS)
      .find((part) => part.type === 'timeZoneName')?.value;
    // `GMT` for UTC itself, else `GMT+hh:mm` / `GMT-hh:mm`.
    const match = name ? /^GMT(?:([+-])(\d{1,2})(?::?(\d{2}))?)?$/.exec(name) : null;
    if (match) {
      const minutes = match[1] ? Number(match[2]) * 60 + Number(match[3] ?? 0) : 0;
      offset = match[1] === '-' ? -minutes : minutes;
    }
  }
  if (offsets.size > 50_000) offsets.clear();
  offsets.set(key, offset);
  return offset;
}

/** The offset to write an instant in: the zone's, else the fallback (the user's, else UTC). */
export function offsetIn(zone: string | null | undefined, epochMs: number, fallback: number): number {
  return zoneOffsetMinutes(zone, epochMs) ?? fallback;
}

/** The offset in force at local midnight starting `isoDate` in `zone` (DST days included). */
export function midnightOffset(zone: string | null | undefined, isoDate: string, fallback: number): number {
  const guess = localMidnightMs(isoDate, offsetIn(zone, localMidnightMs(isoDate, fallback), fallback));
  const offset = offsetIn(zone, guess, fallback);
  return offsetIn(zone, localMidnightMs(isoDate, offset), fallback);
}
