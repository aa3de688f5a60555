// ActivityType (`metadata.type` of an activity; docs/wire-contract.md#data-model): name -> integer code.
// Codes 2, 6, 72, 107, 109-112 and 121 are unused upstream. Codes 149-154 carry display titles
// upstream ("Trail Running", "E-Biking", ...); their names here are those titles in the same
// UPPER_SNAKE form as the rest, because the SDK's planned-workout `type` strings stop at 133.
import { ActivityType, type ActivityTypeName } from './activity-type-codes.ts';
import { codeSchema } from './schema-helpers.ts';

export * from './activity-type-codes.ts';

export const ActivityTypeSchema = codeSchema(ActivityType, 'ActivityType');

/** Names in code order, for schemas that accept the activity type by name (planned workouts). */
export const activityTypeNames = Object.keys(ActivityType) as ActivityTypeName[];

const namesByCode = new Map<number, ActivityTypeName>(
  activityTypeNames.map((name) => [ActivityType[name], name]),
);

export function activityTypeName(code: number): ActivityTypeName | undefined {
  return namesByCode.get(code);
}
