// Who is the better source. Every merge rule asks the same question ("which of these sources do
// I believe first for this metric family?") and gets its answer here, so a developer's order
// and the defaults apply the same way to days, sessions and measurements (docs/merge.md#priority).
import { DEVICE_KINDS, type DeviceKind } from '../../../provider-kit/types.ts';

/**
 * The metric families a developer can order separately. `cumulative`: steps, distance, energy,
 * floors of a day. `heart_rate`: heart rate, HRV and SpO2, in days and in sessions. `route`: the
 * GPS track of a workout. The others name the records they order.
 */
export const MERGE_FAMILIES = [
  'cumulative',
  'heart_rate',
  'workouts',
  'route',
  'sleep',
  'body',
  'nutrition',
  'menstruation',
] as const;
export type MergeFamily = (typeof MERGE_FAMILIES)[number];

/**
 * An order: best first. Each entry is a provider id or a device kind (`ring`); a source
 * takes the position of whichever of its two names comes first.
 */
export type PriorityOrder = readonly string[];
export type Priorities = Partial<Record<MergeFamily, PriorityOrder>>;

/**
 * Where the defaults depart from the plain device order, and why: a chest strap and a watch
 * measure heart rate at the skin continuously, a ring mostly at night; a route needs GPS, which
 * rings, bands and scales lack.
 */
const DEFAULT_ORDERS: Partial<Record<MergeFamily, readonly DeviceKind[]>> = {
  heart_rate: ['chest_strap', 'watch', 'ring', 'band', 'sensor', 'scale', 'phone', 'app'],
  route: ['watch', 'sensor', 'phone', 'app', 'band', 'ring', 'chest_strap', 'scale'],
};

export function defaultOrder(family: MergeFamily): readonly DeviceKind[] {
  return DEFAULT_ORDERS[family] ?? DEVICE_KINDS;
}

/** A source of records: one connection, the provider it came through, the kind of device behind it. */
export type Source = {
  connectionId: string;
  provider: string;
  deviceKind: DeviceKind;
};

/**
 * Words a device's name or model uses for its kind. A phone's health store gathers records from a
 * watch, a scale and the phone itself, and names the device in each record (`device_data`), so the
 * record's own device says more than the provider's usual kind. Whole words where a short word
 * hides inside others ("ring" in "Spring"); "watch" also inside a model name ("ScanWatch").
 */
const KIND_WORDS: readonly (readonly [RegExp, DeviceKind])[] = [
  [/watch/i, 'watch'],
  [/\bring\b/i, 'ring'],
  [/\b(band|bracelet)\b/i, 'band'],
  [/\b(chest ?strap|hrm)\b/i, 'chest_strap'],
  [/\bscale\b/i, 'scale'],
  [/iphone|\bphone\b/i, 'phone'],
];

/** The device kind a record's `device_data` names (its name, then its model), or null. */
export function deviceKindNamed(record: Record<string, unknown>): DeviceKind | null {
  const device = record['device_data'] as { name?: unknown; hardware_version?: unknown } | null | undefined;
  for (const text of [device?.name, device?.hardware_version]) {
    if (typeof text !== 'string') continue;
    const found = KIND_WORDS.find(([words]) => words.test(text));
    if (found) return found[1];
  }
  return null;
}

/**
 * Position of a source in a family's order, smaller is better: the developer's order first, then
 * the default device order for whatever the developer's order does not name.
 */
export function positionOf(source: Source, family: MergeFamily, priorities: Priorities): number {
  const own = priorities[family] ?? [];
  const byProvider = own.indexOf(source.provider);
  const byKind = own.indexOf(source.deviceKind);
  const named = [byProvider, byKind].filter((index) => index >= 0);
  if (named.length > 0) return Math.min(...named);
  return own.length + defaultOrder(family).indexOf(source.deviceKind);
}

/**
 * Sorts candidates best first: by position, then by completeness (more is better: time covered,
 * fields filled), then by connection id and a caller's key, so that equal candidates always come
 * out in the same order whatever order they arrived in.
 */
export function rankBest<T>(
  candidates: readonly T[],
  describe: (candidate: T) => { source: Source; completeness: number; key: string },
  family: MergeFamily,
  priorities: Priorities,
): T[] {
  const keyed = candidates.map((candidate) => {
    const { source, completeness, key } = describe(candidate);
    return { candidate, position: positionOf(source, family, priorities), completeness, source, key };
  });
  keyed.sort(
    (a, b) =>
      a.position - b.position ||
      b.completeness - a.completeness ||
      compareText(a.source.connectionId, b.source.connectionId) ||
      compareText(a.key, b.key),
  );
  return keyed.map((entry) => entry.candidate);
}

export const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** One stored record competing to be chosen. */
export type Candidate<T> = {
  source: Source;
  /** Fields filled, samples held: among equally ranked sources, the fuller record leads. */
  completeness: number;
  /** The record's identity, unique within its connection. */
  key: string;
  item: T;
};

export const describeCandidate = (candidate: Candidate<unknown>) => ({
  source: candidate.source,
  completeness: candidate.completeness,
  key: candidate.key,
});

/**
 * The best candidate that has something (heart rate, a route, sleep stages, a weight), by that
 * thing's own family order: each field of a merged record comes from the source best at it.
 */
export function bestWith<C extends Candidate<unknown>>(
  candidates: readonly C[],
  has: (candidate: C) => boolean,
  family: MergeFamily,
  priorities: Priorities,
): C | null {
  return rankBest(candidates.filter(has), describeCandidate, family, priorities)[0] ?? null;
}
