// The SANDBOX provider's data: generated on demand (generate.ts), seeded with the user id, so
// every user has its own deterministic history and a re-sync yields the very same records.
import { newUuid } from '../../core/ids.ts';
import { type DataTypeName, type DataTypeRecords, dataTypes } from '../../model/index.ts';
import { addDays, dayNumberToIsoDate, MS_PER_DAY, parseDateTime } from '../../model/time.ts';
import type { ArrivedRecords, DataSource } from '../../provider-kit/data-source.ts';
import type * as Generate from './generate.ts';

// The generator and the data model's samples it builds (about 25 modules) load when the sandbox
// is first asked for data, not with the provider registry at every start (issue 42).
let generators: Promise<typeof Generate> | undefined;
const generator = () => (generators ??= import('./generate.ts'));

/** The sandbox user lives in UTC, so local days are UTC days. */
const OFFSET_MINUTES = 0;

/** Day records a real provider would re-send during the day as they fill up. */
const DAY_TYPES = ['daily', 'body', 'nutrition', 'menstruation'] as const;
/** Records that arrive once, when they end (or are taken). */
const EVENT_TYPES = ['activity', 'sleep', 'hormone'] as const;

const today = (now: Date) => dayNumberToIsoDate(Math.floor(now.getTime() / MS_PER_DAY));

function anchorMs<T extends DataTypeName>(type: T, record: DataTypeRecords[T]): number | null {
  // The registry's per-type callbacks take that type's record; TypeScript cannot pair them up here.
  const anchor = dataTypes[type].anchorTime(record as never);
  return anchor ? parseDateTime(anchor) : null;
}

/** When a record becomes known: a workout or night once it ends, a test when it is taken. */
function arrivalMs(type: (typeof EVENT_TYPES)[number], record: DataTypeRecords[typeof type]): number {
  if (type === 'hormone') return parseDateTime((record as DataTypeRecords['hormone']).timestamp);
  const metadata = (record as DataTypeRecords['activity' | 'sleep']).metadata;
  return parseDateTime(metadata.end_time);
}

export const sandboxDataSource: DataSource = {
  async *fetch({ user, type, startDate, endDate, runtime }) {
    const now = runtime.clock.now();
    const { generateAthlete, generateDays } = await generator();
    if (type === 'athlete') {
      yield { records: [generateAthlete(user.id, today(now), OFFSET_MINUTES)] };
      return;
    }
    // One page per day keeps memory flat however long the range; the generator would happily
    // describe the future too, so records anchored after now are held back until they happen.
    for (const day of generateDays(type, {
      seed: user.id,
      startDate,
      endDate,
      withSamples: true,
      timezoneOffsetMinutes: OFFSET_MINUTES,
    })) {
      const records = day.records.filter((record) => (anchorMs(type, record) ?? 0) <= now.getTime());
      if (records.length > 0) yield { records };
    }
  },

  async writePlannedWorkouts({ workouts }) {
    // The sandbox "provider" accepts every workout and names it; Tributary's store keeps it.
    return workouts.map(() => newUuid());
  },

  async deletePlannedWorkouts({ ids }) {
    return ids.map((id) => ({ id, deleted: true }));
  },

  async arrivals({ user, since, until }) {
    const { generateDay, generateDays } = await generator();
    const result: ArrivedRecords[] = [];
    const lastDay = today(until);
    // Start a day early: last night's sleep is anchored on the evening it began.
    const firstDay = addDays(today(since), -1);
    const days = { seed: user.id, startDate: firstDay, endDate: addDays(lastDay, 1), withSamples: true };
    for (const type of EVENT_TYPES) {
      const records = [];
      for (const day of generateDays(type, days)) {
        for (const record of day.records) {
          const at = arrivalMs(type, record);
          if (at > since.getTime() && at <= until.getTime()) records.push(record);
        }
      }
      if (records.length > 0) result.push({ type, records });
    }
    for (const type of DAY_TYPES) {
      const records = generateDay(type, { seed: user.id, date: lastDay, withSamples: true });
      if (records.length > 0) result.push({ type, records });
    }
    return result;
  },
};
