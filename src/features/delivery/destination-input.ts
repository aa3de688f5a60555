// What a developer sends to make or change a destination, checked before any kind sees it: its
// name, its event type filter, and how many destinations a developer may have.
import { invalidParameter } from '../../core/errors.ts';

export type DestinationInput = {
  kind: string;
  name?: string | null;
  settings: unknown;
  eventTypes?: readonly string[] | null;
};

export type DestinationChanges = {
  name?: string | null;
  settings?: unknown;
  enabled?: boolean;
  eventTypes?: readonly string[] | null;
};

const MAX_NAME = 200;

/** Destinations a developer may have besides its primary webhook (secondary webhooks count). */
export const MAX_DESTINATIONS = 10;

const EVENT_TYPE = /^[a-z][a-z0-9_.]{0,63}$/;

const MAX_EVENT_TYPES = 50;

/** An `event_types` filter checked: distinct event type names, at least one (null: every type). */
export function checkEventTypes(types: readonly string[] | null | undefined): string[] | null | undefined {
  if (types === undefined || types === null) return types;
  if (types.length === 0 || types.length > MAX_EVENT_TYPES)
    throw invalidParameter(
      'event_types',
      `expected 1 to ${MAX_EVENT_TYPES} event types, or null for every type`,
    );
  for (const [index, type] of types.entries()) {
    if (typeof type !== 'string' || !EVENT_TYPE.test(type))
      throw invalidParameter(
        `event_types.${index}`,
        'expected an event type such as "sleep" or "lab_report.completed"',
      );
  }
  if (new Set(types).size !== types.length) throw invalidParameter('event_types', 'lists a type twice');
  return [...types];
}

export function checkName(name: string | null | undefined): string | null | undefined {
  if (name === undefined || name === null) return name;
  if (name.length === 0 || name.length > MAX_NAME)
    throw invalidParameter('name', `expected 1 to ${MAX_NAME} characters`);
  return name;
}
