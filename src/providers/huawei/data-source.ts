// Huawei Health Kit reads (HMSCore-References, REST; docs/providers.md#huawei-health-kit):
// - POST sampleSet:dailyPolymerize `{dataTypes, startDay, endDay, timeZone}` (days `yyyyMMdd`,
//   both inclusive [C]): one group per day with the statistics of each type -> daily;
// - POST sampleSet:polymerize `{polymerizeWith: [{dataTypeName}], startTime, endTime}` (ms, at
//   most 30 days apart): the detail sample points (times in ns) -> body;
// - GET healthRecords?startTime&endTime (ns)&dataType=com.huawei.health.record.sleep -> sleep;
// - GET activityRecords?startTime&endTime (ms, at most 31 days) -> activity.
// Lists that say a `cursor` are asked again with it until none is given [C].
// Day statistics are grouped in UTC (`+0000`): the API has no call that names the user's zone,
// so a day here is a UTC day (activity and sleep records carry their own zone).
// The framework's HTTP client adds the token and handles refreshes, retries, 429s and budgets.
import type { ProviderHttp, TypeFetchArgs, TypeFetcher } from '../../provider-kit/api.ts';
import { normalizeEach } from '../../provider-kit/normalize/errors.ts';
import type { NormalizeContext } from '../../provider-kit/normalize/normalize.ts';
import { dayChunks } from '../../provider-kit/pagination.ts';
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
import { nanosToMs, zoneOf } from './normalize/values.ts';

export { HUAWEI_API } from './api-base.ts';
/** Days one request spans: polymerize takes at most 30 days, the record lists 31. */
export const HUAWEI_CHUNK_DAYS = 30;
/** The offset day statistics are grouped in (see above). */
const DAY_OFFSET_MINUTES = 0;
const MAX_PAGES = 200;

const contextOf = (args: TypeFetchArgs): NormalizeContext => ({
  userOffsetMinutes: null,
  now: args.now.getTime(),
});
const midnightMs = (date: string) => isoDateToDayNumber(date) * MS_PER_DAY - DAY_OFFSET_MINUTES * 60_000;
const compactDay = (date: string) => date.replaceAll('-', '');
const dateAt = (ms: number) =>
  dayNumberToIsoDate(Math.floor((ms + DAY_OFFSET_MINUTES * 60_000) / MS_PER_DAY));

/** A GET list followed through its `cursor`. */
async function* cursorPages<T>(
  http: ProviderHttp,
  url: string,
  query: Record<string, string>,
  key: string,
): AsyncGenerator<T[]> {
  let cursor: string | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const body: Record<string, unknown> | null = await http.json<Record<string, unknown>>({
      url,
      query: cursor ? { ...query, cursor } : query,
    });
    const list = Array.isArray(body?.[key]) ? (body[key] as T[]) : [];
    if (list.length > 0) yield list;
    const next: unknown = body?.cursor;
    if (typeof next !== 'string' || next === '' || next === cursor) return;
    cursor = next;
  }
}

