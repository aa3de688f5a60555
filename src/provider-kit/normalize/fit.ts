// FIT activity files (Garmin's binary format, which Wahoo and Suunto serve for a recording)
// decoded with Garmin's own SDK (@garmin/fitsdk) into what the Activity model holds: the
// record messages as timed samples (fit-summary.ts reads the sessions and laps). Samples
// without a readable timestamp are skipped (never placed at the start), heart-rate placeholders
// (0; the SDK already drops the invalid 0xFF) are no reading, positions are semicircles ->
// degrees.
import { createRequire } from 'node:module';
import type * as FitSdkModule from '@garmin/fitsdk';
import type { PositionSample } from '../../model/samples.ts';
import { formatDateTime } from '../../model/time.ts';
import { NormalizationError } from './errors.ts';
import { heartRate } from './measures.ts';

// The SDK is 1.1 MB of source that every process would otherwise load and keep at start (it is
// most of the idle heap's provider code) while only FIT files need it: loaded on first use
// (require of an ES module is synchronous in Node 24, and normalizers are synchronous).
type FitSdk = typeof FitSdkModule;
let fitSdk: FitSdk | undefined;
const loadFitSdk = (): FitSdk => (fitSdk ??= createRequire(import.meta.url)('@garmin/fitsdk') as FitSdk);

const SEMICIRCLES_TO_DEGREES = 180 / 2 ** 31;

export type FitMessage = Record<string, unknown>;

/** The parts of a FIT activity the normalizers read, as the SDK names them (camelCase). */
export type FitActivity = {
  records: FitMessage[];
  sessions: FitMessage[];
  laps: FitMessage[];
  /** The device clock's offset from UTC in minutes, from the activity message (null if absent). */
  localOffsetMinutes: number | null;
  device: { manufacturer: string | null; product: string | null; serialNumber: string | null };
};

/** A field's number, date (as epoch ms) or text, null when the SDK left it out or it is unreadable. */
export const num = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;
export const ms = (value: unknown): number | null =>
  value instanceof Date && Number.isFinite(value.getTime()) ? value.getTime() : null;
export const text = (value: unknown): string | null =>
  typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : null;

/** Decodes a FIT file; a NormalizationError naming `item` when the bytes are not a readable FIT file. */
export function decodeFitActivity(bytes: Uint8Array, item: string): FitActivity {
  let messages: Record<string, FitMessage[] | undefined>;
  try {
    // Read in place (fromByteArray would copy the file through a number array first).
    const { Decoder, Stream } = loadFitSdk();
    const stream = Stream.fromBuffer(bytes);
    if (!Decoder.isFIT(stream)) throw new Error('not a FIT file');
    const decoder = new Decoder(stream);
    const result = decoder.read({ convertDateTimesToDates: true, mergeHeartRates: true });
    if (result.errors.length > 0 && !result.messages.recordMesgs && !result.messages.sessionMesgs) {
      throw new Error(String(result.errors[0]));
    }
    messages = result.messages as Record<string, FitMessage[] | undefined>;
  } catch (error) {
    throw new NormalizationError(item, `unreadable FIT file (${(error as Error).message})`, { cause: error });
  }
  const activity = messages.activityMesgs?.[0];
  const utc = ms(activity?.timestamp);
  const local = num(activity?.localTimestamp);
  // local_timestamp is seconds since the FIT epoch in local time; timestamp is the same instant in UTC.
  const localOffsetMinutes =
    utc !== null && local !== null ? Math.round(((local + FIT_EPOCH_S) * 1000 - utc) / 900_000) * 15 : null;
  const fileId = messages.fileIdMesgs?.[0];
  const info = messages.deviceInfoMesgs?.[0];
  return {
    records: messages.recordMesgs ?? [],
    sessions: messages.sessionMesgs ?? [],
    laps: messages.lapMesgs ?? [],
    localOffsetMinutes:
      localOffsetMinutes !== null && Math.abs(localOffsetMinutes) <= 14 * 60 ? localOffsetMinutes : null,
    device: {
      manufacturer: text(fileId?.manufacturer),
      product: text(fileId?.garminProduct ?? fileId?.product ?? info?.productName),
      serialNumber: text(fileId?.serialNumber),
    },
  };
}

/** Seconds from the Unix epoch to the FIT epoch (1989-12-31T00:00:00Z). */
const FIT_EPOCH_S = 631_065_600;

type Timed = { timestamp: string; timer_duration_seconds: number };

export type FitSamples = {
  hr_samples: (Timed & { bpm: number })[];
  speed_samples: (Timed & { speed_meters_per_second: number })[];
  cadence_samples: (Timed & { cadence_rpm: number })[];
  power_samples: (Timed & { watts: number })[];
  position_samples: PositionSample[];
  distance_samples: (Timed & { distance_meters: number })[];
  elevation_samples: (Timed & { elev_meters: number })[];
  count: number;
};

/** The record messages as samples, written at `offsetMinutes`; seconds counted from `startMs`. */
export function fitSamples(fit: FitActivity, startMs: number, offsetMinutes: number): FitSamples {
  const out: FitSamples = {
    hr_samples: [],
    speed_samples: [],
    cadence_samples: [],
    power_samples: [],
    position_samples: [],
    distance_samples: [],
    elevation_samples: [],
    count: 0,
  };
  for (const record of fit.records) {
    const atMs = ms(record.timestamp);
    if (atMs === null) continue;
    const timestamp = formatDateTime(atMs, offsetMinutes);
    const seconds = (atMs - startMs) / 1000;
    const bpm = heartRate(num(record.heartRate));
    if (bpm !== null) out.hr_samples.push({ timestamp, bpm, timer_duration_seconds: seconds });
    const speed = num(record.enhancedSpeed) ?? num(record.speed);
    if (speed !== null)
      out.speed_samples.push({ timestamp, speed_meters_per_second: speed, timer_duration_seconds: seconds });
    const cadence = num(record.cadence);
    if (cadence !== null)
      out.cadence_samples.push({ timestamp, cadence_rpm: cadence, timer_duration_seconds: seconds });
    const power = num(record.power);
    if (power !== null) out.power_samples.push({ timestamp, watts: power, timer_duration_seconds: seconds });
    const distance = num(record.distance);
    if (distance !== null)
      out.distance_samples.push({ timestamp, distance_meters: distance, timer_duration_seconds: seconds });
    const altitude = num(record.enhancedAltitude) ?? num(record.altitude);
    if (altitude !== null)
      out.elevation_samples.push({ timestamp, elev_meters: altitude, timer_duration_seconds: seconds });
    const lat = num(record.positionLat);
    const lng = num(record.positionLong);
    if (lat !== null && lng !== null) {
      out.position_samples.push({
        timestamp,
        coords_lat_lng_deg: [lat * SEMICIRCLES_TO_DEGREES, lng * SEMICIRCLES_TO_DEGREES],
        timer_duration_seconds: seconds,
      });
    }
  }
  out.count =
    out.hr_samples.length +
    out.speed_samples.length +
    out.cadence_samples.length +
    out.power_samples.length +
    out.position_samples.length +
    out.distance_samples.length +
    out.elevation_samples.length;
  return out;
}
