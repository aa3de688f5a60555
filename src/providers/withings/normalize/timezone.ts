// UTC offsets of IANA zone names (Withings sends `timezone: "Europe/Paris"` beside unix times);
// the zone lookup itself is shared (provider-kit/normalize/time-zones.ts).
import { localMidnightMs } from '../../../model/time.ts';
import { zoneOffsetMinutes } from '../../../provider-kit/normalize/time-zones.ts';

export { zoneOffsetMinutes };

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
