// Sessions (workouts, sleep): the same run recorded by a watch and by Strava, the same night by a
// ring and by a watch, become one merged session. Records are taken best source first; each joins
// the cluster whose lead it overlaps most, when the overlap is at least half of the shorter of the
// two, their kinds are compatible and the cluster holds nothing yet from the same connection (two
// workouts of one device are two workouts). Otherwise it leads a cluster of its own. Because the
// order they are taken in is a total order over the stored records, the clusters never depend on
// the order the records arrived in (docs/merge.md#sessions).
import { type Candidate, describeCandidate, type MergeFamily, type Priorities, rankBest } from './sources.ts';

export type SessionCandidate<T> = Candidate<T> & { startMs: number; endMs: number };

export type ClusterOptions<T> = {
  /** Whether two records can be the same session (a run and a ride cannot). */
  compatible: (a: T, b: T) => boolean;
  /** The least overlap, as a share of the shorter record, for two records to be one session. */
  minOverlap?: number;
};

const DEFAULT_MIN_OVERLAP = 0.5;

const overlapMs = (a: SessionCandidate<unknown>, b: SessionCandidate<unknown>) =>
  Math.max(0, Math.min(a.endMs, b.endMs) - Math.max(a.startMs, b.startMs));

/** Clusters of the same session, each best first (its lead, then the alternatives), in time order. */
export function clusterSessions<T>(
  candidates: readonly SessionCandidate<T>[],
  family: MergeFamily,
  priorities: Priorities,
  options: ClusterOptions<T>,
): SessionCandidate<T>[][] {
  const minOverlap = options.minOverlap ?? DEFAULT_MIN_OVERLAP;
  const ranked = rankBest(candidates, describeCandidate, family, priorities);
  const clusters: SessionCandidate<T>[][] = [];
  for (const candidate of ranked) {
    let best: { cluster: SessionCandidate<T>[]; overlap: number } | null = null;
    for (const cluster of clusters) {
      const lead = cluster[0]!;
      const overlap = overlapMs(candidate, lead);
      const shorter = Math.min(candidate.endMs - candidate.startMs, lead.endMs - lead.startMs);
      if (shorter <= 0 || overlap < minOverlap * shorter) continue;
      if (!options.compatible(lead.item, candidate.item)) continue;
      if (cluster.some((member) => member.source.connectionId === candidate.source.connectionId)) continue;
      if (!best || overlap > best.overlap) best = { cluster, overlap };
    }
    if (best) best.cluster.push(candidate);
    else clusters.push([candidate]);
  }
  return clusters.sort(
    (a, b) => a[0]!.startMs - b[0]!.startMs || a[0]!.endMs - b[0]!.endMs || compareKeys(a[0]!, b[0]!),
  );
}

const compareKeys = (a: SessionCandidate<unknown>, b: SessionCandidate<unknown>) => {
  const left = `${a.source.connectionId}\u0000${a.key}`;
  const right = `${b.source.connectionId}\u0000${b.key}`;
  return left < right ? -1 : left > right ? 1 : 0;
};
