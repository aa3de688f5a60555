// Rebuilding a user's unified records from their mobile samples, one batch of local days at a time.
// Days to rebuild are rows (mobile_dirty_days) written with the samples that changed them, so a
// crash between storing samples and rebuilding loses nothing: the next run finds the days.
import type { Logger } from 'pino';
import type { MobileSample } from '../../provider-kit/mobile/samples.ts';
import { type Db, liftStatementDeadline } from '../../store/db.ts';
import type { DataService, DayScope } from '../data/service.ts';
import * as connectionsRepo from '../connections/repo.ts';
import type { ConnectionRow } from '../connections/service.ts';
import type { ImportedDays } from './imported-days.ts';
import * as dirtyDaysRepo from './dirty-days-repo.ts';
import { type RunSamples, runSamplesOf } from './run-samples.ts';
import * as samplesRepo from './samples-repo.ts';
import { buildActivity, buildDayRecords, buildSleeps, neighbourDays, SLEEP_KEY_PREFIX } from './unify.ts';

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
  data: Pick<DataService, 'write' | 'prepareWrites'>;
};

const BUILT_TYPES = ['daily', 'body', 'nutrition', 'menstruation', 'sleep', 'activity'] as const;

/**
 * Readies what a rebuild's first write compiles (every type it writes), for a caller that waits
 * meanwhile: an import, while its reader reads the file.
 */
export const prepareRebuild = (deps: RebuildDeps): Promise<void> => deps.data.prepareWrites(BUILT_TYPES);
type BuiltType = (typeof BUILT_TYPES)[number];
/** What a batch of days makes, per type: the records, and the stored days they replace. */
type Built = Record<BuiltType, { records: unknown[]; replace: DayScope[] }>;

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
 * A day's heart-rate and distance samples, each kind sorted by start (stable: samples starting at
 * the same instant keep the order they came in), made once per day's list: a day may hold many
 * workouts, and filtering the whole day for each of them made the rebuild quadratic in a day's size.
 */
const sortedByKind = new WeakMap<readonly MobileSample[], MobileSample[][]>();
function kindsSorted(samples: readonly MobileSample[]): MobileSample[][] {
  let lists = sortedByKind.get(samples);
  if (!lists) {
    lists = WORKOUT_KINDS.map((kind) =>
      samples.filter((sample) => sample.kind === kind).sort((a, b) => a.startMs - b.startMs),
    );
    sortedByKind.set(samples, lists);
  }
  return lists;
}

