// The samples of a run of local days as the rebuild reads them (rebuild.ts): a day at a time, so a
// day's samples are garbage once its records are built. Held all at once, a run's tens of
// thousands of parsed samples outlived V8's young generation (2 MB semi-spaces in the server,
// runtime/memory-limits.js) and were promoted: issue 44's twelfth pass counted 78 MB promoted in
// a 32 MB export's rebuild and a third of the importing process's CPU there in collections.
import type { MobileSample } from '../../provider-kit/mobile/samples.ts';

/** Earliest and latest start (ms) among a day's samples. */
export type StartRange = { min: number; max: number };

export type RunSamples = {
  /** The local days (each sample's, as stored) that hold samples, sorted. */
  readonly days: readonly string[];
  /** The samples of `day`, in the order stored (none: empty). */
  samplesOf(day: string): MobileSample[];
  /** When `day`'s samples start (undefined: it holds none). */
  startsOf(day: string): StartRange | undefined;
};

/** Samples already parsed, by the local day they are stored under. */
export function runSamplesOf(byDay: ReadonlyMap<string, MobileSample[]>): RunSamples {
  const starts = new Map<string, StartRange>();
  for (const [day, samples] of byDay) {
    if (samples.length === 0) continue;
    let min = Infinity;
    let max = -Infinity;
    for (const { startMs } of samples) {
      if (startMs < min) min = startMs;
      if (startMs > max) max = startMs;
    }
    starts.set(day, { min, max });
  }
  return {
    days: [...byDay.keys()].sort(),
    samplesOf: (day) => byDay.get(day) ?? [],
    startsOf: (day) => starts.get(day),
  };
}
