// Dexcom EGVs (+ devices and events of the same window) -> Body glucose_data, one record per
// local day of the readings.
//
// Cannot map: `trendRate` (the model keeps only the arrow), `transmitterTicks`, `recordId`;
// time below / above range (the model has only time_in_range); events other than insulin —
// carbs (grams) belong to Nutrition and exercise to Activity, which this Body-only provider does
// not emit; health events (illness, stress, symptoms, cycle, alcohol) and notes have no field;
// blood-glucose events (meter readings typed in) are not CGM readings and are not mixed in.
// Deleted events are skipped. Insulin events become measurements (insulin_units, insulin_type =
// Dexcom's sub-type, e.g. `fastActing`).
// Time: each reading's instant is its `systemTime` (UTC). Its local offset is the one written on
// `displayTime` when it has one (phone apps), else the difference between the display and system
// clocks rounded to the quarter hour (receivers show local wall time without an offset).
// Flags: status high/low (outside the sensor's range) -> GlucoseFlag HIGH/LOW; otherwise the
// flag places the value against the 70-180 mg/dL target range, as the sandbox does. Trends:
// Dexcom's seven arrows fold into five by rate — doubleUp/singleUp (> 2 mg/dL/min) rising
// quickly, fortyFiveUp rising, flat, fortyFiveDown falling, singleDown/doubleDown falling
// quickly; none/notComputable/rateOutOfRange/unknown -> UNKNOWN.
// Summaries: see glucose-stats.ts. `blood_glucose_samples` holds the first reading of each
// quarter hour and `detailed_blood_glucose_samples` every reading (the sandbox's convention);
// `daily_patterns` are computed across all days of the payload (the requested range) and
// repeated on each day's record.
import type { Body } from '../../../model/body.ts';
import { type CodeOf, GlucoseFlag, TrendArrow } from '../../../model/enums.ts';
import { formatDateTime, localIsoDate } from '../../../model/time.ts';
import {
  dayBoundsOf,
  instantOf,
  type NormalizeContext,
  trailingOffsetMinutes,
} from '../../../provider-kit/normalize/normalize.ts';
import { dailyPatterns, daySummary, RANGE_HIGH, RANGE_LOW } from './glucose-stats.ts';
import type { DexcomDevice, DexcomEgv, DexcomEvent, DexcomTrend } from './types.ts';

export type DexcomBodyPayload = {
  egvs: readonly DexcomEgv[];
  devices?: readonly DexcomDevice[];
  events?: readonly DexcomEvent[];
};

type Flag = CodeOf<typeof GlucoseFlag>;
type Arrow = CodeOf<typeof TrendArrow>;
type Reading = {
  timestamp: string;
  blood_glucose_mg_per_dL: number | null;
  glucose_level_flag: Flag | null;
  trend_arrow: Arrow;
};

const arrows: Readonly<Record<DexcomTrend, Arrow>> = {
  doubleUp: TrendArrow.RISING_QUICKLY,
  singleUp: TrendArrow.RISING_QUICKLY,
  fortyFiveUp: TrendArrow.RISING,
  flat: TrendArrow.FLAT,
  fortyFiveDown: TrendArrow.FALLING,
  singleDown: TrendArrow.FALLING_QUICKLY,
  doubleDown: TrendArrow.FALLING_QUICKLY,
  none: TrendArrow.UNKNOWN,
  unknown: TrendArrow.UNKNOWN,
  notComputable: TrendArrow.UNKNOWN,
  rateOutOfRange: TrendArrow.UNKNOWN,
};

/** mg/dL per mmol/L of glucose (molar mass 180.16 g/mol). */
const MG_PER_DL_PER_MMOL_PER_L = 18.0182;
const QUARTER_HOUR_MS = 900_000;

export function trendArrowOf(trend: DexcomTrend | null | undefined): Arrow {
  return trend ? (arrows[trend] ?? TrendArrow.UNKNOWN) : TrendArrow.UNKNOWN;
}

export function glucoseFlagOf(value: number | null, status: DexcomEgv['status']): Flag | null {
  if (status === 'high') return GlucoseFlag.HIGH;
  if (status === 'low') return GlucoseFlag.LOW;
  if (value === null) return null;
  if (value > RANGE_HIGH) return GlucoseFlag.HIGH;
  if (value < RANGE_LOW) return GlucoseFlag.LOW;
  return GlucoseFlag.NORMAL;
}

/** The instant and local offset of a Dexcom record (see the header). */
export function placeRecord(
  record: { systemTime: string; displayTime: string },
  fallback: number,
): { atMs: number; offset: number } {
  const atMs = instantOf(record.systemTime, 0);
  const written = trailingOffsetMinutes(record.displayTime);
  if (written !== null) return { atMs, offset: written };
  const displayMs = Date.parse(`${record.displayTime}Z`);
  if (Number.isNaN(displayMs)) return { atMs, offset: fallback };
  const offset = Math.round((displayMs - atMs) / QUARTER_HOUR_MS) * 15;
  return { atMs, offset: Math.abs(offset) <= 18 * 60 ? offset : fallback };
}

