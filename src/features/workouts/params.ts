// The path and body values the workout operations check themselves: ids and calendar days.
import { invalidParameter } from '../../core/errors.ts';
import { isSupportedDate } from '../../model/calendar.ts';

const ID = /^\d{1,18}$/;

export function requireId(name: string, value: string): string {
  if (!ID.test(value)) throw invalidParameter(name, 'expected a positive integer id');
  return value;
}

export function requireDay(name: string, value: string): string {
  if (!isSupportedDate(value)) throw invalidParameter(name, 'expected YYYY-MM-DD, a real calendar date');
  return value;
}
