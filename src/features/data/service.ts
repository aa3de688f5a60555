// The data service: reads (reads.ts: budget, sync, answer in the response or to the webhook),
// ingestion of records providers push, and the jobs behind them. Routes stay thin; this decides.
import type { Logger } from 'pino';
import type { Config } from '../../core/config.ts';
import type { Clock } from '../../core/clock.ts';
import type { SecretBox } from '../../core/secret-box.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { DataTypeName } from '../../model/index.ts';
import type { DataPage, DataSourceContext } from '../../provider-kit/data-source.ts';
import type { ProviderCatalog } from '../../provider-access/catalog.ts';
import type { ProviderDataType } from '../../provider-kit/types.ts';
import type { Db } from '../../store/db.ts';
import type { Developer } from '../developers/service.ts';
import type { ConnectionRow, WireUser } from '../connections/service.ts';
import { createDeliverer } from './deliver.ts';
import { type DataWindow, filterOf } from './params.ts';
import { createPlannedWorkoutView } from './planned-workout-view.ts';
import { busiestBuckets, hourlyLimitOf, pruneBuckets } from './rate-limit.ts';
import { createReadRouting } from './read-routing.ts';
import * as coverageRepo from './coverage-repo.ts';
import * as rawPayloadsRepo from './raw-payloads-repo.ts';
import * as repo from './repo.ts';
import * as rewrites from './record-rewrites.ts';
import { dataSettings } from './settings.ts';
import { createProviderFetch } from './provider-fetch.ts';
import {
  createIntake,
  type DayScope,
  type Enricher,
  type IntakeBatch,
  type IntakeOptions,
  type RecordsChange,
  type RecordsChangedHook,
  type RewrittenRecord,
  type WriteInProgress,
} from './intake.ts';
import {
  storedRecordPage,
  storedRecordsIn,
  type StoredRecordPage,
  type StoredRecordValue,
} from './record-loads.ts';
import type { Keyset } from './repo.ts';
import type { RecordFilter } from './params.ts';
import type { DataWebhooks } from './webhook-emit.ts';
import { createRefusals } from './refusals.ts';
import { compileValidator } from './records.ts';
import { createDataReads } from './reads.ts';

export type DataDeps = {
  db: Db;
  jobs: JobQueue;
  clock: Clock;
  log: Logger;
  config: Config;
  providers: ProviderCatalog;
  secretBox: SecretBox;
  webhooks: DataWebhooks;
  /** The connector framework's view of a user (fresh credentials, provider HTTP client), when wired. */
  connectorContext?: (user: ConnectionRow) => DataSourceContext;
  /** A streaming replica (DATABASE_READ_URL) for reads of settled days; see read-routing.ts. */
  readDb?: Db;
};

/** Every record a store can hold: anchors from 1900 to 2200 (the model's supported dates lie within). */
const ALL_TIME: RecordFilter = {
  fromAt: new Date(Date.UTC(1900, 0, 1)),
  toAt: new Date(Date.UTC(2200, 0, 1)),
  fromDay: null,
  toDay: null,
};

