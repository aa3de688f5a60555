// Rebuilding a user's unified records from their mobile samples, one batch of local days at a time.
// Days to rebuild are rows (mobile_dirty_days) written with the samples that changed them, so a
// crash between storing samples and rebuilding loses nothing: the next run finds the days.
import type { Logger } from 'pino';
import type { DataTypeName } from '../../model/index.ts';
import type { MobileSample } from '../../provider-kit/mobile/samples.ts';
import type { Db } from '../../store/db.ts';
import type { DataService } from '../data/service.ts';
import * as connectionsRepo from '../connections/repo.ts';
import type { ConnectionRow } from '../connections/service.ts';
import type { ImportedDays } from './imported-days.ts';
import * as repo from './repo.ts';
import {
  buildActivity,
  buildDayRecords,
  buildSleeps,
  localDayOf,
  neighbourDays,
  SLEEP_KEY_PREFIX,
} from './unify.ts';

/** Days rebuilt per transaction: bounds the transaction and the data event it sends. */
const DAYS_PER_BATCH = 14;

export type SettleOptions = {
  /** Days per transaction (and per data event of a type); an import's are many, so larger. */
  daysPerBatch?: number;
  /** An import's samples still in memory: the days they fill are not read back from the store. */
  memory?: ImportedDays;
};

export type RebuildDeps = {
  db: Db;
  log: Logger;
  data: Pick<DataService, 'ingest' | 'storedKeys' | 'removeRecords'>;
};

type Built = Record<'daily' | 'body' | 'nutrition' | 'menstruation' | 'sleep' | 'activity', unknown[]>;

const nextDay = (day: string) => neighbourDays(day)[1];
const dayNumber = (day: string) => Date.parse(`${day}T00:00:00Z`) / 86_400_000;
/** Dirty days closer than this are rebuilt from one read of their samples and stored keys. */
const RUN_GAP_DAYS = 3;

/** Sorted days split into runs of nearby days (an import's days are contiguous; an upload's few). */
function runsOf(days: readonly string[]): string[][] {
  const runs: string[][] = [];
  for (const day of [...days].sort()) {
    const run = runs.at(-1);
    if (run && dayNumber(day) - dayNumber(run.at(-1)!) <= RUN_GAP_DAYS) run.push(day);
    else runs.push([day]);
  }
  return runs;
}

/** What a workout takes from the samples around it (unify.ts `buildActivity`). */
const WORKOUT_KINDS = ['heart_rate', 'distance'] as const;

/**
 * The heart-rate and distance samples starting within [startMs, endMs], each kind in the order
 * it came: a run of many days holds tens of thousands of samples, and scanning them all for each
 * of its workouts made the rebuild quadratic in the run's length.
 */
function samplesDuring(around: readonly MobileSample[]) {
  // Stable sorts: samples starting at the same instant keep the order they came in.
  const byKind = WORKOUT_KINDS.map((kind) =>
    around.filter((sample) => sample.kind === kind).sort((a, b) => a.startMs - b.startMs),
  );
  /** How many of `sorted` start before `ms` (or at it, with `inclusive`). */
  const startingBefore = (sorted: readonly MobileSample[], ms: number, inclusive: boolean) => {
    let low = 0;
    let high = sorted.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const start = sorted[mid]!.startMs;
      if (start < ms || (inclusive && start === ms)) low = mid + 1;
      else high = mid;
    }
    return low;
  };
  return (startMs: number, endMs: number): MobileSample[] =>
    byKind.flatMap((sorted) =>
      sorted.slice(startingBefore(sorted, startMs, false), startingBefore(sorted, endMs, true)),
    );
}

/**
 * Everything a run of local days' samples make, and the stored records of those days they replace:
 * one read of the samples (with the day before and after, for workouts crossing midnight) and one
 * of the stored keys per type, whatever the number of days.
 */
