import type { FakeReply } from './fake-server.ts';

/**
 * The Google Health API's `filter` grammar for `dataPoints` list and reconcile, as the fake
 * enforces it, written from Google's documentation (not from the connector's filter builder):
 * - [D1] v4 reference, users.dataTypes.dataPoints.list `filter` (and the discovery document
 *   health:v4, same text): members per record type — interval `{type}.interval.start_time`
 *   (RFC 3339) and `.interval.civil_start_time` (`YYYY-MM-DD[THH:mm:ss]`); sample
 *   `.sample_time.physical_time` / `.sample_time.civil_time`; daily `.date` (`YYYY-MM-DD`); session
 *   types other than sleep and ECG only `.interval.civil_start_time`; sleep only
 *   `sleep.interval.end_time` / `.civil_end_time` (AND or OR); comparisons `>=` and `<` only,
 *   joined by AND. https://developers.google.com/health/reference/rest/v4/users.dataTypes.dataPoints/list
 * - [D2] "Filter data" guide, https://developers.google.com/health/filters: snake case in filters
 *   (a hyphen is 400 INVALID_DATA_POINT_FILTER), other comparison operators are rejected.
 * - [D3] Error catalogue, https://developers.google.com/health/reference/rest/v4/errors: the
 *   INVALID_DATA_POINT_FILTER family of reasons.
 * - [C1] A 400 captured from the live API and published by an open-source CLI: google.rpc.Status
 *   with an ErrorInfo (reason INVALID_DATA_POINT_FILTER, domain health.googleapis.com,
 *   metadata.detailedReasons) and a BadRequest whose fieldViolations name the member.
 * - [C2] Live-measured notes of an open-source dashboard: a civil member given an RFC 3339
 *   instant is INVALID_DATA_POINT_FILTER_CIVIL_DATE_TIME_FORMAT.
 */
export type RecordType = 'interval' | 'sample' | 'daily' | 'session' | 'sleep';

/** Record type of each data type the fake serves: the DataPoint union of the v4 discovery document. */
export const RECORD_TYPE: Readonly<Record<string, RecordType>> = {
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

export type MemberKind = 'physical-start' | 'civil-start' | 'physical-end' | 'civil-end' | 'date';

/** [D1] The members each record type may be filtered on, and what each compares. */
const MEMBERS: Readonly<Record<RecordType, Readonly<Record<string, MemberKind>>>> = {
  interval: { 'interval.start_time': 'physical-start', 'interval.civil_start_time': 'civil-start' },
  sample: { 'sample_time.physical_time': 'physical-start', 'sample_time.civil_time': 'civil-start' },
  daily: { date: 'date' },
  session: { 'interval.civil_start_time': 'civil-start' },
  sleep: { 'interval.end_time': 'physical-end', 'interval.civil_end_time': 'civil-end' },
};

/** A parsed filter: the member compared and its inclusive lower and exclusive upper bounds. */
export type ParsedFilter = { kind: MemberKind; from: string | null; to: string | null };

/** [C1] Google's 400 for a filter it refuses. */
export function filterRefusal(detailedReasons: string[], violations: string[]): FakeReply {
  return {
    status: 400,
    body: {
      error: {
        code: 400,
        message: `Invalid data point filter: ${detailedReasons.join(', ')}.`,
        status: 'INVALID_ARGUMENT',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'INVALID_DATA_POINT_FILTER',
            domain: 'health.googleapis.com',
            metadata: { detailedReasons: detailedReasons.join(',') },
          },
          {
            '@type': 'type.googleapis.com/google.rpc.BadRequest',
            fieldViolations: violations.map((description) => ({ field: 'filter', description })),
          },
        ],
      },
    },
  };
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const CIVIL = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2})?$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A civil literal as `YYYY-MM-DDTHH:mm:ss` (a bare date is its midnight). */
export const civilText = (literal: string) => (literal.length === 10 ? `${literal}T00:00:00` : literal);

/** Parses `filter` for `dataType`, or Google's 400 naming what is wrong. An empty filter is all. */
export function parseFilter(dataType: string, filter: string): ParsedFilter | FakeReply {
  const recordType = RECORD_TYPE[dataType];
  if (!recordType) return filterRefusal(['INVALID_DATA_POINT_FILTER_DATA_TYPE_RESTRICTION'], [dataType]);
  if (filter.trim() === '') return { kind: 'physical-start', from: null, to: null };
  const prefix = `${dataType.replace(/-/g, '_')}.`;
  // [D1] AND joins restrictions; OR only for sleep's members.
  const parts = filter.split(/\s+(AND|OR)\s+/);
  const restrictions = parts.filter((_, index) => index % 2 === 0);
  const joiners = parts.filter((_, index) => index % 2 === 1);
  if (joiners.includes('OR') && recordType !== 'sleep')
    return filterRefusal(['INVALID_DATA_POINT_FILTER_EXPRESSION_STRUCTURE'], ['OR is not supported here']);
  const parsed: ParsedFilter = { kind: 'physical-start', from: null, to: null };
  let member: string | null = null;
  for (const restriction of restrictions) {
    const match = /^\s*([^\s<>=!]+)\s*(>=|<=|!=|>|<|=)\s*"([^"]*)"\s*$/.exec(restriction);
    if (!match) return filterRefusal(['INVALID_DATA_POINT_FILTER_SYNTAX'], [`cannot parse "${restriction}"`]);
    const [, name = '', operator = '', literal = ''] = match;
    // [D2] the data type in snake case; a hyphen is refused.
    if (name.includes('-'))
      return filterRefusal(
        ['INVALID_DATA_POINT_FILTER_DATA_TYPE_RESTRICTION'],
        [`Member '${name}' has a hyphen.`],
      );
    if (!name.startsWith(prefix))
      return filterRefusal(
        ['INVALID_DATA_POINT_FILTER_DATA_TYPE_RESTRICTION'],
        [`Member '${name}' does not match the data type ${dataType}.`],
      );
    const kind = MEMBERS[recordType][name.slice(prefix.length)];
    if (!kind)
      return filterRefusal(
        ['INVALID_DATA_POINT_FILTER_DATA_TYPE_MEMBER'],
        [`Member '${name}' is not supported for filtering.`],
      );
    if (member !== null && member !== name)
      return filterRefusal(
        ['INVALID_DATA_POINT_FILTER_MIXED_DATA_TYPE_RESTRICTIONS'],
        [`'${member}' and '${name}'`],
      );
    member = name;
    // [D1][D2] `>=` and `<` only.
    if (operator !== '>=' && operator !== '<')
      return filterRefusal(
        ['INVALID_DATA_POINT_FILTER_RESTRICTION_COMPARABLE'],
        [`Operator '${operator}' is not supported.`],
      );
    const format = kind === 'date' ? DATE : kind.startsWith('civil') ? CIVIL : RFC3339;
    if (!format.test(literal))
      return filterRefusal(
        [
          kind === 'date'
            ? 'INVALID_DATA_POINT_FILTER_DATE_FORMAT'
            : kind.startsWith('civil')
              ? 'INVALID_DATA_POINT_FILTER_CIVIL_DATE_TIME_FORMAT'
              : 'INVALID_DATA_POINT_FILTER_TIMESTAMP_FORMAT',
        ],
        [`'${literal}' is not a valid literal for '${name}'.`],
      );
    parsed.kind = kind;
    if (operator === '>=') parsed.from = literal;
    else parsed.to = literal;
  }
  return parsed;
}

export const isReply = (value: ParsedFilter | FakeReply): value is FakeReply => 'status' in value;
