// Polar's time notations: ISO 8601 durations (`PT2H44M`, `PT210.026S`), device-local wall-clock
// datetimes without a zone, and `"HH:mm"` / `"HH:mm:ss"` clock keys relative to a night or day.
// Hand-written parsers because they run once per route point or sample.

const MS_PER_HOUR = 3_600_000;

/**
 * Seconds in an ISO 8601 duration of days, hours, minutes and (fractional) seconds; null for
 * anything else. Years, months and weeks never appear in Polar's durations (they have no fixed
 * length), so they are rejected rather than guessed.
 */
export function isoDurationSeconds(text: string | null | undefined): number | null {
  if (typeof text !== 'string' || text.length < 3 || text.charCodeAt(0) !== 80 /* P */) return null;
  let total = 0;
  let number = 0;
  let fraction = 0;
  let scale = 0;
  let digits = 0;
  let inTime = false;
  for (let index = 1; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code >= 48 && code <= 57) {
      if (scale === 0) number = number * 10 + (code - 48);
      else {
        fraction += (code - 48) / scale;
        scale *= 10;
      }
      digits++;
      continue;
    }
    if (code === 46 /* . */ || code === 44 /* , */) {
      scale = 10;
      continue;
    }
    const value = number + fraction;
    if (code === 84 /* T */) inTime = true;
    else if (digits === 0) return null;
    else if (code === 68 /* D */ && !inTime) total += value * 86_400;
    else if (code === 72 /* H */ && inTime) total += value * 3600;
    else if (code === 77 /* M */ && inTime) total += value * 60;
    else if (code === 83 /* S */ && inTime) total += value;
    else return null;
    number = 0;
    fraction = 0;
    scale = 0;
    digits = 0;
  }
  return digits === 0 ? total : null;
}

/** Milliseconds since midnight of `HH:mm` or `HH:mm:ss`; null when the text is neither. */
export function clockMs(text: string): number | null {
  if (text.length !== 5 && text.length !== 8) return null;
  const hours = (text.charCodeAt(0) - 48) * 10 + (text.charCodeAt(1) - 48);
  const minutes = (text.charCodeAt(3) - 48) * 10 + (text.charCodeAt(4) - 48);
  const seconds = text.length === 8 ? (text.charCodeAt(6) - 48) * 10 + (text.charCodeAt(7) - 48) : 0;
  if (!(hours >= 0 && hours < 24 && minutes >= 0 && minutes < 60 && seconds >= 0 && seconds < 60))
    return null;
  return ((hours * 60 + minutes) * 60 + seconds) * 1000;
}

/**
 * Instants of a night's `"HH:mm" -> value` series. The keys carry no date: a key belongs to the
 * first occurrence of that clock time at or after the night's start (less a tolerance, because
 * keys are truncated to the minute and the first sample can precede the start by seconds).
 * Returned sorted by time, so series that wrap past midnight come out in order.
 */
export function clockSeries(
  series: Readonly<Record<string, number>> | null | undefined,
  startMs: number,
  offsetMinutes: number,
): { atMs: number; value: number }[] {
  if (!series) return [];
  const toleranceMs = 2 * MS_PER_HOUR;
  const startLocal = startMs + offsetMinutes * 60_000;
  const midnightLocal = startLocal - (((startLocal % 86_400_000) + 86_400_000) % 86_400_000);
  const out: { atMs: number; value: number }[] = [];
  for (const key in series) {
    const value = series[key];
    const sinceMidnight = clockMs(key);
    if (sinceMidnight === null || typeof value !== 'number') continue;
    let local = midnightLocal + sinceMidnight;
    if (local < startLocal - toleranceMs) local += 86_400_000;
    out.push({ atMs: local - offsetMinutes * 60_000, value });
  }
  out.sort((left, right) => left.atMs - right.atMs);
  return out;
}