export function createDataService(deps: DataDeps) {
  const { db, clock, log } = deps;
  const retentionDays = deps.config.settings.get(dataSettings).rawRetentionDays;
  // Whoever must know that a connection's days changed (the merged view) registers here; told in
  // the transaction that wrote, so what it queues commits or rolls back with the records.
  const changeHandlers: RecordsChangedHook[] = [];
  // Enrichers (scores) rewrite derived fields of stored records; they run once per write, before
  // its events are built, and events of the types they rewrite carry the rewritten records.
  const enrichers: Enricher[] = [];
  // Records refused on their way in, counted for the operator (http/metrics.ts).
  const refusals = createRefusals();
  // The one write path for records (intake.ts): syncs, pushes, uploads and imports all write here.
  const intake = createIntake({
    clock,
    log,
    refusals,
    webhooks: deps.webhooks,
    rawRetentionDays: retentionDays,
    enrichers,
    changeHandlers,
  });
  const sync = createProviderFetch({
    write: intake.write,
    refusals,
    rawRetentionDays: retentionDays,
    db,
    clock,
    log,
    providers: deps.providers,
    secretBox: deps.secretBox,
    runtime: { config: deps.config, clock, secretBox: deps.secretBox },
    ...(deps.connectorContext ? { connectorContext: deps.connectorContext } : {}),
  });
  const plannedWorkouts = createPlannedWorkoutView(db);
  const routing = createReadRouting({ primary: db, replica: deps.readDb, clock, log });
  const deliverer = createDeliverer({
    db,
    jobs: deps.jobs,
    clock,
    log,
    sync,
    webhooks: deps.webhooks,
    plannedWorkouts,
  });

  const reads = createDataReads({ ...deps, sync, routing, plannedWorkouts });

  /** Removes the records of `type` the provider deleted (by identity) and announces them. */
  const removeDeleted = (user: ConnectionRow, type: ProviderDataType, ids: readonly string[]) =>
    sync.removeDeleted(user, type, ids);

  /**
   * Takes in days a provider said changed (a notification or a poll), fetched again: the same
   * intake as every sync (batches of at most 200 records with their raw payloads, coverage),
   * each batch sent to the developer as a data event in the transaction that stores it. With
   * `replace`, what the provider no longer returns for those days is removed. Returns the
   * records stored.
   */
  const intakeChanged = (
    user: ConnectionRow,
    type: ProviderDataType,
    range: { fromDay: string; toDay: string },
    pages: AsyncIterable<DataPage>,
    options: { replace?: boolean } = {},
  ) => sync.intakeChanged(user, type, range, pages, options);

  /**
   * Writes a connection's records of one or more types in the caller's transaction, through the
   * one write path (intake.ts): validated (invalid ones logged, counted and skipped), the
   * replaced days diffed once, stored, enriched once, and by default sent to the developer as
   * data events built last from what is stored. Everything one transaction writes for a
   * connection goes in one call, so its events carry what the enrichers made of all of it.
   */
  const write = (trx: Db, user: ConnectionRow, batches: readonly IntakeBatch[], options?: IntakeOptions) =>
    intake.write(trx, user, batches, options);

  /**
   * Compiles the validators a write of `types` uses, before that write, one type per turn of the
   * event loop: for a caller that waits on something else meanwhile (an import, while its reader
   * reads), so that its first write does not (issue 44: on a fresh process, TypeBox's compiler,
   * ~310 modules, and six schemas were a quarter of an import's rebuild).
   */
  async function prepareWrites(types: readonly ProviderDataType[]): Promise<void> {
    for (const type of types) {
      await new Promise((resolve) => setImmediate(resolve));
      compileValidator(type);
    }
  }

  /**
   * Stores records of one type a provider pushed: `write` with one batch. With `replaceDays`,
   * what the provider no longer returns for those days is removed (and announced).
   */
  async function ingest(
    trx: Db,
    user: ConnectionRow,
    type: ProviderDataType,
    records: readonly unknown[],
    raw?: unknown,
    options: { emit?: boolean; replaceDays?: { startDate: string; endDate: string } } = {},
  ): Promise<{ stored: number; invalid: number }> {
    const { replaceDays } = options;
    const outcome = await intake.write(
      trx,
      user,
      [
        {
          type,
          records,
          ...(raw === undefined ? {} : { raws: [raw] }),
          ...(replaceDays
            ? { replace: [{ fromDay: replaceDays.startDate, toDay: replaceDays.endDate }] }
            : {}),
        },
      ],
      options.emit === undefined ? {} : { emit: options.emit },
    );
    return { stored: outcome.stored, invalid: outcome.invalid };
  }

  /** A connection's stored records of a type in a window, samples included, parsed (nothing synced). */
  async function recordsOf(
    user: ConnectionRow,
    type: DataTypeName,
    window: DataWindow,
  ): Promise<StoredRecordValue[]> {
    const readDb = await routing.dbFor(user.id, type, window.syncStartDay, window.syncEndDay);
    return storedRecordsIn(readDb, { userId: user.id, type, filter: filterOf(window) });
  }

  /** The local days on which a connection holds records of a type (read in the caller's transaction). */
  const daysWithRecords = (trx: Db, userId: string, type: DataTypeName) =>
    repo.daysWithRecords(trx, userId, type);
  /**
   * Registers an enricher: told once per write of every changed day (in the writing
   * transaction), it may rewrite derived fields of the `rewrites` types through `rewriteRecords`
   * and returns what it rewrote; the write's data events then carry the rewritten records.
   */
  function registerEnricher(enricher: Enricher) {
    enrichers.push(enricher);
  }

  /** Rewrites stored records in place with an enricher's derived fields, unannounced (record-rewrites.ts). */
  const rewriteRecords = (
    trx: Db,
    input: {
      userId: string;
      type: DataTypeName;
      keys: readonly string[];
      days?: { fromDay: string; toDay: string };
    },
    edit: (key: string, record: Record<string, unknown>) => Record<string, unknown>,
  ) => rewrites.rewriteRecords({ clock, log }, trx, input, edit);

  /**
   * One page of a connection's stored records of a type (samples included, parsed) in anchor
   * order after `after`, within `filter` (all time when absent) and written since `since`;
   * nothing synced. For readers that stream a long range and keep their place (FHIR export).
   */
  async function recordPage(
    userId: string,
    type: DataTypeName,
    page: { filter?: RecordFilter; since?: Date; after: Keyset | null; limit: number },
  ): Promise<StoredRecordPage> {
    const filter = page.filter ?? ALL_TIME;
    return storedRecordPage(db, {
      userId,
      type,
      filter,
      after: page.after,
      limit: page.limit,
      ...(page.since ? { since: page.since } : {}),
    });
  }

  /** Registers a handler told of every change to stored records, in the writing transaction. */
  function onRecordsChanged(handler: RecordsChangedHook) {
    changeHandlers.push(handler);
  }

  /** Drops raw payloads past their retention and rate buckets of past hours. */
  async function prune(): Promise<{ rawPayloads: number; buckets: number }> {
    const now = clock.now().getTime();
    const rawPayloads = await rawPayloadsRepo.pruneRawPayloads(
      db,
      new Date(now - Math.max(retentionDays, 0) * 86_400_000),
    );
    const buckets = await pruneBuckets(db, new Date(now - 2 * 3_600_000));
    return { rawPayloads, buckets };
  }

  return {
    read: reads.read,
    readAthlete: reads.readAthlete,
    /** This hour's read budget of the developer's busiest users, and the per-user limit. */
    async budgetUse(developer: Developer, limit = 5) {
      return {
        limit: hourlyLimitOf(developer),
        users: await busiestBuckets(db, developer.id, clock.now(), limit),
      };
    },
    write,
    prepareWrites,
    ingest,
    intakeChanged,
    removeDeleted,
    /** Companion kinds the connection's provider refused (4xx on their path), skipped by every fetch. */
    unreadableCompanions: (userId: string) => coverageRepo.unreadableCompanions(db, userId),
    admitAll: reads.admitAll,
    syncWindow: reads.syncWindow,
    recordsOf,
    daysWithRecords,
    recordPage,
    /** One page of a connection's raw payloads in id order after `afterId` (a data-subject export). */
    rawPayloadPage: (userId: string, afterId: number, limit: number) =>
      rawPayloadsRepo.rawPayloadPage(db, userId, afterId, limit),
    onRecordsChanged,
    registerEnricher,
    summariesOnDays: rewrites.summariesOnDays,
    movedOnDays: rewrites.movedOnDays,
    storedAthlete: rewrites.storedAthlete,
    rewriteRecords,
    prune,
    sync,
    deliverer,
    /** Planned workouts as reads and events show them; the workouts feature registers its own. */
    plannedWorkouts,
    rawRetentionDays: retentionDays,
    refusals,
  };
}

export type DataService = ReturnType<typeof createDataService>;

export type {
  DayScope,
  Enricher,
  IntakeBatch,
  RecordsChange,
  RewrittenRecord,
  StoredRecordPage,
  StoredRecordValue,
  WriteInProgress,
};
export type { Keyset as RecordKeyset } from './repo.ts';
export type { RecordFilter } from './params.ts';
export type { WireUser };
