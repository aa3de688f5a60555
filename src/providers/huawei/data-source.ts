// Huawei Health Kit reads (HMSCore-References, REST; docs/providers.md#huawei-health-kit):
// - POST sampleSet:dailyPolymerize `{dataTypes, startDay, endDay, timeZone}` (days `yyyyMMdd`,
//   both inclusive [C]): one group per day of that zone with the statistics of each type -> daily;
// - POST sampleSet:polymerize `{polymerizeWith: [{dataTypeName}], startTime, endTime}` (ms, at
//   most 30 days apart): the detail sample points (times in ns) -> body;
// - GET healthRecords?startTime&endTime (ns)&dataType=com.huawei.health.record.sleep -> sleep;
// - GET activityRecords?startTime&endTime (ms, at most 31 days) -> activity.
// Lists that say a `cursor` are asked again with it until none is given [C].
// Days are the user's local days. No Health Kit call returns the user's zone, but activity
// records carry the zone they were recorded in (`timeZone`, `+0800`; ActivityRecord.timeZone)
// and dailyPolymerize takes the zone its days are cut in: the zone of the user's latest activity
// record around the range (else of a sleep record that carries one, else UTC) cuts the days of
// daily statistics and body measurements and places sleep records without a zone of their own.
// Activity records are asked a day wider on each side and kept by the local day they start on.
// The framework's HTTP client adds the token and handles refreshes, retries, 429s and budgets.
import type { ProviderHttp, TypeFetchArgs, TypeFetcher } from '../../provider-kit/api.ts';
import { normalizeEach } from '../../provider-kit/normalize/errors.ts';
import type { NormalizeContext } from '../../provider-kit/normalize/normalize.ts';
import { type DayRange, dayChunks } from '../../provider-kit/pagination.ts';
import { addDays, dayNumberToIsoDate, isoDateToDayNumber, MS_PER_DAY } from '../../model/time.ts';
import { HUAWEI_API } from './api-base.ts';
import {
  BODY_TYPES,
  DAILY_TYPES,
  type HuaweiActivityRecord,
  type HuaweiHealthRecord,
  type HuaweiPolymerizeAnswer,
  type HuaweiSamplePoint,
  huaweiNormalizers,
} from './normalize/index.ts';
import { nanosToMs, zoneOf, zoneOffsetMinutes } from './normalize/values.ts';

export { HUAWEI_API } from './api-base.ts';
/**
 * Days one request spans: polymerize takes at most 30 days and the record lists 31, and the
 * activity list is asked a day wider on each side (28 + 2 days).
 */
export const HUAWEI_CHUNK_DAYS = 28;
const MAX_PAGES = 200;

const contextOf = (args: TypeFetchArgs, offsetMinutes: number | null): NormalizeContext => ({
  userOffsetMinutes: offsetMinutes,
  now: args.now.getTime(),
});
/** The instant local `date` begins at `offsetMinutes` east of UTC. */
const midnightMs = (date: string, offsetMinutes: number) =>
  isoDateToDayNumber(date) * MS_PER_DAY - offsetMinutes * 60_000;
const compactDay = (date: string) => date.replaceAll('-', '');
/** The local date an instant falls on at `offsetMinutes`. */
const dateAt = (ms: number, offsetMinutes: number) =>
  dayNumberToIsoDate(Math.floor((ms + offsetMinutes * 60_000) / MS_PER_DAY));

/** A GET list followed through its `cursor`; `absentOn` statuses read as an empty list. */
async function* cursorPages<T>(
  http: ProviderHttp,
  url: string,
  query: Record<string, string>,
  key: string,
  absentOn: number[] = [],
): AsyncGenerator<T[]> {
  let cursor: string | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const body: Record<string, unknown> | null = await http.json<Record<string, unknown>>({
      url,
      query: cursor ? { ...query, cursor } : query,
      ...(absentOn.length > 0 ? { absentOn } : {}),
    });
    const list = Array.isArray(body?.[key]) ? (body[key] as T[]) : [];
    if (list.length > 0) yield list;
    const next: unknown = body?.cursor;
    if (typeof next !== 'string' || next === '' || next === cursor) return;
    cursor = next;
  }
}

