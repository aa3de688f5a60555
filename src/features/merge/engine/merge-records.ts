// From one person's stored records of one type, every connection's, to merged records with
// provenance. Pure: the result depends only on the records and the priorities, never on the order
// the records are given in (they are ranked by a total order first) or on how often one arrived
// (a record is its identity's latest copy). The rules per family are in docs/merge.md.
import { formatDateTime, offsetOfDateTime } from '../../../model/time.ts';
import { samplePaths } from '../../../model/strip-samples.ts';
import { mergeCumulative, type Piece, type Slice } from './cumulative.ts';
import { type Provenance, ProvenanceBuilder, RULES, type SourcedRecord } from './provenance.ts';
import { completenessOf, hasContent, msOf, setAt, valueAt } from './sections.ts';
import { clusterSessions, type SessionCandidate } from './sessions.ts';
import {
  bestWith,
  type Candidate,
  type MergeFamily,
  type Priorities,
  rankBest,
  describeCandidate,
} from './sources.ts';

export const MERGED_TYPES = ['activity', 'body', 'daily', 'menstruation', 'nutrition', 'sleep'] as const;
export type MergedType = (typeof MERGED_TYPES)[number];

export type MergedRecord = Record<string, unknown> & { provenance: Provenance };

/** The family that ranks a type's records as a whole (its lead). */
const TYPE_FAMILY: Record<MergedType, MergeFamily> = {
  activity: 'workouts',
  body: 'body',
  daily: 'cumulative',
  menstruation: 'menstruation',
  nutrition: 'nutrition',
  sleep: 'sleep',
};

/** Sections ranked by another family than their record's: a heart rate from the best heart-rate source. */
const SECTION_FAMILY: Partial<Record<MergedType, Record<string, MergeFamily>>> = {
  activity: {
    heart_rate_data: 'heart_rate',
    oxygen_data: 'heart_rate',
    position_data: 'route',
    polyline_map_data: 'route',
  },
  daily: { heart_rate_data: 'heart_rate', oxygen_data: 'heart_rate' },
  sleep: { heart_rate_data: 'heart_rate' },
};

/** Arrays of points that every source keeps in a merged day (measurements are never averaged). */
const POINT_ARRAYS: Partial<Record<MergedType, readonly string[]>> = {
  body: [...samplePaths.body, 'measurements_data.measurements'],
};

/** Sections that describe the record itself rather than measure anything: always the lead's. */
const OWN_SECTIONS = new Set(['metadata', 'device_data']);

type Ranked = Candidate<SourcedRecord>;

const candidateOf = (sourced: SourcedRecord): Ranked => ({
  source: sourced.source,
  completeness: completenessOf(sourced.record),
  key: sourced.key,
  item: sourced,
});

/** Merges a type's records; days in day order, sessions in time order. */
export function mergeRecords(
  type: MergedType,
  records: readonly SourcedRecord[],
  priorities: Priorities,
): MergedRecord[] {
  const candidates = records.map(candidateOf);
  if (type === 'activity' || type === 'sleep') return mergeSessions(type, candidates, priorities);
  const byDay = new Map<string, Ranked[]>();
  for (const candidate of candidates) {
    const start = valueAt(candidate.item.record, 'metadata.start_time');
    if (typeof start !== 'string') continue;
    const day = start.slice(0, 10);
    const group = byDay.get(day);
    if (group) group.push(candidate);
    else byDay.set(day, [candidate]);
  }
  return [...byDay.keys()].sort().map((day) => mergeDay(type, byDay.get(day)!, priorities));
}

function mergeDay(type: MergedType, group: Ranked[], priorities: Priorities): MergedRecord {
  const ranked = rankBest(group, describeCandidate, TYPE_FAMILY[type], priorities);
  const provenance = new ProvenanceBuilder(ranked.map((candidate) => candidate.item));
  const merged = mergeSections(type, ranked, priorities, provenance);
  if (type === 'daily') mergeCumulativeFields(merged, ranked, priorities, provenance);
  for (const path of POINT_ARRAYS[type] ?? []) gatherPoints(merged, path, ranked, provenance);
  const rule = type === 'daily' && ranked.length > 1 ? RULES.slices : RULES.priority;
  return { ...merged, provenance: provenance.build(rule, ranked[0]!.item) };
}

