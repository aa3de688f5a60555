// Oura heartrate time series -> HeartRateDataSample[] (for Daily and Body).
//
// Cannot map: nothing is lost per row; `source` becomes the sample's HeartRateContext
// (workout -> active; rest, sleep, session -> not active; awake, live -> not set, because being
// awake says nothing about exertion). Rows are UTC instants; they are written in the offset of
// the record that carries them.
import { heartRate } from '../../../provider-kit/normalize/measures.ts';
import { HeartRateContext } from '../../../model/enums.ts';
import type { HeartRateDataSample } from '../../../model/samples.ts';
import { formatDateTime } from '../../../model/time.ts';
import type { OuraHeartRateRow } from './types.ts';

const contextOfSource: Readonly<Record<OuraHeartRateRow['source'], HeartRateDataSample['context']>> = {
  workout: HeartRateContext.ACTIVE,
  rest: HeartRateContext.NOT_ACTIVE,
  sleep: HeartRateContext.NOT_ACTIVE,
  session: HeartRateContext.NOT_ACTIVE,
  awake: HeartRateContext.NOT_SET,
  live: HeartRateContext.NOT_SET,
};

/** Rows with their instants parsed once, sorted by time, so each day is a binary-searched slice. */
export type HeartRateIndex = { rows: readonly OuraHeartRateRow[]; instants: Float64Array };

export function indexHeartRate(rows: readonly OuraHeartRateRow[] | undefined): HeartRateIndex {
  // Rows without a reading (0 or 255 bpm) or without a readable time are no samples.
  const list = (rows ?? []).filter(
    (row) => heartRate(row.bpm) !== null && Number.isFinite(row.timestamp_unix ?? Date.parse(row.timestamp)),
  );
  const instants = new Float64Array(list.length);
  let sorted = true;
  for (let index = 0; index < list.length; index++) {
    const row = list[index] as OuraHeartRateRow;
    // timestamp_unix (spec >= 1.29) saves a date parse per row; older responses lack it.
    const instant = row.timestamp_unix ?? Date.parse(row.timestamp);
    instants[index] = instant;
    if (index > 0 && instant < (instants[index - 1] as number)) sorted = false;
  }
  if (sorted) return { rows: list, instants };
  const order = [...list.keys()].sort((a, b) => (instants[a] as number) - (instants[b] as number));
  return {
    rows: order.map((index) => list[index] as OuraHeartRateRow),
    instants: Float64Array.from(order, (index) => instants[index] as number),
  };
}

function lowerBound(instants: Float64Array, value: number): number {
  let low = 0;
  let high = instants.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((instants[middle] as number) < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

export type HeartRateSlice = {
  samples: HeartRateDataSample[];
  avg: number | null;
  min: number | null;
  max: number | null;
};

/** The samples in `[fromMs, toMs)` written at `offsetMinutes`, with their average/min/max. */
export function heartRateBetween(
  index: HeartRateIndex,
  fromMs: number,
  toMs: number,
  offsetMinutes: number,
): HeartRateSlice {
  const first = lowerBound(index.instants, fromMs);
  const last = lowerBound(index.instants, toMs);
  const samples: HeartRateDataSample[] = new Array(Math.max(0, last - first));
  let total = 0;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (let position = first; position < last; position++) {
    const row = index.rows[position] as OuraHeartRateRow;
    const bpm = row.bpm;
    total += bpm;
    if (bpm < min) min = bpm;
    if (bpm > max) max = bpm;
    samples[position - first] = {
      timestamp: formatDateTime(index.instants[position] as number, offsetMinutes),
      bpm,
      context: contextOfSource[row.source] ?? HeartRateContext.NOT_SET,
    };
  }
  const count = last - first;
  return count === 0
    ? { samples, avg: null, min: null, max: null }
    : { samples, avg: total / count, min, max };
}

/** Every row as a model sample, written at `offsetMinutes`. */
export function normalizeHeartRateRows(
  rows: readonly OuraHeartRateRow[],
  offsetMinutes: number,
): HeartRateDataSample[] {
  const index = indexHeartRate(rows);
  return heartRateBetween(index, Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY, offsetMinutes).samples;
}