/** Activity records starting in a day wider than [startDate, endDate) on each side (UTC bounds). */
function activityPages(http: ProviderHttp, range: DayRange, absentOn: number[] = []) {
  return cursorPages<HuaweiActivityRecord>(
    http,
    `${HUAWEI_API}/activityRecords`,
    {
      startTime: String(midnightMs(addDays(range.startDate, -1), 0)),
      endTime: String(midnightMs(addDays(range.endDate, 1), 0) - 1),
    },
    'activityRecord',
    absentOn,
  );
}

/** Sleep health records ending in [fromMs, toMs]. */
function sleepPages(http: ProviderHttp, fromMs: number, toMs: number, absentOn: number[] = []) {
  return cursorPages<HuaweiHealthRecord>(
    http,
    `${HUAWEI_API}/healthRecords`,
    {
      startTime: String(BigInt(fromMs) * 1_000_000n),
      endTime: String(BigInt(toMs) * 1_000_000n),
      dataType: 'com.huawei.health.record.sleep',
    },
    'healthRecords',
    absentOn,
  );
}

/** The zone of the latest record of `records` that names one, in minutes east of UTC. */
function latestZone(records: readonly { zone: string | undefined; atMs: number | null }[]): number | null {
  let latest: { offset: number; atMs: number } | null = null;
  for (const record of records) {
    const offset = zoneOffsetMinutes(record.zone);
    if (offset === null || record.atMs === null) continue;
    if (!latest || record.atMs > latest.atMs) latest = { offset, atMs: record.atMs };
  }
  return latest?.offset ?? null;
}

/**
 * The zone the user lives in around `range` (see the file comment): their latest activity
 * record's, else a sleep record's, else null (UTC). A list the user's scopes do not cover (403)
 * says nothing.
 */
async function userZone(http: ProviderHttp, range: DayRange): Promise<number | null> {
  const activities: { zone: string | undefined; atMs: number | null }[] = [];
  for await (const records of activityPages(http, range, [403]))
    for (const record of records)
      activities.push({ zone: record?.timeZone, atMs: record?.startTime ?? null });
  const fromActivities = latestZone(activities);
  if (fromActivities !== null) return fromActivities;
  const nights: { zone: string | undefined; atMs: number | null }[] = [];
  const fromMs = midnightMs(range.startDate, 0) - MS_PER_DAY;
  for await (const records of sleepPages(http, fromMs, midnightMs(range.endDate, 0) + MS_PER_DAY, [403]))
    for (const record of records) nights.push({ zone: record?.timeZone, atMs: nanosToMs(record?.endTime) });
  return latestZone(nights);
}

