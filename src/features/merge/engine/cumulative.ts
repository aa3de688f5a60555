// Cumulative metrics (steps, distance, energy, floors): never count the same stretch of time
// twice. Sources come best first; the best source keeps every slice it has, and each next source
// fills only the time nobody has covered yet. A slice that partly overlaps what is taken keeps its
// uncovered pieces, each with the slice's value prorated by duration (the slice's rate is assumed
// even across it), so a phone's hour of steps still counts for the half hour the watch was off.
// A day's total is the sum of the chosen pieces (docs/merge.md#cumulative-metrics).
//
// A coarse slice (a day total that cannot be placed in time) is never spread: proration would
// invent when its steps happened. It adds only what the sources above it have not counted in its
// span (its value minus theirs, never below zero), then covers its whole span. So a watch's day
// total below a phone's ten minutes keeps the day at the watch's total, not the two added.
//
// The sweep is linear in the number of slices per source (after sorting): a year of minute
// samples from several sources merges day by day without quadratic work.

/** A quantity accumulated over [startMs, endMs); an instant when they are equal. `coarse`: a total whose time within the span is unknown. */
export type Slice<T> = { startMs: number; endMs: number; value: number; item: T; coarse?: boolean };

/** A piece of a slice that was chosen: the whole slice (`fraction` 1) or an uncovered part of it. */
export type Piece<T> = Slice<T> & { fraction: number };

/** An instant occupies this much time, so that two sources' readings at the same instant count once. */
const INSTANT_MS = 1;

type Span = { start: number; end: number };

const spanOf = (slice: Slice<unknown>): Span => ({
  start: slice.startMs,
  end: slice.endMs > slice.startMs ? slice.endMs : slice.startMs + INSTANT_MS,
});

/** The parts of [from, to) no span of `taken` (sorted, disjoint) covers, from index `first` on. */
function uncovered(taken: readonly Span[], first: number, from: number, to: number): Span[] {
  const parts: Span[] = [];
  let cursor = from;
  for (let index = first; index < taken.length && taken[index]!.start < to; index++) {
    const span = taken[index]!;
    if (span.start > cursor) parts.push({ start: cursor, end: span.start });
    if (span.end > cursor) cursor = span.end;
  }
  if (cursor < to) parts.push({ start: cursor, end: to });
  return parts;
}

/** Two sorted, disjoint span lists as one (touching spans joined). */
function union(a: readonly Span[], b: readonly Span[]): Span[] {
  const out: Span[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const next = j >= b.length || (i < a.length && a[i]!.start <= b[j]!.start) ? a[i++]! : b[j++]!;
    const last = out.at(-1);
    if (last && next.start <= last.end) last.end = Math.max(last.end, next.end);
    else out.push({ ...next });
  }
  return out;
}

const bySpan = (a: Slice<unknown>, b: Slice<unknown>) =>
  a.startMs - b.startMs || a.endMs - b.endMs || b.value - a.value;

/**
 * The chosen pieces of every source's slices, in time order. `sources` is best first; a source's
 * own overlapping slices (a duplicate reading) count once too.
 */
export function mergeCumulative<T>(sources: readonly (readonly Slice<T>[])[]): Piece<T>[] {
  let taken: Span[] = [];
  const chosen: Piece<T>[] = [];
  for (const slices of sources) {
    const added: Span[] = [];
    let ownEnd = -Infinity;
    let first = 0;
    const fine = slices.filter((slice) => !slice.coarse).sort(bySpan);
    for (const slice of fine) {
      const span = spanOf(slice);
      const from = Math.max(span.start, ownEnd);
      // Neither `from` nor the slices' starts go back, so spans ending before `from` never matter again.
      while (first < taken.length && taken[first]!.end <= from) first++;
      ownEnd = Math.max(ownEnd, span.end);
      if (from >= span.end) continue;
      const length = span.end - span.start;
      for (const part of uncovered(taken, first, from, span.end)) {
        added.push(part);
        const fraction = (part.end - part.start) / length;
        const whole = fraction === 1;
        chosen.push({
          startMs: whole ? slice.startMs : part.start,
          endMs: whole ? slice.endMs : part.end,
          value: whole ? slice.value : slice.value * fraction,
          item: slice.item,
          fraction,
        });
      }
    }
    const coarse = slices.filter((slice) => slice.coarse).sort(bySpan);
    for (const slice of coarse) {
      const counted = countedWithin(chosen, slice);
      const value = Math.max(0, slice.value - counted);
      chosen.push({ ...slice, value, fraction: slice.value > 0 ? value / slice.value : 0 });
      added.push(spanOf(slice));
    }
    taken = union(
      taken,
      [...added].sort((a, b) => a.start - b.start),
    );
  }
  return chosen.sort((a, b) => a.startMs - b.startMs || a.endMs - b.endMs);
}

/** What chosen pieces counted inside a slice's span (each prorated by its overlap with the span). */
function countedWithin(pieces: readonly Piece<unknown>[], slice: Slice<unknown>): number {
  const span = spanOf(slice);
  let counted = 0;
  for (const piece of pieces) {
    const own = spanOf(piece);
    const overlap = Math.min(own.end, span.end) - Math.max(own.start, span.start);
    if (overlap > 0) counted += piece.value * (overlap / (own.end - own.start));
  }
  return counted;
}

/** The sum of the chosen pieces' values. */
export const totalOf = (pieces: readonly Piece<unknown>[]) =>
  pieces.reduce((sum, piece) => sum + piece.value, 0);
