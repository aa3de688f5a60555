// Where a HealthKit sample comes from (its source app and device), read once per source: an export
// repeats the same few sources for millions of records.
import { type DeviceClass, type MobileSource, optionalString } from '../../provider-kit/mobile/samples.ts';

type Json = Record<string, unknown>;

/**
 * A real HKDevice description is ~200 characters. The pattern below retries its `\w+` from every
 * position of a run without a colon (quadratic: 15 s for a 64 KB device string), so longer text
 * is not a device description and is not searched.
 */
const MAX_DEVICE_CHARS = 1024;

/** `key:value` pairs of an HKDevice description (the export's `device`), or the SDK's object. */
function deviceFields(device: unknown): Record<string, string> {
  if (typeof device === 'object' && device !== null) return device as Record<string, string>;
  if (typeof device !== 'string' || device.length > MAX_DEVICE_CHARS) return {};
  const fields: Record<string, string> = {};
  for (const match of device.matchAll(/(\w+):([^,>]*)/g)) fields[match[1]!] = match[2]!.trim();
  return fields;
}

/** Sources repeat for millions of records: each (name, device) is read once. */
const sources = new Map<string, MobileSource>();

// Records come in long runs from one source: the last one is compared before any hashing.
let lastSource: { name: unknown; device: unknown; source: MobileSource } | null = null;

export function sourceOf(record: Json): MobileSource {
  if (lastSource && lastSource.name === record.sourceName && lastSource.device === record.device)
    return lastSource.source;
  const source = cachedSource(record);
  lastSource = { name: record.sourceName, device: record.device, source };
  return source;
}

function cachedSource(record: Json): MobileSource {
  const key =
    typeof record.device === 'object' || typeof record.sourceName === 'object'
      ? null
      : `${String(record.sourceName)}\u0000${String(record.device)}`;
  const known = key === null ? undefined : sources.get(key);
  if (known) return known;
  const source = readSource(record);
  // Only short keys are kept: a thousand hostile 64 KB device strings would otherwise stay cached.
  if (key !== null && key.length <= 2 * MAX_DEVICE_CHARS) {
    if (sources.size >= 1000) sources.clear();
    sources.set(key, source);
  }
  return source;
}

function readSource(record: Json): MobileSource {
  const name = optionalString(record, 'sourceName') ?? 'unknown';
  const device = deviceFields(record.device);
  const model = typeof device.model === 'string' ? device.model : null;
  const probe = `${model ?? ''} ${device.name ?? ''} ${name}`;
  const kind: DeviceClass = /watch/i.test(probe) ? 'watch' : /iphone|phone/i.test(probe) ? 'phone' : 'other';
  return {
    name,
    device: kind,
    model,
    manufacturer: typeof device.manufacturer === 'string' ? device.manufacturer : null,
  };
}
