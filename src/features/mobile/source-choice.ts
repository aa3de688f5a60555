// Which of one connection's on-device sources (an iPhone and an Apple Watch, two Android apps)
// counts for a metric of a day, asked of the merge engine (features/merge/engine) like every other
// merge: the same ranking by device kind and completeness, the same cumulative rule that never
// counts a stretch of time twice. Within one connection's samples the platform's source name
// stands for the connection: it is the identity the engine ranks and breaks ties by
// (docs/mobile.md#duplicate-sources).
import type { DeviceKind } from '../../provider-kit/types.ts';
import type { DeviceClass, MobileSample } from '../../provider-kit/mobile/samples.ts';
import { mergeCumulative, type Slice } from '../merge/engine/cumulative.ts';
import { type MergeFamily, rankBest, type Source } from '../merge/engine/sources.ts';

/** The engine's device kind of a platform's device class; `other` (an app, an unnamed device) ranks last. */
const DEVICE_KIND: Record<DeviceClass, DeviceKind> = {
  watch: 'watch',
  phone: 'phone',
  scale: 'scale',
  other: 'app',
};

type SourceGroup = { name: string; source: Source; samples: MobileSample[]; completeness: number };

/**
 * Samples held count only between sources covering equal time; rankBest compares one number, so
 * covered milliseconds are scaled above any count of samples a source writes in a day.
 */
const SAMPLE_COUNT_SCALE = 2 ** 20;

/** Milliseconds covered by the union of the samples' intervals (a duplicate write covers nothing new). */
function coveredMs(sorted: readonly MobileSample[]): number {
  let covered = 0;
  let end = -Infinity;
  for (const sample of sorted) {
    const from = Math.max(sample.startMs, end);
    if (sample.endMs > from) covered += sample.endMs - from;
    end = Math.max(end, sample.endMs);
  }
  return Math.round(covered);
}

const byTime = (a: MobileSample, b: MobileSample) => a.startMs - b.startMs || a.endMs - b.endMs;

/** The samples grouped by source, best first for `family` by the engine's ranking (default priorities). */
export function rankSources(samples: readonly MobileSample[], family: MergeFamily): SourceGroup[] {
  const bySource = new Map<string, MobileSample[]>();
  for (const sample of samples) {
    const list = bySource.get(sample.source.name);
    if (list) list.push(sample);
    else bySource.set(sample.source.name, [sample]);
  }
  const groups = [...bySource].map(([name, list]): SourceGroup => {
    const sorted = list.sort(byTime);
    const device = DEVICE_KIND[sorted[0]!.source.device];
    return {
      name,
      // No provider of its own: a developer's order naming a device kind still applies.
      source: { connectionId: name, provider: name, deviceKind: device },
      samples: sorted,
      completeness: coveredMs(sorted) * SAMPLE_COUNT_SCALE + Math.min(sorted.length, SAMPLE_COUNT_SCALE - 1),
    };
  });
  return rankBest(
    groups,
    (group) => ({ source: group.source, completeness: group.completeness, key: group.name }),
    family,
    {},
  );
}

/** The samples chosen for a metric of a day, and the sources they came from, best first. */
export type Selection = { samples: MobileSample[]; sources: string[] };

const round2 = (value: number) => Math.round(value * 100) / 100;

/**
 * A cumulative metric (steps, distance, energy, floors): the engine's merge of the ranked sources.
 * A sample partly covered by a better source keeps its uncovered part, as a sample of that part
 * with its value prorated by duration (to the hundredth, like every total).
 */
export function chooseCumulative(samples: readonly MobileSample[]): Selection {
  const ranked = rankSources(samples, 'cumulative');
  const pieces = mergeCumulative(
    ranked.map((group) =>
      group.samples.map((sample): Slice<MobileSample> => ({
        startMs: sample.startMs,
        endMs: sample.endMs,
        value: sample.value ?? 0,
        item: sample,
      })),
    ),
  );
  const used = new Set(pieces.map((piece) => piece.item.source.name));
  return {
    samples: pieces.map((piece) =>
      piece.fraction === 1
        ? piece.item
        : {
            ...piece.item,
            startMs: piece.startMs,
            endMs: piece.endMs,
            value: piece.item.value === null ? null : round2(piece.value),
          },
    ),
    sources: ranked.filter((group) => used.has(group.name)).map((group) => group.name),
  };
}

/** A discrete metric (heart rate, HRV, SpO2, VO2max): the best-ranked source's samples alone. */
export function chooseDiscrete(samples: readonly MobileSample[], family: MergeFamily): Selection {
  const best = rankSources(samples, family)[0];
  if (!best) return { samples: [], sources: [] };
  return { samples: best.samples, sources: [best.name] };
}
