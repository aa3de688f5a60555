// The samples of a run of local days as the rebuild reads them (rebuild.ts): a day at a time, so a
// day's samples are garbage once its records are built. Held all at once, a run's tens of
// thousands of parsed samples outlived V8's young generation (2 MB semi-spaces in the server,
// runtime/memory-limits.js) and were promoted: issue 44's twelfth pass counted 78 MB promoted in
// a 32 MB export's rebuild and a third of the importing process's CPU there in collections.
import type { MobileSample } from '../../provider-kit/mobile/samples.ts';
import { localDayOf } from './unify/shared.ts';

/** Earliest and latest start (ms) among a day's samples. */
export type StartRange = { min: number; max: number };

export type RunSamples = {
  /** The local days (by `localDayOf`) that hold samples, sorted. */
  readonly days: readonly string[];
  /** The samples of `day`, in the order stored (none: empty). */
  samplesOf(day: string): MobileSample[];
  /** When `day`'s samples start (undefined: it holds none). */
  startsOf(day: string): StartRange | undefined;
};

/** Widens `range` (or makes one) to take `startMs`. */
export const widened = (range: StartRange | undefined, startMs: number): StartRange =>
  range
    ? { min: Math.min(range.min, startMs), max: Math.max(range.max, startMs) }
    : { min: startMs, max: startMs };

/** Samples already parsed, by local day. */
export function runSamplesOf(byDay: ReadonlyMap<string, MobileSample[]>): RunSamples {
  const starts = new Map<string, StartRange>();
  for (const [day, samples] of byDay)
    for (const sample of samples) starts.set(day, widened(starts.get(day), sample.startMs));
  return {
    days: [...byDay.keys()].sort(),
    samplesOf: (day) => byDay.get(day) ?? [],
    startsOf: (day) => starts.get(day),
  };
}

/** Samples already parsed (read from the store), grouped by their local day. */
export function groupedRunSamples(samples: readonly MobileSample[]): RunSamples {
  const byDay = new Map<string, MobileSample[]>();
  for (const sample of samples) {
    const day = localDayOf(sample);
    const list = byDay.get(day);
    if (list) list.push(sample);
    else byDay.set(day, [sample]);
  }
  return runSamplesOf(byDay);
}
