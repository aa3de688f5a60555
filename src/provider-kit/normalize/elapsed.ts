// When a recording ends. Providers give a workout's timer time (the watch's clock stopped during
// pauses) beside or instead of its elapsed time; start + timer time ends a paused workout before
// its own last samples. A record ends at start + elapsed (clock) time when the provider gives it,
// and never before its last sample either way.

/** The end instant, in the unit of `start` (seconds or milliseconds, consistently). */
export function recordingEnd(
  start: number,
  known: {
    /** Wall-clock time from start to finish, pauses included. */
    elapsed?: number | null;
    /** Timer time: the pauses left out. Only a lower bound of the end. */
    timer?: number | null;
    /** The instant of the last sample. */
    lastSampleAt?: number | null;
  },
): number {
  const usable = (value: number | null | undefined) =>
    typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
  const elapsed = usable(known.elapsed);
  const timer = usable(known.timer);
  const last =
    typeof known.lastSampleAt === 'number' && Number.isFinite(known.lastSampleAt)
      ? known.lastSampleAt
      : start;
  const byDuration = elapsed !== null ? start + elapsed : timer !== null ? start + timer : start;
  return Math.max(byDuration, last, start);
}