/**
 * The lead's record, each measuring section replaced by the best source's that has it (by the
 * section's family), and its provenance noted when it is not the lead's.
 */
function mergeSections(
  type: MergedType,
  ranked: readonly Ranked[],
  priorities: Priorities,
  provenance: ProvenanceBuilder,
): Record<string, unknown> {
  const lead = ranked[0]!;
  // A shallow copy: sections are shared with the stored records, never written (setAt copies its path).
  const merged: Record<string, unknown> = { ...lead.item.record };
  const sections = new Set(ranked.flatMap((candidate) => Object.keys(candidate.item.record)));
  for (const section of [...sections].sort()) {
    if (OWN_SECTIONS.has(section)) continue;
    const family = SECTION_FAMILY[type]?.[section] ?? TYPE_FAMILY[type];
    const best = bestWith(
      ranked,
      (candidate) => hasContent(candidate.item.record[section]),
      family,
      priorities,
    );
    if (!best) continue;
    if (best !== lead) merged[section] = best.item.record[section];
    provenance.field(section, best === lead ? RULES.priority : RULES.bestForField, [best.item]);
  }
  return merged;
}

// ---- sessions ----------------------------------------------------------------------------------

const ACTIVITY_TYPE_OTHER = 108;

/** A run and a ride are not one workout; an unnamed (`OTHER`) workout can be either. Any two sleeps can be one. */
function compatible(type: MergedType) {
  return (a: SourcedRecord, b: SourcedRecord) => {
    if (type !== 'activity') return true;
    const kindA = valueAt(a.record, 'metadata.type');
    const kindB = valueAt(b.record, 'metadata.type');
    return kindA === kindB || kindA === ACTIVITY_TYPE_OTHER || kindB === ACTIVITY_TYPE_OTHER;
  };
}

function mergeSessions(
  type: MergedType,
  candidates: readonly Ranked[],
  priorities: Priorities,
): MergedRecord[] {
  const sessions: SessionCandidate<SourcedRecord>[] = [];
  for (const candidate of candidates) {
    const startMs = msOf(valueAt(candidate.item.record, 'metadata.start_time'));
    const endMs = msOf(valueAt(candidate.item.record, 'metadata.end_time'));
    if (startMs === null || endMs === null) continue;
    sessions.push({ ...candidate, startMs, endMs });
  }
  const clusters = clusterSessions(sessions, TYPE_FAMILY[type], priorities, { compatible: compatible(type) });
  return clusters.map((cluster) => {
    const provenance = new ProvenanceBuilder(cluster.map((member) => member.item));
    const merged = mergeSections(type, cluster, priorities, provenance);
    return { ...merged, provenance: provenance.build(RULES.priority, cluster[0]!.item) };
  });
}

// ---- points ------------------------------------------------------------------------------------

/**
 * Every source's points of an array, in time order; the same reading written by two sources (an
 * app mirroring a scale) is kept once, from the better source. Each kept point's source is noted.
 */
function gatherPoints(
  merged: Record<string, unknown>,
  path: string,
  ranked: readonly Ranked[],
  provenance: ProvenanceBuilder,
): void {
  const points: { point: unknown; from: SourcedRecord; at: number; order: number }[] = [];
  const seen = new Set<string>();
  for (const candidate of ranked) {
    const list = valueAt(candidate.item.record, path);
    if (!Array.isArray(list)) continue;
    for (const point of list) {
      const text = JSON.stringify(point);
      if (seen.has(text)) continue;
      seen.add(text);
      const at =
        msOf(
          (point as { timestamp?: unknown; measurement_time?: unknown } | null)?.timestamp ??
            (point as { measurement_time?: unknown } | null)?.measurement_time,
        ) ?? 0;
      points.push({ point, from: candidate.item, at, order: points.length });
    }
  }
  if (points.length === 0) return;
  points.sort((a, b) => a.at - b.at || a.order - b.order);
  setAt(
    merged,
    path,
    points.map((entry) => entry.point),
  );
  provenance.sampleSources(
    path,
    points.map((entry) => entry.from),
  );
  provenance.field(
    path,
    RULES.allPoints,
    points.map((entry) => entry.from),
  );
}

