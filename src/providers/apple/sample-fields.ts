// What every HealthKit sample carries: an id (the sample UUID, or a hash of an export record's
// content), its time span with the offset it was recorded in, and its metadata entries.
import { hash } from 'node:crypto';
import { MobileRecordError, optionalString, parsePlatformTime } from '../../provider-kit/mobile/samples.ts';

type Json = Record<string, unknown>;

/** The sample UUID (SDK), else a hash of what identifies an export record (mobile-sources.md §2.3). */
export function idOf(record: Json, fields: readonly string[]): string {
  const uuid = optionalString(record, 'uuid');
  if (uuid) return uuid;
  let text = '';
  for (const field of fields) text += `${identityText(record[field])}\u0000`;
  return `h:${hash('sha256', text, 'base64url').slice(0, 32)}`;
}

/**
 * A field's text in the identity hash: `String()` as always (ids already stored stay the same),
 * but JSON where `String()` throws — an uploaded object whose `toString` is not a function
 * (`{"toString": null}`) must fail its record as invalid, not the whole upload with a TypeError.
 */
function identityText(value: unknown): string {
  try {
    return String(value ?? '');
  } catch {
    return JSON.stringify(value) ?? '';
  }
}

export function span(record: Json) {
  const start = parsePlatformTime(record.startDate, 'startDate');
  // Instantaneous samples (heart rate, the bulk of an export) end when they start.
  const end =
    record.endDate === undefined || record.endDate === record.startDate
      ? start
      : parsePlatformTime(record.endDate, 'endDate');
  if (end.ms < start.ms) throw new MobileRecordError('endDate is before startDate');
  const zone = metadataOf(record).HKTimeZone;
  return {
    startMs: start.ms,
    endMs: end.ms,
    offsetMinutes: zone ? (zoneOffset(zone, start.ms) ?? start.offsetMinutes) : start.offsetMinutes,
  };
}

/** The offset of an IANA zone at an instant (HKTimeZone metadata beats the export's written offset). */
const zoneFormats = new Map<string, Intl.DateTimeFormat>();

function zoneOffset(zone: string, at: number): number | null {
  try {
    let format = zoneFormats.get(zone);
    if (!format) {
      format = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' });
      if (zoneFormats.size < 1000) zoneFormats.set(zone, format);
    }
    const parts = format.formatToParts(at);
    const name = parts.find((part) => part.type === 'timeZoneName')?.value ?? '';
    const match = /GMT([+-])(\d{2}):?(\d{2})?/.exec(name);
    if (name === 'GMT') return 0;
    return match ? (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3] ?? 0)) : null;
  } catch {
    return null;
  }
}

export function metadataOf(record: Json): Record<string, string> {
  const metadata = record.metadata;
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) return {};
  return metadata as Record<string, string>;
}
