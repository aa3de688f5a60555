// Google Health API v4 list/reconcile filters, built from the documented grammar (AIP-160 subset)
// and nothing else. Sources: the `filter` parameter of users.dataTypes.dataPoints.list in the v4
// reference and discovery document (health:v4), and the "Filter data" guide
// (developers.google.com/health/filters): the member a filter may name depends on the data type's
// record type (interval, sample, daily, session); only `>=` and `<` compare, joined by `AND`;
// the data type is written in snake case; physical members take RFC 3339 instants, civil members
// a local `YYYY-MM-DD[THH:mm:ss]` and daily members a `YYYY-MM-DD`. Session types have no physical
// member at all: exercise, nutrition and hydration logs are filtered on their civil start, sleep
// only on its end. Anything else is answered 400 INVALID_DATA_POINT_FILTER.
//
// Local days are asked on the civil members: a civil range holds each local day whole at the
// offset the user had then, which no UTC window can promise.
import { addDays } from '../../model/time.ts';
import type { DayRange } from '../../provider-kit/pagination.ts';

export type RecordType = 'interval' | 'sample' | 'daily' | 'session' | 'sleep';

/** The record type of each data type read (DataPoint union of the v4 reference). */
export const RECORD_TYPES: Readonly<Record<string, RecordType>> = {
  steps: 'interval',
  distance: 'interval',
  floors: 'interval',
  'active-energy-burned': 'interval',
  'heart-rate': 'sample',
  weight: 'sample',
  'body-fat': 'sample',
  'daily-resting-heart-rate': 'daily',
  'daily-heart-rate-variability': 'daily',
  'daily-respiratory-rate': 'daily',
  'daily-oxygen-saturation': 'daily',
  'daily-sleep-temperature-derivations': 'daily',
  'daily-vo2-max': 'daily',
  exercise: 'session',
  'nutrition-log': 'session',
  'hydration-log': 'session',
  sleep: 'sleep',
};

/** The civil member of each record type: what a range of local days is asked on. */
const CIVIL_MEMBER: Readonly<Record<RecordType, string>> = {
  interval: 'interval.civil_start_time',
  sample: 'sample_time.civil_time',
  daily: 'date',
  session: 'interval.civil_start_time',
  sleep: 'interval.civil_end_time',
};

/** The physical member, where the record type has one (session types other than sleep have none). */
const PHYSICAL_MEMBER: Readonly<Partial<Record<RecordType, string>>> = {
  interval: 'interval.start_time',
  sample: 'sample_time.physical_time',
  sleep: 'interval.end_time',
};

/** `body-fat` in paths, `body_fat` in filters: a hyphen in a filter is rejected. */
export const filterName = (dataType: string): string => dataType.replace(/-/g, '_');

function recordTypeOf(dataType: string): RecordType {
  const type = RECORD_TYPES[dataType];
  if (!type) throw new RangeError(`no filter is known for the Google Health data type ${dataType}`);
  return type;
}

const range = (member: string, from: string, to: string) => `${member} >= "${from}" AND ${member} < "${to}"`;

/** The data points of the local days [startDate, endDate), on the type's civil member. */
export function localDaysFilter(dataType: string, days: DayRange): string {
  const type = recordTypeOf(dataType);
  const member = `${filterName(dataType)}.${CIVIL_MEMBER[type]}`;
  if (type === 'daily') return range(member, days.startDate, days.endDate);
  return range(member, `${days.startDate}T00:00:00`, `${days.endDate}T00:00:00`);
}

/**
 * The sleep sessions that start on the local days [startDate, endDate): sleep is filtered on its
 * end only, so the nights are asked up to the morning after the last day (the caller keeps those
 * that start in the range).
 */
export function sleepEndingFilter(days: DayRange): string {
  return localDaysFilter('sleep', { startDate: days.startDate, endDate: addDays(days.endDate, 1) });
}

/** The data points in the instants [from, to) (RFC 3339), on the type's physical member. */
export function instantsFilter(dataType: string, from: string, to: string): string {
  const member = PHYSICAL_MEMBER[recordTypeOf(dataType)];
  if (!member) throw new RangeError(`Google Health ${dataType} has no physical-time filter`);
  return range(`${filterName(dataType)}.${member}`, from, to);
}