// ---- cumulative day totals ---------------------------------------------------------------------

type CumulativeField = {
  total: string;
  /** The field's samples, when the model has any, and whether their values run up (cumulative). */
  samples?: { path: string; value: string; runningTotal: boolean };
  /** Whole units (steps, floors) or two decimals. */
  whole: boolean;
};

const CUMULATIVE_FIELDS: readonly CumulativeField[] = [
  {
    total: 'distance_data.steps',
    samples: { path: 'distance_data.detailed.step_samples', value: 'steps', runningTotal: false },
    whole: true,
  },
  {
    total: 'distance_data.distance_meters',
    samples: {
      path: 'distance_data.detailed.distance_samples',
      value: 'distance_meters',
      runningTotal: true,
    },
    whole: false,
  },
  { total: 'distance_data.floors_climbed', whole: true },
  { total: 'calories_data.net_activity_calories', whole: false },
];

/** Samples account for a total when they sum to it within this share (or one unit). */
const SAMPLES_ACCOUNT_FOR = 0.01;

/**
 * A slice of a source's samples. `text` is the sample's own timestamp (its start, or its end for a
 * running total): a piece taken whole keeps it as written, and a clipped one is written in its
 * offset. Read only when needed: parsing offsets of a year of minute samples is not free.
 */
type TimedValue = { startMs: number; endMs: number; value: number; text: string; coarse?: boolean };

/** A sample list as time slices: each sample over its timer duration, or until the next sample. */
function slicesOfSamples(
  list: readonly Record<string, unknown>[],
  field: NonNullable<CumulativeField['samples']>,
): TimedValue[] {
  const timed = list
    .map((sample) => {
      const text = sample['timestamp'];
      const ms = msOf(text);
      const value = sample[field.value];
      const seconds = sample['timer_duration_seconds'];
      if (ms === null || typeof value !== 'number' || !Number.isFinite(value)) return null;
      return {
        ms,
        value,
        seconds: typeof seconds === 'number' && seconds > 0 ? seconds : null,
        text: text as string,
      };
    })
    .filter((entry) => entry !== null)
    .sort((a, b) => a.ms - b.ms);
  const slices: TimedValue[] = [];
  for (const [index, sample] of timed.entries()) {
    if (field.runningTotal) {
      // A running total: each sample adds what it grew since the one before, over the time between.
      const previous = timed[index - 1];
      const startMs = previous ? previous.ms : sample.seconds ? sample.ms - sample.seconds * 1000 : sample.ms;
      const value = sample.value - (previous?.value ?? 0);
      if (value >= 0) slices.push({ startMs, endMs: sample.ms, value, text: sample.text });
      continue;
    }
    const next = timed[index + 1];
    const endMs = sample.seconds ? sample.ms + sample.seconds * 1000 : next ? next.ms : sample.ms;
    // A zero is a reading too: the device was counting and counted nothing, so no other source
    // fills that time.
    if (sample.value >= 0) slices.push({ startMs: sample.ms, endMs, value: sample.value, text: sample.text });
  }
  return slices;
}

/**
 * One record's slices of a cumulative field: its samples when they account for its total, else
 * its total as one coarse slice over its day (never spread over the day: see cumulative.ts).
 */
