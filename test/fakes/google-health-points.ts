import type { FakeReply, FakeRequest, Grant, Route } from './fake-server.ts';
import { pageOf } from './fake-server.ts';
import { civilText, isReply, type ParsedFilter, parseFilter } from './google-health-filters.ts';
import {
  civilTextOf,
  type GoogleHealthUser,
  isoDay,
  type Point,
  pointsOf,
  totalCaloriesOf,
} from './google-health-data.ts';

/**
 * The data-point methods of the fake Google Health API v4: `dataPoints` (list), `:reconcile` and
 * `:dailyRollUp`. Each rule is Google's, with its source:
 * - [L] users.dataTypes.dataPoints.list (v4 reference and discovery document health:v4):
 *   https://developers.google.com/health/reference/rest/v4/users.dataTypes.dataPoints/list
 * - [R] …/dataPoints/reconcile: one stream merged from all sources; same filter and page rules;
 *   ReconciledDataPoint carries `dataPointName`, no `dataSource`; `dataSourceFamily` one of three.
 * - [U] …/dataPoints/dailyRollUp: POST, `range` a CivilTimeInterval (CivilDateTime start/end,
 *   closed-open) whose start is aligned with the window; at most 14 days for heart-rate,
 *   total-calories, active-minutes and calories-in-heart-rate-zone, 90 for the rest; values over
 *   the reconciled points of all sources (DailyRollupDataPoint); a day without data is absent.
 * - [E] Error catalogue https://developers.google.com/health/reference/rest/v4/errors.
 * - [C] Live behaviour published by open-source integrations: `total-calories` refuses `list`
 *   ("List is not supported for data type total-calories"; it is no member of the DataPoint union
 *   either), `dailyRollUp` refuses `pageSize` and `range.start.year` (CivilDateTime nests the
 *   date under `date`).
 */
export type PointsContext = {
  now(): number;
  historyDays: number;
  userOf(account: string): GoogleHealthUser;
  deleted: ReadonlySet<string>;
  /** The grant of a request allowed to read `dataType` (token, quota and scope), or Google's refusal. */
  grantFor(request: FakeRequest, dataType: string): Grant | FakeReply;
};

const DAY_MS = 86_400_000;
const SESSION_PAGE_TYPES = new Set(['exercise', 'sleep']);
const ROLLUP_FOURTEEN_DAYS = new Set([
  'heart-rate',
  'total-calories',
  'active-minutes',
  'calories-in-heart-rate-zone',
]);
/** [U] What the fake rolls up: each data type's DailyRollupDataPoint member and its value. */
const ROLLUPS: Readonly<Record<string, (points: Point[], user: GoogleHealthUser, day: number) => unknown>> = {
  steps: (points) => ({
    steps: { countSum: String(sum(points, (p) => Number(field(p, 'steps', 'count')))) },
  }),
  distance: (points) => ({
    distance: { millimetersSum: String(sum(points, (p) => Number(field(p, 'distance', 'millimeters')))) },
  }),
  floors: (points) => ({
    floors: { countSum: String(sum(points, (p) => Number(field(p, 'floors', 'count')))) },
  }),
  'active-energy-burned': (points) => ({
    activeEnergyBurned: {
      kcalSum: round(sum(points, (p) => Number(field(p, 'activeEnergyBurned', 'kcal')))),
    },
  }),
  'total-calories': (_points, user, day) => ({ totalCalories: { kcalSum: totalCaloriesOf(user, day) } }),
};
/** The data type whose points stand behind a rollup (total calories: the day's active energy). */
const ROLLUP_SOURCE: Readonly<Record<string, string>> = { 'total-calories': 'active-energy-burned' };

const field = (entry: Point, member: string, name: string) =>
  (entry.point[member] as Record<string, unknown> | undefined)?.[name];
const sum = (points: Point[], value: (point: Point) => number) =>
  points.reduce((total, point) => total + value(point), 0);
const round = (value: number) => Number(value.toFixed(1));

export const googleError = (code: number, status: string, message: string, reason?: string): FakeReply => ({
  status: code,
  body: {
    error: {
      code,
      message,
      status,
      ...(reason
        ? {
            details: [
              {
                '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
                reason,
                domain: 'health.googleapis.com',
              },
            ],
          }
        : {}),
    },
  },
});

/** [E] A data type the method does not serve: INVALID_PARENT_DATA_TYPE_COLLECTION. */
export const unknownDataType = (type: string): FakeReply =>
  googleError(
    400,
    'INVALID_ARGUMENT',
    `Invalid data type ID referenced in the parent data type collection: ${type}.`,
    'INVALID_PARENT_DATA_TYPE_COLLECTION',
  );

