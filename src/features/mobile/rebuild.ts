// Rebuilding a user's unified records from their mobile samples, one batch of local days at a time.
// Days to rebuild are rows (mobile_dirty_days) written with the samples that changed them, so a
// crash between storing samples and rebuilding loses nothing: the next run finds the days.
import type { Logger } from 'pino';
import type { DataTypeName } from '../../model/index.ts';
import type { MobileSample } from '../../provider-kit/mobile/samples.ts';
import type { Db } from '../../store/db.ts';
import type { DataService } from '../data/service.ts';
import * as usersRepo from '../users/repo.ts';
import type { UserRow } from '../users/service.ts';
import * as repo from './repo.ts';
import { buildActivity, buildDayRecords, buildSleeps, localDayOf, neighbourDays, sleepKey } from './unify.ts';

/** Days rebuilt per transaction: bounds the transaction and the data event it sends. */
const DAYS_PER_BATCH = 14;

export type RebuildDeps = {
  db: Db;
  log: Logger;
  data: Pick<DataService, 'ingest' | 'storedKeys' | 'removeRecords'>;
};

type Built = Record<'daily' | 'body' | 'nutrition' | 'menstruation' | 'sleep' | 'activity', unknown[]>;

const nextDay = (day: string) => neighbourDays(day)[1];

/** Everything one local day's samples make, and the stored records of that day they replace. */
async function rebuildDay(deps: RebuildDeps, trx: Db, user: UserRow, day: string, built: Built) {
  const [previous, following] = neighbourDays(day);
  const around = await repo.samplesOnDays(trx, user.id, previous, following);
  const onDay = around.filter((sample) => localDayOf(sample) === day);
  const records = buildDayRecords(day, onDay);
  const sleeps = buildSleeps(day, onDay);
  const activities = onDay
    .filter((sample): sample is MobileSample & { workout: NonNullable<MobileSample['workout']> } =>
      Boolean(sample.workout),
    )
    .map((workout) => buildActivity(workout, around));

  const produced = new Map<DataTypeName, Set<string>>();
  const keep = (type: DataTypeName, key: string) => {
    const set = produced.get(type) ?? new Set<string>();
    set.add(key);
    produced.set(type, set);
  };
  for (const type of ['daily', 'body', 'nutrition', 'menstruation'] as const) {
    const record = records[type];
    if (!record) continue;
    built[type].push(record);
    keep(type, `${record.metadata.start_time}|${record.metadata.end_time}`);
  }
  for (const sleep of sleeps) {
    built.sleep.push(sleep);
    keep('sleep', sleep.metadata.summary_id!);
  }
  for (const activity of activities) {
    built.activity.push(activity);
    keep('activity', activity.metadata.summary_id);
  }

  // What the day had before and no longer has (deleted samples, a changed offset) goes.
  for (const type of ['daily', 'body', 'nutrition', 'menstruation', 'activity'] as const) {
    const stored = await deps.data.storedKeys(trx, user.id, type, day, nextDay(day));
    const stale = stored.filter((key) => !produced.get(type)?.has(key));
    await deps.data.removeRecords(trx, user.id, type, stale);
  }
  // A sleep day's sessions start the evening before (or on the day); keys name the sleep day.
  const storedSleeps = await deps.data.storedKeys(trx, user.id, 'sleep', previous, following);
  const prefix = sleepKey(day, 0).slice(0, -1);
  const staleSleeps = storedSleeps.filter(
    (key) => key.startsWith(prefix) && !produced.get('sleep')?.has(key),
  );
  await deps.data.removeRecords(trx, user.id, 'sleep', staleSleeps);
}

/**
 * Rebuilds every dirty day of a user and sends what changed to the developer as data events
 * (one per type per batch of days). Returns how many days were rebuilt.
 */
export async function settleDirtyDays(deps: RebuildDeps, userId: string): Promise<number> {
  let total = 0;
  for (;;) {
    const done = await deps.db.transaction().execute(async (trx) => {
      // Two jobs of one user (an upload and an import) rebuild one at a time.
      if (!(await repo.lockUser(trx, userId))) return 0;
      const user = await usersRepo.findUserById(trx, userId);
      if (!user) return 0;
      const days = await repo.dirtyDays(trx, userId, DAYS_PER_BATCH);
      if (days.length === 0) return 0;
      const built: Built = { daily: [], body: [], nutrition: [], menstruation: [], sleep: [], activity: [] };
      for (const mark of days) await rebuildDay(deps, trx, user, mark.day, built);
      for (const [type, records] of Object.entries(built) as [DataTypeName, unknown[]][]) {
        if (records.length === 0) continue;
        const outcome = await deps.data.ingest(trx, user, type, records);
        if (outcome.invalid > 0)
          deps.log.warn({ userId, type, invalid: outcome.invalid }, 'mobile records failed validation');
      }
      await repo.clearDirty(trx, userId, days);
      return days.length;
    });
    if (done === 0) return total;
    total += done;
  }
}