export const huaweiFetchers = {
  async *activity(args) {
    for (const range of dayChunks(args.startDate, args.endDate, HUAWEI_CHUNK_DAYS)) {
      const pages: HuaweiActivityRecord[][] = [];
      for await (const records of activityPages(args.http, range)) pages.push(records);
      // Records without a zone of their own are placed in the user's.
      const zone = latestZone(
        pages.flat().map((record) => ({ zone: record?.timeZone, atMs: record?.startTime ?? null })),
      );
      for (const records of pages) {
        const inRange = records.filter((record) => {
          const start = record?.startTime;
          if (typeof start !== 'number') return true;
          const date = dateAt(start, zoneOffsetMinutes(record.timeZone) ?? zone ?? 0);
          return date >= range.startDate && date < range.endDate;
        });
        const { records: normalized, rejected } = normalizeEach(
          inRange,
          (record) => `HUAWEI activity record ${String(record?.id)}`,
          (record) => huaweiNormalizers.activityRecord.normalize(record, contextOf(args, zone)),
        );
        yield { records: normalized, rejected, raw: records };
      }
    }
  },

  async *sleep(args) {
    for (const range of dayChunks(args.startDate, args.endDate, HUAWEI_CHUNK_DAYS)) {
      const zone = (await userZone(args.http, range)) ?? 0;
      // A night is filed under the day it ends: ask from the evening before the range.
      const fromMs = midnightMs(range.startDate, zone) - 12 * 3_600_000;
      for await (const records of sleepPages(args.http, fromMs, midnightMs(range.endDate, zone) - 1)) {
        const inRange = records.filter((record) => {
          const end = nanosToMs(record?.endTime);
          if (end === null) return true;
          const date = dateAt(end, zoneOffsetMinutes(record.timeZone) ?? zone);
          return date >= range.startDate && date < range.endDate;
        });
        const { records: normalized, rejected } = normalizeEach(
          inRange,
          (record) => `HUAWEI sleep record ${String(record?.healthRecordId ?? record?.id)}`,
          (record) => huaweiNormalizers.sleepRecord.normalize(record, contextOf(args, zone)),
        );
        yield { records: normalized, rejected, raw: records };
      }
    }
  },

  async *daily(args) {
    for (const range of dayChunks(args.startDate, args.endDate, HUAWEI_CHUNK_DAYS)) {
      const zone = (await userZone(args.http, range)) ?? 0;
      const body = await args.http.json<HuaweiPolymerizeAnswer>({
        url: `${HUAWEI_API}/sampleSet:dailyPolymerize`,
        method: 'POST',
        json: {
          dataTypes: DAILY_TYPES,
          startDay: compactDay(range.startDate),
          endDay: compactDay(addDays(range.endDate, -1)),
          timeZone: zoneOf(zone),
        },
      });
      const groups = (Array.isArray(body?.group) ? body.group : []).filter(
        (group) => typeof group?.startTime === 'number',
      );
      const days = groups
        .map((group) => ({ date: dateAt(group.startTime!, zone), offsetMinutes: zone, group }))
        .filter((day) => day.date >= range.startDate && day.date < range.endDate);
      const { records, rejected } = normalizeEach(
        days,
        (day) => `HUAWEI day ${day.date}`,
        (day) => huaweiNormalizers.dailyStatistics.normalize(day, contextOf(args, zone)),
      );
      yield { records, rejected, raw: body };
    }
  },

  async *body(args) {
    for (const range of dayChunks(args.startDate, args.endDate, HUAWEI_CHUNK_DAYS)) {
      const zone = (await userZone(args.http, range)) ?? 0;
      const answer = await args.http.json<HuaweiPolymerizeAnswer>({
        url: `${HUAWEI_API}/sampleSet:polymerize`,
        method: 'POST',
        json: {
          polymerizeWith: BODY_TYPES.map((dataTypeName) => ({ dataTypeName })),
          startTime: midnightMs(range.startDate, zone),
          endTime: midnightMs(range.endDate, zone) - 1,
        },
      });
      const points: HuaweiSamplePoint[] = (Array.isArray(answer?.group) ? answer.group : []).flatMap(
        (group) => (group?.sampleSet ?? []).flatMap((set) => set?.samplePoints ?? []),
      );
      const byDay = new Map<string, HuaweiSamplePoint[]>();
      for (const point of points) {
        const at = nanosToMs(point?.startTime);
        if (at === null) continue;
        const date = dateAt(at, zone);
        if (date < range.startDate || date >= range.endDate) continue;
        byDay.set(date, [...(byDay.get(date) ?? []), point]);
      }
      const days = [...byDay].map(([date, dayPoints]) => ({ date, offsetMinutes: zone, points: dayPoints }));
      const { records, rejected } = normalizeEach(
        days,
        (day) => `HUAWEI body ${day.date}`,
        (day) => huaweiNormalizers.bodySamples.normalize(day, contextOf(args, zone)),
      );
      yield { records, rejected, raw: answer };
    }
  },
} satisfies Record<string, TypeFetcher>;