async function rebuildRun(
  deps: RebuildDeps,
  trx: Db,
  user: ConnectionRow,
  days: readonly string[],
  built: Built,
  memory: ImportedDays | undefined,
) {
  const [before] = neighbourDays(days[0]!);
  const [, after] = neighbourDays(days.at(-1)!);
  const around = memory
    ? await memory.samplesOnDays(trx, user.id, before, after)
    : await repo.samplesOnDays(trx, user.id, before, after);
  const byDay = new Map<string, MobileSample[]>();
  for (const sample of around) {
    const day = localDayOf(sample);
    const list = byDay.get(day);
    if (list) list.push(sample);
    else byDay.set(day, [sample]);
  }

  const during = samplesDuring(around);
  const produced = new Map<DataTypeName, Set<string>>();
  const keep = (type: DataTypeName, key: string) => {
    const set = produced.get(type) ?? new Set<string>();
    set.add(key);
    produced.set(type, set);
  };
  for (const day of days) {
    const onDay = byDay.get(day) ?? [];
    const records = buildDayRecords(day, onDay);
    for (const type of ['daily', 'body', 'nutrition', 'menstruation'] as const) {
      const record = records[type];
      if (!record) continue;
      built[type].push(record);
      keep(type, `${record.metadata.start_time}|${record.metadata.end_time}`);
    }
    for (const sleep of buildSleeps(day, onDay)) {
      built.sleep.push(sleep);
      keep('sleep', sleep.metadata.summary_id!);
    }
    for (const workout of onDay) {
      if (!workout.workout) continue;
      const activity = buildActivity(workout, during(workout.startMs, workout.endMs));
      built.activity.push(activity);
      keep('activity', activity.metadata.summary_id);
    }
  }

  // What the days had before and no longer have (deleted samples, a changed offset) goes.
  const rebuilt = new Set(days);
  for (const type of ['daily', 'body', 'nutrition', 'menstruation', 'activity'] as const) {
    const stored = await deps.data.storedKeys(trx, user.id, type, days[0]!, nextDay(days.at(-1)!));
    const stale = stored.filter((row) => rebuilt.has(row.day) && !produced.get(type)?.has(row.key));
    await deps.data.removeRecords(
      trx,
      user,
      type,
      stale.map((row) => row.key),
    );
  }
  // A sleep day's sessions start the evening before (or on the day); keys name the sleep day.
  const storedSleeps = await deps.data.storedKeys(trx, user.id, 'sleep', before, after);
  const staleSleeps = storedSleeps.filter((row) => {
    const sleepDay = row.key.startsWith(SLEEP_KEY_PREFIX)
      ? row.key.slice(SLEEP_KEY_PREFIX.length, SLEEP_KEY_PREFIX.length + 10)
      : null;
    return sleepDay !== null && rebuilt.has(sleepDay) && !produced.get('sleep')?.has(row.key);
  });
  await deps.data.removeRecords(
    trx,
    user,
    'sleep',
    staleSleeps.map((row) => row.key),
  );
}

/**
 * Rebuilds every dirty day of a user and sends what changed to the developer as data events
 * (one per type per batch of days). Returns how many days were rebuilt.
 */
export async function settleDirtyDays(
  deps: RebuildDeps,
  userId: string,
  options: SettleOptions = {},
): Promise<number> {
  let total = 0;
  for (;;) {
    const done = await deps.db.transaction().execute(async (trx) => {
      // Two jobs of one user (an upload and an import) rebuild one at a time.
      if (!(await connectionsRepo.lockConnection(trx, userId))) return 0;
      const user = await connectionsRepo.findConnectionById(trx, userId);
      if (!user) return 0;
      const days = await repo.dirtyDays(trx, userId, options.daysPerBatch ?? DAYS_PER_BATCH);
      if (days.length === 0) return 0;
      const built: Built = { daily: [], body: [], nutrition: [], menstruation: [], sleep: [], activity: [] };
      for (const run of runsOf(days.map((mark) => mark.day)))
        await rebuildRun(deps, trx, user, run, built, options.memory);
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
