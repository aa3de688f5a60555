// Expansion of Oura's `PublicSample` series ({interval, items, timestamp}) into timestamped
// model samples, and of its per-character classification strings. Shared by sleep, session
// and daily activity. Cannot map: null items (no reading) and characters outside a string's
// documented alphabet; both are skipped rather than invented.
import { formatDateTime } from '../../../model/time.ts';
import { instantOf } from '../../../provider-kit/normalize/normalize.ts';
import type { OuraSampleSeries } from './types.ts';

/**
 * Calls `make` for every non-null item with its wire timestamp; null items (ring off, no
 * reading) are gaps, not zeros, so they produce nothing.
 */
export function expandSeries<T>(
  series: OuraSampleSeries | null | undefined,
  offsetMinutes: number,
  make: (timestamp: string, value: number) => T,
): T[] {
  if (!series || series.items.length === 0) return [];
  const startMs = instantOf(series.timestamp, offsetMinutes);
  const stepMs = series.interval * 1000;
  const items = series.items;
  const out: T[] = [];
  for (let index = 0; index < items.length; index++) {
    const value = items[index];
    if (value === null || value === undefined) continue;
    out.push(make(formatDateTime(startMs + index * stepMs, offsetMinutes), value));
  }
  return out;
}

/**
 * One sample per run of equal characters of a classification string (`'4244211…'`), where the
 * character at `index` covers `[start + index * step, start + (index + 1) * step)`. Runs are
 * merged because a hypnogram or activity-level sample lasts until the next one (model, samples.ts).
 * `levelOf` returns null for characters outside the documented alphabet, which are skipped.
 */
export function expandClassification<T, Level extends number>(
  text: string | null | undefined,
  startMs: number,
  stepSeconds: number,
  offsetMinutes: number,
  levelOf: (character: string) => Level | null,
  make: (timestamp: string, level: Level) => T,
  mergeRuns: boolean,
): T[] {
  if (!text) return [];
  const out: T[] = [];
  const stepMs = stepSeconds * 1000;
  let previous: string | null = null;
  for (let index = 0; index < text.length; index++) {
    const character = text.charAt(index);
    if (mergeRuns && character === previous) continue;
    previous = character;
    const level = levelOf(character);
    if (level === null) continue;
    out.push(make(formatDateTime(startMs + index * stepMs, offsetMinutes), level));
  }
  return out;
}