export const huaweiFetchers = {
  async *activity(args) {
    for (const range of dayChunks(args.startDate, args.endDate, HUAWEI_CHUNK_DAYS)) {
      const query = {
        startTime: String(midnightMs(range.startDate)),
        endTime: String(midnightMs(range.endDate) - 1),
      };
      for await (const records of cursorPages<HuaweiActivityRecord>(
        args.http,
        `${HUAWEI_API}/activityRecords`,
        query,
        'activityRecord',
      )) {
        const { records: normalized, rejected } = normalizeEach(
          records,
          (record) => `HUAWEI activity record ${String(record?.id)}`,
          (record) => huaweiNormalizers.activityRecord.normalize(record, contextOf(args)),
        );
        yield { records: normalized, rejected, raw: records };
      }
    }
  },

  async *sleep(args) {
    for (const range of dayChunks(args.startDate, args.endDate, HUAWEI_CHUNK_DAYS)) {
      // A night is filed under the day it ends: ask from the evening before the range.
      const startNs = BigInt(midnightMs(range.startDate) - 12 * 3_600_000) * 1_000_000n;
      const endNs = BigInt(midnightMs(range.endDate) - 1) * 1_000_000n;
      for await (const records of cursorPages<HuaweiHealthRecord>(
        args.http,
        `${HUAWEI_API}/healthRecords`,
        { startTime: String(startNs), endTime: String(endNs), dataType: 'com.huawei.health.record.sleep' },
        'healthRecords',
      )) {
        const inRange = records.filter((record) => {
          const end = nanosToMs(record?.endTime);
          return end === null || (end >= midnightMs(range.startDate) && end < midnightMs(range.endDate));
        });
        const { records: normalized, rejected } = normalizeEach(
          inRange,
          (record) => `HUAWEI sleep record ${String(record?.id)}`,
          (record) => huaweiNormalizers.sleepRecord.normalize(record, contextOf(args)),
        );
        yield { records: normalized, rejected, raw: records };
      }
    }
  },

  async *daily(args) {
    for (const range of dayChunks(args.startDate, args.endDate, HUAWEI_CHUNK_DAYS)) {
      const body = await args.http.json<HuaweiPolymerizeAnswer>({
        url: `${HUAWEI_API}/sampleSet:dailyPolymerize`,
        method: 'POST',
        json: {
          dataTypes: DAILY_TYPES,
          startDay: compactDay(range.startDate),
          endDay: compactDay(addDays(range.endDate, -1)),
          timeZone: zoneOf(DAY_OFFSET_MINUTES),
        },
      });
      const groups = (Array.isArray(body?.group) ? body.group : []).filter(
        (group) => typeof group?.startTime === 'number',
      );
      const days = groups
        .map((group) => ({ date: dateAt(group.startTime!), offsetMinutes: DAY_OFFSET_MINUTES, group }))
        .filter((day) => day.date >= range.startDate && day.date < range.endDate);
      const { records, rejected } = normalizeEach(
        days,
        (day) => `HUAWEI day ${day.date}`,
        (day) => huaweiNormalizers.dailyStatistics.normalize(day, contextOf(args)),
      );
      yield { records, rejected, raw: body };
    }
  },

  async *body(args) {
    for (const range of dayChunks(args.startDate, args.endDate, HUAWEI_CHUNK_DAYS)) {
      const answer = await args.http.json<HuaweiPolymerizeAnswer>({
        url: `${HUAWEI_API}/sampleSet:polymerize`,
        method: 'POST',
        json: {
          polymerizeWith: BODY_TYPES.map((dataTypeName) => ({ dataTypeName })),
          startTime: midnightMs(range.startDate),
          endTime: midnightMs(range.endDate) - 1,
        },
      });
      const points: HuaweiSamplePoint[] = (Array.isArray(answer?.group) ? answer.group : []).flatMap(
        (group) => (group?.sampleSet ?? []).flatMap((set) => set?.samplePoints ?? []),
      );
      const byDay = new Map<string, HuaweiSamplePoint[]>();
      for (const point of points) {
        const at = nanosToMs(point?.startTime);
        if (at === null) continue;
        const date = dateAt(at);
        if (date < range.startDate || date >= range.endDate) continue;
        byDay.set(date, [...(byDay.get(date) ?? []), point]);
      }
      const days = [...byDay].map(([date, dayPoints]) => ({
        date,
        offsetMinutes: DAY_OFFSET_MINUTES,
        points: dayPoints,
      }));
      const { records, rejected } = normalizeEach(
        days,
        (day) => `HUAWEI body ${day.date}`,
        (day) => huaweiNormalizers.bodySamples.normalize(day, contextOf(args)),
      );
      yield { records, rejected, raw: answer };
    }
  },
} satisfies Record<string, TypeFetcher>;