function slicesOf(record: Record<string, unknown>, field: CumulativeField): TimedValue[] {
  const total = valueAt(record, field.total);
  const list = field.samples ? valueAt(record, field.samples.path) : null;
  if (field.samples && Array.isArray(list) && list.length > 0) {
    const slices = slicesOfSamples(list as Record<string, unknown>[], field.samples);
    const sum = slices.reduce((acc, slice) => acc + slice.value, 0);
    const accounts =
      typeof total !== 'number' || Math.abs(sum - total) <= Math.max(1, total * SAMPLES_ACCOUNT_FOR);
    if (slices.length > 0 && accounts) return slices;
  }
  if (typeof total !== 'number' || !Number.isFinite(total) || total <= 0) return [];
  const start = valueAt(record, 'metadata.start_time');
  const startMs = msOf(start);
  const endMs = msOf(valueAt(record, 'metadata.end_time'));
  if (startMs === null || endMs === null) return [];
  return [{ startMs, endMs, value: total, text: start as string, coarse: true }];
}

const rounded = (value: number, whole: boolean) =>
  whole ? Math.round(value) : Math.round(value * 100) / 100;

function mergeCumulativeFields(
  merged: Record<string, unknown>,
  ranked: readonly Ranked[],
  priorities: Priorities,
  provenance: ProvenanceBuilder,
): void {
  for (const field of CUMULATIVE_FIELDS) {
    const having = ranked.filter(
      (candidate) => typeof valueAt(candidate.item.record, field.total) === 'number',
    );
    if (having.length === 0) continue;
    if (having.length === 1) {
      // One source: its own numbers, untouched (no re-summing of samples that may be rounded).
      const only = having[0]!;
      setAt(merged, field.total, valueAt(only.item.record, field.total));
      if (field.samples)
        setAt(merged, field.samples.path, valueAt(only.item.record, field.samples.path) ?? []);
      provenance.field(field.total, RULES.priority, [only.item]);
      continue;
    }
    const order = rankBest(having, describeCandidate, 'cumulative', priorities);
    const sources = order.map((candidate) =>
      slicesOf(candidate.item.record, field).map((slice): Slice<{ from: SourcedRecord; text: string }> => ({
        startMs: slice.startMs,
        endMs: slice.endMs,
        value: slice.value,
        item: { from: candidate.item, text: slice.text },
        ...(slice.coarse ? { coarse: true } : {}),
      })),
    );
    const pieces = mergeCumulative(sources);
    const total = pieces.reduce((sum, piece) => sum + piece.value, 0);
    setAt(merged, field.total, rounded(total, field.whole));
    provenance.field(
      field.total,
      RULES.slices,
      (pieces.some((piece) => piece.value > 0) ? pieces.filter((piece) => piece.value > 0) : pieces).map(
        (piece) => piece.item.from,
      ),
    );
    if (field.samples) {
      // Day totals are no samples: only pieces placed in time are listed.
      const placed = pieces.filter((piece) => !piece.coarse);
      setAt(merged, field.samples.path, samplesOfPieces(placed, field));
      provenance.sampleSources(
        field.samples.path,
        placed.map((piece) => piece.item.from),
      );
    }
  }
}

/** The merged samples, in the model's shape: per slice, or a running total for distance. */
function samplesOfPieces(pieces: readonly Piece<{ text: string }>[], field: CumulativeField) {
  const written = (piece: Piece<{ text: string }>, ms: number) =>
    piece.fraction === 1 ? piece.item.text : formatDateTime(ms, offsetOfDateTime(piece.item.text));
  const samples = field.samples!;
  let running = 0;
  return pieces.map((piece) => {
    const seconds = (piece.endMs - piece.startMs) / 1000;
    if (samples.runningTotal) {
      running += piece.value;
      return {
        timestamp: written(piece, piece.endMs),
        [samples.value]: rounded(running, false),
        timer_duration_seconds: seconds,
      };
    }
    return {
      timestamp: written(piece, piece.startMs),
      [samples.value]: Math.round(piece.value * 100) / 100,
      timer_duration_seconds: seconds,
    };
  });
}
