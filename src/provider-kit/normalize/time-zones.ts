// UTC offsets from IANA zone names (`Europe/Paris`), for providers that send a zone beside unix
// times or beside local wall-clock times. Intl is slow per call, so offsets are cached per zone
// and quarter hour: zone transitions fall on quarter hours, so every instant in a quarter hour
// shares one offset.
const QUARTER_HOUR_MS = 900_000;
const formatters = new Map<string, Intl.DateTimeFormat | null>();
const offsets = new Map<string, number | null>();

function formatterFor(zone: string): Intl.DateTimeFormat | null {
  let formatter = formatters.get(zone);
  if (formatter === undefined) {
    try {
      formatter = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' });
    } catch {
      // An unknown zone name: the caller falls back to another source of the offset.
      formatter = null;
    }
    formatters.set(zone, formatter);
  }
  return formatter;
}

/** Minutes east of UTC in `zone` at `epochMs`; null for an unknown or absent zone. */
export function zoneOffsetMinutes(zone: string | null | undefined, epochMs: number): number | null {
  if (!zone || !Number.isFinite(epochMs)) return null;
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

/**
 * The offset of a local wall-clock time (`YYYY-MM-DD[T ]HH:MM[:SS]`, no offset) in `zone`: the
 * offset in force at the instant that wall time names there. Null when the zone is unknown or
 * the text is not a local time, so the caller never silently writes +00:00.
 */
export function localTimeOffsetMinutes(zone: string | null | undefined, localText: string): number | null {
  const wallMs = Date.parse(`${localText.trim().replace(' ', 'T')}Z`);
  if (Number.isNaN(wallMs)) return null;
  const first = zoneOffsetMinutes(zone, wallMs);
  if (first === null) return null;
  // The wall time minus the guessed offset is the instant; its own offset settles DST edges.
  return zoneOffsetMinutes(zone, wallMs - first * 60_000) ?? first;
}
