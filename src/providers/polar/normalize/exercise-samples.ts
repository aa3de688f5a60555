// Polar exercise `samples` (comma-separated series per sample type) and `route` -> the
// Activity's time series, with the summaries that only the series can give (min heart rate,
// speed/cadence/power maxima, elevation gain and loss, route bounds).
//
// Cannot map: sample types 5 pedalling index, 6 left/right balance, 7 air pressure and
// 9 temperature (the Activity has no place for them) and 11 RR intervals (an Activity has no
// RR-interval series; Body's rr_interval_samples is a day record, not the workout's).
// Type 8 running cadence (steps/min) fills cadence_samples only when the exercise has no
// type 2 cadence, because the model has one cadence series.
import { heartRate } from '../../../provider-kit/normalize/measures.ts';
import { HeartRateContext } from '../../../model/enums.ts';
import type { HeartRateDataSample, PositionSample } from '../../../model/samples.ts';
import { formatDateTime } from '../../../model/time.ts';
import { isoDurationSeconds } from './time.ts';
import type { PolarRoutePoint, PolarSample } from './types.ts';

type Timed = { timestamp: string; timer_duration_seconds: number };

export type ExerciseSeries = {
  hr: HeartRateDataSample[];
  speed: (Timed & { speed_meters_per_second: number })[];
  cadence: (Timed & { cadence_rpm: number })[];
  elevation: (Timed & { elev_meters: number })[];
  power: (Timed & { watts: number })[];
  distance: (Timed & { distance_meters: number })[];
};

/**
 * Calls `each(index, value)` for every present value of a Polar CSV series. `null` and empty
 * entries are sensor gaps and are skipped (never read as 0, which `Number('')` would give).
 */
function forEachValue(data: string, each: (index: number, value: number) => void): void {
  let index = 0;
  let from = 0;
  const length = data.length;
  while (from <= length) {
    let to = data.indexOf(',', from);
    if (to === -1) to = length;
    if (to > from) {
      const value = Number(data.slice(from, to));
      if (Number.isFinite(value)) each(index, value);
    }
    index++;
    from = to + 1;
  }
}

export function decodeSamples(
  samples: readonly PolarSample[] | null | undefined,
  startMs: number,
  offsetMinutes: number,
): ExerciseSeries {
  const series: ExerciseSeries = { hr: [], speed: [], cadence: [], elevation: [], power: [], distance: [] };
  if (!samples) return series;
  const hasBikeCadence = samples.some((sample) => sample['sample-type'] === '2');
  for (const sample of samples) {
    const rate = sample['recording-rate'];
    // Only RR data lacks a rate, and RR has no place in an Activity (see header).
    if (typeof rate !== 'number' || rate <= 0) continue;
    const stepMs = rate * 1000;
    const at = (index: number): Timed => ({
      timestamp: formatDateTime(startMs + index * stepMs, offsetMinutes),
      timer_duration_seconds: index * rate,
    });
    switch (sample['sample-type']) {
      case '0':
        forEachValue(sample.data, (index, bpm) => {
          // 0 (no strap contact) is no reading.
          if (heartRate(bpm) === null) return;
          series.hr.push({ ...at(index), bpm, context: HeartRateContext.ACTIVE });
        });
        break;
      case '1':
        forEachValue(sample.data, (index, kmh) => {
          series.speed.push({ ...at(index), speed_meters_per_second: kmh / 3.6 });
        });
        break;
      case '2':
        forEachValue(sample.data, (index, rpm) => {
          series.cadence.push({ ...at(index), cadence_rpm: rpm });
        });
        break;
      case '3':
        forEachValue(sample.data, (index, meters) => {
          series.elevation.push({ ...at(index), elev_meters: meters });
        });
        break;
      case '4':
        forEachValue(sample.data, (index, watts) => {
          series.power.push({ ...at(index), watts });
        });
        break;
      case '8':
        if (!hasBikeCadence) {
          forEachValue(sample.data, (index, spm) => {
            series.cadence.push({ ...at(index), cadence_rpm: spm });
          });
        }
        break;
      case '10':
        forEachValue(sample.data, (index, meters) => {
          series.distance.push({ ...at(index), distance_meters: meters });
        });
        break;
      default:
        break;
    }
  }
  return series;
}

/** Mean and maximum of one numeric field of a series; nulls for an empty series. */
export function meanMax<T>(
  items: readonly T[],
  read: (item: T) => number,
): { mean: number | null; max: number | null; min: number | null } {
  if (items.length === 0) return { mean: null, max: null, min: null };
  let total = 0;
  let max = Number.NEGATIVE_INFINITY;
  let min = Number.POSITIVE_INFINITY;
  for (const item of items) {
    const value = read(item);
    total += value;
    if (value > max) max = value;
    if (value < min) min = value;
  }
  return { mean: total / items.length, max, min };
}

/** Total ascent and descent of an altitude series (every rise and every drop, no smoothing). */
export function gainLoss(elevation: readonly { elev_meters: number }[]): {
  gain: number | null;
  loss: number | null;
} {
  if (elevation.length < 2) return { gain: null, loss: null };
  let gain = 0;
  let loss = 0;
  for (let index = 1; index < elevation.length; index++) {
    const delta =
      (elevation[index] as { elev_meters: number }).elev_meters -
      (elevation[index - 1] as { elev_meters: number }).elev_meters;
    if (delta > 0) gain += delta;
    else loss -= delta;
  }
  return { gain, loss };
}

export type RouteSeries = {
  samples: PositionSample[];
  latitudes: number[];
  longitudes: number[];
};

/** Route points -> position samples; `time` is the offset from the exercise start. */
export function decodeRoute(
  route: readonly PolarRoutePoint[] | null | undefined,
  startMs: number,
  offsetMinutes: number,
): RouteSeries {
  const out: RouteSeries = { samples: [], latitudes: [], longitudes: [] };
  if (!route) return out;
  for (const point of route) {
    const seconds = isoDurationSeconds(point.time);
    if (seconds === null || typeof point.latitude !== 'number' || typeof point.longitude !== 'number')
      continue;
    out.samples.push({
      timestamp: formatDateTime(startMs + seconds * 1000, offsetMinutes),
      coords_lat_lng_deg: [point.latitude, point.longitude],
      timer_duration_seconds: seconds,
    });
    out.latitudes.push(point.latitude);
    out.longitudes.push(point.longitude);
  }
  return out;
}