/** A reading's mg/dL value. v3 reports mg/dL; a value under 35 with unit mmol/L can only be mmol/L. */
function mgPerDl(egv: DexcomEgv): number | null {
  const value = egv.value ?? egv.smoothedValue ?? egv.realtimeValue ?? null;
  // 0 is a placeholder for a reading the sensor did not make (warm-up, signal loss), not a value.
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) return null;
  return egv.unit === 'mmol/L' && value < 35 ? Math.round(value * MG_PER_DL_PER_MMOL_PER_L) : value;
}

type Day = {
  offset: number;
  readings: Reading[];
  quarterHours: Reading[];
  lastQuarter: number;
  values: number[];
  high: number;
  low: number;
  transmitters: Map<string, number>;
  insulin: { measurement_time: string; insulin_units: number | null; insulin_type: string | null }[];
};

function dayOf(days: Map<string, Day>, date: string, offset: number): Day {
  let day = days.get(date);
  if (!day) {
    day = {
      offset,
      readings: [],
      quarterHours: [],
      lastQuarter: Number.NaN,
      values: [],
      high: 0,
      low: 0,
      transmitters: new Map(),
      insulin: [],
    };
    days.set(date, day);
  }
  return day;
}

function deviceData(
  devices: readonly DexcomDevice[],
  transmitter: string | null,
  offset: number,
): Body['device_data'] {
  if (devices.length === 0) return null;
  const ordered = [...devices].sort(
    (left, right) =>
      (left.transmitterId === transmitter ? 0 : 1) - (right.transmitterId === transmitter ? 0 : 1),
  );
  const describe = (device: DexcomDevice) => ({
    name: device.displayApp ?? device.displayDevice ?? null,
    manufacturer: 'Dexcom',
    serial_number: device.transmitterId ?? null,
    hardware_version: device.transmitterGeneration ?? null,
    last_upload_date: device.lastUploadDate
      ? formatDateTime(instantOf(device.lastUploadDate, 0), offset)
      : null,
  });
  const [first, ...rest] = ordered;
  return { ...describe(first as DexcomDevice), other_devices: rest.map(describe) };
}

export function normalizeGlucose(payload: DexcomBodyPayload, context: NormalizeContext): Body[] {
  const fallback = context.userOffsetMinutes ?? 0;
  const days = new Map<string, Day>();
  const byHour: number[][] = Array.from({ length: 24 }, () => []);
  // Dexcom lists newest first; days and quarter hours are filled in time order.
  const placed = payload.egvs.map((egv) => ({ egv, ...placeRecord(egv, fallback) }));
  placed.sort((left, right) => left.atMs - right.atMs);
  for (const { egv, atMs, offset } of placed) {
    const localMs = atMs + offset * 60_000;
    const day = dayOf(days, localIsoDate(atMs, offset), offset);
    const value = mgPerDl(egv);
    const reading: Reading = {
      timestamp: formatDateTime(atMs, offset),
      blood_glucose_mg_per_dL: value,
      glucose_level_flag: glucoseFlagOf(value, egv.status),
      trend_arrow: trendArrowOf(egv.trend),
    };
    day.readings.push(reading);
    const quarter = Math.floor(localMs / QUARTER_HOUR_MS);
    if (quarter !== day.lastQuarter) {
      day.quarterHours.push(reading);
      day.lastQuarter = quarter;
    }
    if (value !== null) {
      day.values.push(value);
      (byHour[Math.floor((((localMs % 86_400_000) + 86_400_000) % 86_400_000) / 3_600_000)] as number[]).push(
        value,
      );
    } else if (egv.status === 'high') day.high++;
    else if (egv.status === 'low') day.low++;
    if (egv.transmitterId)
      day.transmitters.set(egv.transmitterId, (day.transmitters.get(egv.transmitterId) ?? 0) + 1);
  }
  for (const event of payload.events ?? []) {
    if (event.eventType !== 'insulin' || event.eventStatus === 'deleted') continue;
    const { atMs, offset } = placeRecord(event, fallback);
    dayOf(days, localIsoDate(atMs, offset), offset).insulin.push({
      measurement_time: formatDateTime(atMs, offset),
      insulin_units: event.value ?? null,
      insulin_type: event.eventSubType ?? null,
    });
  }
  const patterns = dailyPatterns(byHour);
  const devices = payload.devices ?? [];
  return [...days.entries()]
    .sort(([left], [right]) => (left < right ? -1 : 1))
    .map(([date, day]): Body => {
      let transmitter: string | null = null;
      let most = 0;
      for (const [id, count] of day.transmitters) {
        if (count > most) {
          most = count;
          transmitter = id;
        }
      }
      return {
        metadata: { ...dayBoundsOf(date, day.offset), timestamp_localization: day.offset === 0 ? 0 : 1 },
        glucose_data: day.readings.length
          ? {
              blood_glucose_samples: day.quarterHours,
              detailed_blood_glucose_samples: day.readings,
              ...daySummary(day.values, day.high, day.low),
              daily_patterns: patterns,
            }
          : null,
        measurements_data: day.insulin.length ? { measurements: day.insulin } : null,
        device_data: deviceData(devices, transmitter, day.offset),
      };
    });
}