/** How many of `sorted` start before `ms` (or at it, with `inclusive`). */
function startingBefore(sorted: readonly MobileSample[], ms: number, inclusive: boolean): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    const start = sorted[mid]!.startMs;
    if (start < ms || (inclusive && start === ms)) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * The heart-rate and distance samples starting within [startMs, endMs], each kind in the order it
 * came (stable sorts: samples starting at the same instant keep the run's order, day by day), from
 * the days of the run whose samples start within it: a workout's own day, mostly. `samplesOf`
 * gives a day's samples.
 */
function samplesDuring(
  run: RunSamples,
  samplesOf: (day: string) => MobileSample[],
  startMs: number,
  endMs: number,
): MobileSample[] {
  const byKind: MobileSample[][] = WORKOUT_KINDS.map(() => []);
  for (const day of run.days) {
    const starts = run.startsOf(day);
    if (!starts || starts.max < startMs || starts.min > endMs) continue;
    kindsSorted(samplesOf(day)).forEach((sorted, kind) => {
      const end = startingBefore(sorted, endMs, true);
      for (let index = startingBefore(sorted, startMs, false); index < end; index++)
        byKind[kind]!.push(sorted[index]!);
    });
  }
  // Days come in order, each sorted: one more stable sort puts a workout crossing midnight in order.
  return byKind.flatMap((samples) => samples.sort((a, b) => a.startMs - b.startMs));
}

/**
 * Everything a run of local days' samples make, and the stored days they replace: one read of the
 * samples (with the day before and after, for workouts crossing midnight), whatever the number of
 * days, each day's parsed when its records are built (run-samples.ts). The stored records of those
 * days the samples no longer make are removed by the write's one diff (data intake), not here.
 */
async function rebuildRun(
  trx: Db,
  user: ConnectionRow,
  days: readonly string[],
  built: Built,
  memory: ImportedDays | undefined,
) {
  const [before] = neighbourDays(days[0]!);
  const [, after] = neighbourDays(days.at(-1)!);
  const run = memory
    ? await memory.runSamples(trx, user.id, before, after)
    : runSamplesOf(await samplesRepo.samplesByDay(trx, user.id, { from: before, to: after }));
  // Later days a workout reached into, parsed then and kept for their own turn.
  const ahead = new Map<string, MobileSample[]>();
  for (const day of days) {
    const onDay = ahead.get(day) ?? run.samplesOf(day);
    ahead.delete(day);
    const samplesOf = (other: string) => {
      if (other === day) return onDay;
      let samples = ahead.get(other);
      if (!samples) {
        samples = run.samplesOf(other);
        if (other > day) ahead.set(other, samples);
      }
      return samples;
    };
    const records = buildDayRecords(day, onDay);
    for (const type of ['daily', 'body', 'nutrition', 'menstruation'] as const) {
      const record = records[type];
      if (record) built[type].records.push(record);
    }
    for (const sleep of buildSleeps(day, onDay)) built.sleep.records.push(sleep);
    for (const workout of onDay) {
      if (!workout.workout) continue;
      built.activity.records.push(
        buildActivity(workout, samplesDuring(run, samplesOf, workout.startMs, workout.endMs)),
      );
    }
  }

  // What the days had before and no longer have (deleted samples, a changed offset) goes.
  const rebuilt = new Set(days);
  for (const type of ['daily', 'body', 'nutrition', 'menstruation', 'activity'] as const)
    built[type].replace.push({
      fromDay: days[0]!,
      toDay: nextDay(days.at(-1)!),
      owns: (row) => rebuilt.has(row.day),
    });
  // A sleep day's sessions start the evening before (or on the day); keys name the sleep day.
  built.sleep.replace.push({
    fromDay: before,
    toDay: after,
    owns: (row) =>
      row.key.startsWith(SLEEP_KEY_PREFIX) &&
      rebuilt.has(row.key.slice(SLEEP_KEY_PREFIX.length, SLEEP_KEY_PREFIX.length + 10)),
  });
}

/**
 * Rebuilds every dirty day of a user and sends what changed to the developer as data events
 * (one per type per batch of days), each batch one write of every type (data intake), so its
 * events carry the scores all of them make. Returns how many days were rebuilt.
 */
export async function settleDirtyDays(
  deps: RebuildDeps,
  userId: string,
  options: SettleOptions = {},
): Promise<number> {
  let total = 0;
  for (;;) {
    const done = await deps.db.transaction().execute(async (trx) => {
      // A batch of days, and its wait behind another job of the user: longer than a request's statement.
      await liftStatementDeadline(trx);
      // Two jobs of one user (an upload and an import) rebuild one at a time.
      if (!(await connectionsRepo.lockConnection(trx, userId))) return 0;
      const user = await connectionsRepo.findConnectionById(trx, userId);
      if (!user) return 0;
      const days = await dirtyDaysRepo.dirtyDays(trx, userId, options.daysPerBatch ?? DAYS_PER_BATCH);
      if (days.length === 0) return 0;
      const built = Object.fromEntries(
        BUILT_TYPES.map((type) => [type, { records: [], replace: [] }]),
      ) as unknown as Built;
      for (const run of runsOf(days.map((mark) => mark.day)))
        await rebuildRun(trx, user, run, built, options.memory);
      // Removals are not announced: the days' records are sent again whole.
      const outcome = await deps.data.write(
        trx,
        user,
        BUILT_TYPES.map((type) => ({ type, ...built[type] })),
        { announceRemovals: false },
      );
      for (const batch of outcome.batches)
        if (batch.invalid > 0)
          deps.log.warn(
            { userId, type: batch.type, invalid: batch.invalid },
            'mobile records failed validation',
          );
      await dirtyDaysRepo.clearDirty(trx, userId, days);
      return days.length;
    });
    if (done === 0) return total;
    total += done;
  }
}
