// What both directions of the Garmin Training API mapping share: reading an enumeration given by
// name (SDK) or by number (docs), numbers, and the swim strokes in both vocabularies.
import type { PlannedWorkoutStep } from '../../model/planned-workout.ts';

export type Json = Record<string, unknown>;
export type Duration = NonNullable<PlannedWorkoutStep['durations']>[number];
export type Target = NonNullable<PlannedWorkoutStep['targets']>[number];

/** A name of `names` given by name (any case) or by its number; otherwise null. */
export function nameOf<const N extends readonly string[]>(names: N, value: unknown): N[number] | null {
  if (typeof value === 'number') return Number.isInteger(value) ? (names[value] ?? null) : null;
  if (typeof value !== 'string') return null;
  const upper = value.toUpperCase();
  return names.find((name) => name.toUpperCase() === upper) ?? null;
}
export const num = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;

/** Unified stroke names -> Garmin's. */
export const STROKES: Readonly<Record<string, string>> = {
  FREESTYLE: 'FREESTYLE',
  BACKSTROKE: 'BACKSTROKE',
  BREASTSTROKE: 'BREASTSTROKE',
  BUTTERFLY: 'BUTTERFLY',
  OTHER: 'MIXED',
};
