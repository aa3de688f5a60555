// The unified data model: record schemas, their types, and a registry describing each
// historical data type (schema, identity, time anchor, which arrays are samples).
import type { TSchema } from 'typebox';
import { Activity } from './activity.ts';
import { Athlete } from './athlete.ts';
import { Body } from './body.ts';
import { Daily } from './daily.ts';
import { Hormone } from './hormone.ts';
import { Menstruation } from './menstruation.ts';
import { Nutrition } from './nutrition.ts';
import { PlannedWorkoutDetails } from './planned-workout.ts';
import { PlannedWorkout } from './planned-workout-current.ts';
import { Sleep } from './sleep.ts';
import { samplePaths, stripPaths } from './strip-samples.ts';

export { Activity } from './activity.ts';
export * from './activity-type.ts';
export { Athlete } from './athlete.ts';
export { Body } from './body.ts';
export { Daily } from './daily.ts';
export * from './enums.ts';
export { Hormone } from './hormone.ts';
export { Menstruation } from './menstruation.ts';
export { Meal, Nutrition } from './nutrition.ts';
export { PlannedWorkoutDetails } from './planned-workout.ts';
export { AthleteMetrics, PlannedWorkout } from './planned-workout-current.ts';
export { Sleep } from './sleep.ts';
export { samplePaths, stripPaths } from './strip-samples.ts';

/** Model version carried by data webhooks (`version`). */
export const MODEL_VERSION = '2022-03-16';

/** The historical data types, in the order the API documents them. */
export const dataTypeNames = [
  'activity',
  'body',
  'daily',
  'menstruation',
  'nutrition',
  'sleep',
  'hormone',
  'plannedWorkout',
] as const;
export type DataTypeName = (typeof dataTypeNames)[number];

export function isDataTypeName(value: string): value is DataTypeName {
  return (dataTypeNames as readonly string[]).includes(value);
}

/** Record type of each historical data type. */
export interface DataTypeRecords {
  activity: Activity;
  body: Body;
  daily: Daily;
  menstruation: Menstruation;
  nutrition: Nutrition;
  sleep: Sleep;
  hormone: Hormone;
  plannedWorkout: PlannedWorkoutDetails;
}

export interface DataTypeDefinition<Name extends DataTypeName, Schema extends TSchema> {
  name: Name;
  schema: Schema;
  /** Whether the read endpoint takes `with_samples` (false: nothing to strip). */
  acceptsWithSamples: boolean;
  /**
   * Upsert identity: records with equal keys are the same record. Null when the record lacks
   * its identity fields (a planned workout posted without `metadata.id` needs one assigned).
   */
  identityKey(record: DataTypeRecords[Name]): string | null;
  /**
   * The instant that places the record on a day: a record belongs to the local calendar day
   * of this datetime (activity/sleep start, day start, test time, planned date).
   */
  anchorTime(record: DataTypeRecords[Name]): string | null;
  /** Dotted paths of the sample arrays `with_samples=false` empties. */
  samplePaths: readonly string[];
  /** Copy of the record with every sample array emptied; the input is not mutated. */
  stripSamples(record: DataTypeRecords[Name]): DataTypeRecords[Name];
}

/** Day records are keyed on their bounds; both ends are part of the key (reference B). */
function dayKey(record: { metadata: { start_time: string; end_time: string } }): string {
  return `${record.metadata.start_time}|${record.metadata.end_time}`;
}

function define<Name extends DataTypeName, Schema extends TSchema>(
  name: Name,
  schema: Schema,
  acceptsWithSamples: boolean,
  identityKey: (record: DataTypeRecords[Name]) => string | null,
  anchorTime: (record: DataTypeRecords[Name]) => string | null,
): DataTypeDefinition<Name, Schema> {
  const paths: readonly string[] = samplePaths[name];
  return {
    name,
    schema,
    acceptsWithSamples,
    identityKey,
    anchorTime,
    samplePaths: paths,
    stripSamples: (record) => stripPaths(record, paths),
  };
}

export const dataTypes = {
  activity: define(
    'activity',
    Activity,
    true,
    (record) => record.metadata.summary_id,
    (record) => record.metadata.start_time,
  ),
  body: define('body', Body, true, dayKey, (record) => record.metadata.start_time),
  daily: define('daily', Daily, true, dayKey, (record) => record.metadata.start_time),
  menstruation: define('menstruation', Menstruation, true, dayKey, (record) => record.metadata.start_time),
  nutrition: define('nutrition', Nutrition, true, dayKey, (record) => record.metadata.start_time),
  sleep: define(
    'sleep',
    Sleep,
    true,
    // summary_id is optional for sleep; without it the session's bounds identify it.
    (record) => record.metadata.summary_id ?? `${record.metadata.start_time}|${record.metadata.end_time}`,
    (record) => record.metadata.start_time,
  ),
  hormone: define(
    'hormone',
    Hormone,
    true,
    (record) => record.timestamp,
    (record) => record.timestamp,
  ),
  // The provider-side body of planned workouts (the current wire object wraps it: planned-workout-current.ts).
  plannedWorkout: define(
    'plannedWorkout',
    PlannedWorkoutDetails,
    false,
    (record) => record.metadata?.id ?? null,
    (record) => record.metadata?.planned_date ?? null,
  ),
} as const;

/** Every schema with an `$id`, for registering as shared components (e.g. `app.addSchema`). */
export const modelSchemas = [
  Activity,
  Athlete,
  Body,
  Daily,
  Hormone,
  Menstruation,
  Nutrition,
  PlannedWorkoutDetails,
  PlannedWorkout,
  Sleep,
];

// For code that holds the type name only at run time (`dataTypes[type].identityKey(record)` does
// not type-check there, because TypeScript cannot pair the name with the record type).

export function identityKeyOf<T extends DataTypeName>(type: T, record: DataTypeRecords[T]): string | null {
  return (dataTypes[type].identityKey as (value: DataTypeRecords[T]) => string | null)(record);
}

export function anchorTimeOf<T extends DataTypeName>(type: T, record: DataTypeRecords[T]): string | null {
  return (dataTypes[type].anchorTime as (value: DataTypeRecords[T]) => string | null)(record);
}

export function stripSamplesOf<T extends DataTypeName>(
  type: T,
  record: DataTypeRecords[T],
): DataTypeRecords[T] {
  return stripPaths(record, dataTypes[type].samplePaths);
}
