// What every unify module shares: the local day of a sample, sums and stats, the frame a day is written in.
import { localIsoDate, MS_PER_DAY } from '../../../model/time.ts';
import type { MobileKind, MobileSample } from '../../../provider-kit/mobile/samples.ts';

const SLEEP_DAY_SHIFT_MS = 6 * 3_600_000;
/** A gap longer than this between sleep samples of one source starts a new session. */
export const SLEEP_SESSION_GAP_MS = 60 * 60_000;

/**
 * The local day a sample is stored under. Sleep belongs to the night it ends: samples are shifted
 * 6 hours forward, so a night from 22:00 to 07:00 and a nap at 14:00 land on the day they end.
 */
export function localDayOf(sample: MobileSample): string {
  if (sample.day) return sample.day;
  const shift = sample.kind === 'sleep' ? SLEEP_DAY_SHIFT_MS : 0;
  return localIsoDate(sample.startMs + shift, sample.offsetMinutes);
}

export const sum = (samples: readonly MobileSample[]) =>
  samples.reduce((total, sample) => total + (sample.value ?? 0), 0);

export function stats(values: readonly number[]) {
  if (values.length === 0) return { avg: null, min: null, max: null };
  let total = 0;
  let min = Infinity;
  let max = -Infinity;
  for (const value of values) {
    total += value;
    if (value < min) min = value;
    if (value > max) max = value;
  }
  return { avg: total / values.length, min, max };
}

export const round = (value: number | null, digits = 2) =>
  value === null ? null : Math.round(value * 10 ** digits) / 10 ** digits;

export function byKind(samples: readonly MobileSample[]): Map<MobileKind, MobileSample[]> {
  const map = new Map<MobileKind, MobileSample[]>();
  for (const sample of samples) {
    const list = map.get(sample.kind);
    if (list) list.push(sample);
    else map.set(sample.kind, [sample]);
  }
  return map;
}

/** The offset a day is written in: that of most of its samples. */
export function offsetOfDay(samples: readonly MobileSample[]): number {
  const counts = new Map<number, number>();
  for (const sample of samples)
    if (!sample.day) counts.set(sample.offsetMinutes, (counts.get(sample.offsetMinutes) ?? 0) + 1);
  let best = 0;
  let bestCount = -1;
  for (const [offset, count] of counts) if (count > bestCount) [best, bestCount] = [offset, count];
  return best;
}

export type DayFrame = {
  bounds: { start_time: string; end_time: string };
  localization: 0 | 1;
  at: (ms: number) => string;
};

/** The days whose records a sample on `day` can change (a workout's samples may cross midnight). */
export function neighbourDays(day: string): [string, string] {
  const ms = Date.parse(`${day}T00:00:00Z`);
  return [
    new Date(ms - MS_PER_DAY).toISOString().slice(0, 10),
    new Date(ms + MS_PER_DAY).toISOString().slice(0, 10),
  ];
}