const dayNumberOf = (text: string) => Math.floor(Date.parse(`${text.slice(0, 10)}T00:00:00Z`) / DAY_MS);

export function dataPointRoutes(ctx: PointsContext): Route[] {
  /** The days a parsed filter can reach, so only those are generated. */
  function daysOf(parsed: ParsedFilter, today: number): [number, number] {
    const bound = (text: string | null, fallback: number, side: 1 | -1) => {
      if (text === null) return fallback;
      const day = parsed.kind.startsWith('physical')
        ? Math.floor(Date.parse(text) / DAY_MS)
        : dayNumberOf(text);
      return day + side * 2;
    };
    return [bound(parsed.from, today - ctx.historyDays, -1), bound(parsed.to, today, 1)];
  }

  /** The points of `type` the filter selects, newest first ([L]: descending interval start). */
  function select(type: string, user: GoogleHealthUser, parsed: ParsedFilter): Point[] {
    const now = ctx.now();
    const today = Math.floor((now + user.offsetMinutes * 60_000) / DAY_MS);
    const [first, last] = daysOf(parsed, today);
    const value = (entry: Point): string | number => {
      switch (parsed.kind) {
        case 'physical-start':
          return entry.atMs;
        case 'physical-end':
          return entry.endMs ?? entry.atMs;
        case 'civil-start':
          return civilTextOf(entry.atMs, user);
        case 'civil-end':
          return civilTextOf(entry.endMs ?? entry.atMs, user);
        default:
          return entry.date;
      }
    };
    const bound = (text: string | null) =>
      text === null
        ? null
        : parsed.kind.startsWith('physical')
          ? Date.parse(text)
          : parsed.kind === 'date'
            ? text
            : civilText(text);
    const from = bound(parsed.from);
    const to = bound(parsed.to);
    const out: Point[] = [];
    for (let day = Math.max(first, today - ctx.historyDays); day <= Math.min(last, today); day++)
      for (const entry of pointsOf(type, user, day)) {
        const at = value(entry);
        if (from !== null && at < from) continue;
        if (to !== null && at >= to) continue;
        if (entry.atMs > now || ctx.deleted.has(`${type}|${entry.atMs}`)) continue;
        out.push(entry);
      }
    return out.sort((a, b) => b.atMs - a.atMs);
  }

  /** [L][R] pageSize: default 1440 (25 for exercise and sleep), larger values truncated to the maximum. */
  function pageSizeOf(type: string, text: string | null): number | FakeReply {
    const max = SESSION_PAGE_TYPES.has(type) ? 25 : 10_000;
    if (text === null || text === '' || text === '0') return SESSION_PAGE_TYPES.has(type) ? 25 : 1440;
    const size = Number(text);
    if (!Number.isInteger(size) || size < 0)
      return googleError(400, 'INVALID_ARGUMENT', `Invalid value for pageSize: ${text}`);
    return Math.min(size, max);
  }

  function listed(request: FakeRequest, reconciled: boolean): FakeReply {
    const type = request.params.type ?? '';
    const grant = ctx.grantFor(request, type);
    if (!('account' in grant)) return grant;
    if (type === 'total-calories')
      return googleError(
        400,
        'INVALID_ARGUMENT',
        'List is not supported for data type total-calories, but the following actions are supported: rollup, dailyRollup',
      );
    const family = request.query.get('dataSourceFamily');
    if (
      reconciled &&
      family !== null &&
      !['all-sources', 'google-wearables', 'google-sources'].some(
        (name) => family === `users/me/dataSourceFamilies/${name}`,
      )
    )
      return googleError(
        400,
        'INVALID_ARGUMENT',
        'Invalid data source family.',
        'INVALID_DATA_POINT_DATA_SOURCE_FAMILY',
      );
    const pageSize = pageSizeOf(type, request.query.get('pageSize'));
    if (typeof pageSize !== 'number') return pageSize;
    const filter = request.query.get('filter') ?? '';
    const parsed = parseFilter(type, filter);
    if (isReply(parsed)) return parsed;
    let found = select(type, ctx.userOf(grant.account), parsed);
    // [R] one stream: what the phone counted while the watch counted too is the watch's alone.
    if (reconciled) found = found.filter((entry) => entry.source !== 'phone');
    const page = pageOf(
      found,
      pageSize,
      request.query.get('pageToken') || null,
      `${type}|${reconciled}|${filter}|${pageSize}`,
    );
    if (!page) return googleError(400, 'INVALID_ARGUMENT', 'Invalid page token');
    const shape = (entry: Point) => {
      if (!reconciled) return entry.point;
      const { name, dataSource: _source, ...data } = entry.point;
      return { dataPointName: name, ...data };
    };
    return {
      status: 200,
      body: { dataPoints: page.page.map(shape), ...(page.next ? { nextPageToken: page.next } : {}) },
    };
  }

  function dailyRollUp(request: FakeRequest): FakeReply {
    const type = request.params.type ?? '';
    const grant = ctx.grantFor(request, type);
    if (!('account' in grant)) return grant;
    const rollup = ROLLUPS[type];
    if (!rollup) return unknownDataType(type);
    let body: {
      range?: { start?: Record<string, unknown>; end?: Record<string, unknown> };
      windowSizeDays?: unknown;
      pageSize?: unknown;
      pageToken?: unknown;
    };
    try {
      body = JSON.parse(request.body || '{}') as typeof body;
    } catch {
      return googleError(400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.');
    }
    if (body.pageSize !== undefined)
      return googleError(400, 'INVALID_ARGUMENT', 'Invalid argument in request');
    const start = body.range?.start;
    const end = body.range?.end;
    if (!start || !end) return googleError(400, 'INVALID_ARGUMENT', 'range is required.');
    for (const [side, civil] of [
      ['start', start],
      ['end', end],
    ] as const)
      for (const stray of ['year', 'month', 'day'])
        if (stray in civil)
          return googleError(
            400,
            'INVALID_ARGUMENT',
            `Invalid JSON payload received. Unknown name "${stray}" at 'range.${side}'.`,
          );
    const dateOf = (civil: Record<string, unknown>) => {
      const date = civil.date as { year?: number; month?: number; day?: number } | undefined;
      const time = (civil.time ?? {}) as { hours?: number; minutes?: number; seconds?: number };
      if (!date?.year || !date.month || !date.day) return null;
      if ((time.hours ?? 0) !== 0 || (time.minutes ?? 0) !== 0 || (time.seconds ?? 0) !== 0) return null;
      return Math.floor(Date.UTC(date.year, date.month - 1, date.day) / DAY_MS);
    };
    const first = dateOf(start);
    const endDay = dateOf(end);
    const windowDays = body.windowSizeDays ?? 1;
    if (first === null || endDay === null || !Number.isInteger(windowDays) || (windowDays as number) < 1)
      return googleError(
        400,
        'INVALID_ARGUMENT',
        'The range must start and end on whole days aligned with the window.',
      );
    const maxDays = ROLLUP_FOURTEEN_DAYS.has(type) ? 14 : 90;
    if (endDay <= first || endDay - first > maxDays)
      return googleError(400, 'INVALID_ARGUMENT', `The maximum range for ${type} is ${maxDays} days.`);
    const user = ctx.userOf(grant.account);
    const now = ctx.now();
    const today = Math.floor((now + user.offsetMinutes * 60_000) / DAY_MS);
    const source = ROLLUP_SOURCE[type] ?? type;
    const civil = (day: number) => {
      const [year, month, date] = isoDay(day).split('-').map(Number);
      return { date: { year, month, day: date }, time: { hours: 0, minutes: 0, seconds: 0 } };
    };
    const rollupDataPoints: unknown[] = [];
    for (let from = first; from < endDay; from += windowDays as number) {
      const points: Point[] = [];
      for (let day = from; day < Math.min(from + (windowDays as number), endDay); day++) {
        if (day > today || day < today - ctx.historyDays) continue;
        for (const entry of pointsOf(source, user, day))
          if (entry.source !== 'phone' && entry.atMs <= now && !ctx.deleted.has(`${source}|${entry.atMs}`))
            points.push(entry);
      }
      if (points.length === 0) continue;
      rollupDataPoints.push({
        civilStartTime: civil(from),
        civilEndTime: civil(from + (windowDays as number)),
        ...(rollup(points, user, from) as object),
      });
    }
    return { status: 200, body: { rollupDataPoints } };
  }

  return [
    {
      method: 'GET',
      path: '/v4/users/me/dataTypes/:type/dataPoints',
      handler: (request) => listed(request, false),
    },
    {
      method: 'GET',
      path: '/v4/users/me/dataTypes/:type/dataPoints:reconcile',
      handler: (request) => listed(request, true),
    },
    { method: 'POST', path: '/v4/users/me/dataTypes/:type/dataPoints:dailyRollUp', handler: dailyRollUp },
  ];
}
