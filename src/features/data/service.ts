// The data service: reads (budget, sync, answer in the response or to the webhook), ingestion
// of records providers push, and the jobs behind them. Routes stay thin; this decides.
import { newUuid } from '../../core/ids.ts';
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { Config } from '../../core/config.ts';
import type { Clock } from '../../core/clock.ts';
import type { SecretBox } from '../../core/secret-box.ts';
import { invalidParameter, upstreamUnavailable } from '../../core/errors.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { DataTypeName } from '../../model/index.ts';
import { legacyPlannedWorkout } from '../../model/planned-workout-current.ts';
import { type DataPage, type DataSourceContext, ProviderDataError } from '../../provider-kit/data-source.ts';
import type { ProviderCatalog } from '../../provider-access/catalog.ts';
import type { ProviderDataType } from '../../provider-kit/types.ts';
import type { Db } from '../../store/db.ts';
import type { Developer } from '../developers/service.ts';
import {
  findConnectionForDeveloper,
  findConnectionWith,
  toWireUser,
  type ConnectionRow,
  type WireUser,
} from '../connections/service.ts';
import { isLargeRequestRange } from './chunking.ts';
import { createDeliverer, DELIVER_QUEUE, type DeliverJob } from './deliver.ts';
import type { JsonObject } from './events.ts';
import {
  type DataWindow,
  filterOf,
  parseAthleteParams,
  parseReadParams,
  type RawReadQuery,
  type ReadParams,
} from './params.ts';
import { createPlannedWorkoutView, type DayRange } from './planned-workout-view.ts';
import {
  bucketStartOf,
  bucketUsed,
  budgetHeaders,
  busiestBuckets,
  costOf,
  enforceReadBudget,
  findChargeAndPage,
  findConnectionAndCharge,
  HEADER_REMAINING,
  hourlyLimitOf,
  pruneBuckets,
  r2Rejection,
  secondsToNextHour,
  violatesR1,
} from './rate-limit.ts';
import { ATHLETE_KEY } from './records.ts';
import { createReadRouting } from './read-routing.ts';
import * as coverageRepo from './coverage-repo.ts';
import * as rawPayloadsRepo from './raw-payloads-repo.ts';
import * as repo from './repo.ts';
import * as rewrites from './record-rewrites.ts';
import { envelopeBody, envelopeFromFirstPage, pageLimit, type RangeQuery } from './stream.ts';
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
import { type Keyset, type PageOfText, type PageTextInput, pageInput } from './repo.ts';
import type { RecordFilter } from './params.ts';
import type { DataWebhooks } from './webhook-emit.ts';
import { createRefusals } from './refusals.ts';

export const DATA_SENT_MESSAGE = 'Data sent to webhook';
const JSON_TYPE = 'application/json; charset=utf-8';
export const LARGE_REQUEST_MESSAGE =
  'Large request submitted. The data is being processed and will be sent to your destination in chunks';

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

/** `v2` answers `{user, data, type}` and defaults to the webhook; `v3` answers `{connection, data, type}`. */
export type ApiVersion = 'v2' | 'v3';

export type ReadResult = {
  status: number;
  headers: Record<string, string>;
  /** An object to serialize, or JSON text already serialized (a string or a stream of it). */
  body: Readable | string | object;
};

/** The v3 `Connection` object (docs/wire-contract.md#the-connection-object), built from the user. */
export function toConnection(user: ConnectionRow) {
  const wire = toWireUser(user);
  return {
    id: user.id,
    reference_id: user.reference_id,
    created_at: wire.created_at,
    provider: user.provider,
    last_polled_at: user.last_polled_at?.toISOString() ?? null,
    last_updated_at: wire.last_webhook_update,
    most_recent_data_at: user.most_recent_data_at?.toISOString() ?? null,
    scopes: user.scopes ? user.scopes.split(',').filter((scope) => scope !== '') : [],
  };
}

/** The local days a window covers, for date-anchored records such as planned workouts. */
export function daysOfWindow(window: DataWindow): DayRange {
  return { fromDay: window.syncStartDay, toDay: window.syncEndDay };
}

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

  /** Runs a sync; a provider failure becomes a 503 the client can retry, never a 500. */
  async function syncOrUnavailable(task: () => Promise<void>, headers: Record<string, string>) {
    try {
      await task();
    } catch (error) {
      if (!(error instanceof ProviderDataError)) throw error;
      log.warn({ err: error }, 'provider fetch failed during a read');
      const detail =
        error.kind === 'unauthorized'
          ? 'the provider refused this user’s credentials; the user may need to reconnect'
          : 'the provider is not answering right now; retry later';
      throw upstreamUnavailable(detail, {
        headers: { ...headers, 'Retry-After': String(error.retryAfterSeconds ?? 60) },
      });
    }
  }

  /**
   * Finds the user and applies the budget: everything a read does before its answer. A read the
   * budget can accept is found and charged in one statement; one that r1 or the limit refuses
   * whatever the bucket holds is looked up alone and refused by `enforceReadBudget`.
   */
  async function admit(
    developer: Developer,
    userId: string,
    params: ReadParams,
    firstPage?: PageTextInput,
  ): Promise<{ user: ConnectionRow; headers: Record<string, string>; page?: PageOfText }> {
    const window = params.window;
    const windowMs = window ? window.endMs - window.startMs : null;
    const limit = hourlyLimitOf(developer);
    const now = clock.now();
    const cost = costOf(windowMs);
    const chargeable = !(windowMs !== null && violatesR1(windowMs)) && cost <= limit;
    const bucketStart = bucketStartOf(now);
    const found: ConnectionRow & { charged_used: number | null; page?: PageOfText } = !chargeable
      ? { ...(await findConnectionForDeveloper(db, developer.id, userId)), charged_used: null }
      : firstPage && !params.toWebhook
        ? await findConnectionWith(developer.id, userId, (ids) =>
            findChargeAndPage(db, ids, { bucketStart, cost, limit }, { ...firstPage, userId: ids.userId }),
          )
        : await findConnectionWith(developer.id, userId, (ids) =>
            findConnectionAndCharge(db, ids, {
              bucketStart,
              cost,
              limit,
              requireActive: params.toWebhook,
            }),
          );
    const { charged_used: used, page, ...user } = found;
    // Pending users have no data and are not budgeted: a 400 that says why (see OpenAPI).
    if (user.status === 'pending') {
      throw invalidParameter(
        'user_id',
        `user ${user.id} has not completed authentication yet, so it has no data`,
      );
    }
    if (params.toWebhook && !user.active) {
      throw invalidParameter(
        'to_webhook',
        `user ${user.id} is inactive and receives no webhooks; read with to_webhook=false or set active=true`,
      );
    }
    if (!chargeable) {
      const headers = await enforceReadBudget(db, { userId: user.id, windowMs, limit, now });
      return { user, headers };
    }
    const resetAfterSeconds = secondsToNextHour(now);
    if (used === null) {
      // Chargeable, yet nothing was charged: r2 refused (the bucket would overflow).
      const state = { limit, used: await bucketUsed(db, user.id, bucketStart), resetAfterSeconds };
      throw r2Rejection(user.id, cost, state);
    }
    return { user, headers: budgetHeaders({ limit, used, resetAfterSeconds }), ...(page ? { page } : {}) };
  }

  async function acknowledge(
    developer: Developer,
    user: ConnectionRow,
    type: ProviderDataType,
    params: ReadParams,
    version: ApiVersion,
    headers: Record<string, string>,
  ): Promise<ReadResult> {
    const reference = newUuid();
    const window = params.window;
    const job: DeliverJob = {
      developerId: developer.id,
      userId: user.id,
      type,
      reference,
      withSamples: params.withSamples,
      ...(window ? { start: window.start, end: window.end } : {}),
    };
    await deps.jobs.send(DELIVER_QUEUE, job);
    const large = window !== null && isLargeRequestRange(new Date(window.startMs), new Date(window.endMs));
    const owner = version === 'v3' ? { connection: toConnection(user) } : { user: toWireUser(user) };
    return {
      status: 200,
      headers: { ...headers, 'service-reference': reference },
      body: {
        status: 'success',
        type,
        reference,
        trace_id: reference,
        message: large ? LARGE_REQUEST_MESSAGE : DATA_SENT_MESSAGE,
        ...owner,
      },
    };
  }

  async function read(
    developer: Developer,
    input: { type: DataTypeName; userId: string; query: RawReadQuery; version: ApiVersion },
  ): Promise<ReadResult> {
    const params = parseReadParams(input.type, input.query, clock.now(), {
      toWebhook: input.version === 'v2',
    });
    const tail = `"type":${JSON.stringify(input.type)}`;
    const quick = quickFirstPage(input.type, input.userId, params, tail);
    const { user, headers, page } = await admit(developer, input.userId, params, quick?.page);
    if (params.toWebhook) return acknowledge(developer, user, input.type, params, input.version, headers);
    const window = params.window as DataWindow;
    const owner =
      input.version === 'v3'
        ? `"connection":${JSON.stringify(toConnection(user))}`
        : `"user":${JSON.stringify(toWireUser(user))}`;
    if (quick && page) {
      const body = envelopeFromFirstPage(db, quick.range, { head: owner, tail }, page);
      return { status: 200, headers: { ...headers, 'content-type': JSON_TYPE }, body };
    }
    await syncOrUnavailable(
      () => sync.syncDays(user, input.type, window.syncStartDay, window.syncEndDay),
      headers,
    );
    if (input.type === 'plannedWorkout') {
      // Small and assembled from two stores: answered whole rather than streamed. The v2 path is
      // the older contract's alias and answers its shape; v3 answers the current wire object.
      const listed = await plannedWorkouts.list(user.id, daysOfWindow(window));
      const data = input.version === 'v3' ? listed : listed.map(legacyPlannedWorkout);
      const owner = input.version === 'v3' ? { connection: toConnection(user) } : { user: toWireUser(user) };
      return { status: 200, headers, body: { ...owner, data, type: input.type } };
    }
    // After the sync: the replica only when it already shows every day of the window settled.
    const readDb = await routing.dbFor(user.id, input.type, window.syncStartDay, window.syncEndDay);
    const body = await envelopeBody(
      readDb,
      { userId: user.id, type: input.type, filter: filterOf(window), withSamples: params.withSamples },
      { head: owner, tail },
    );
    return { status: 200, headers: { ...headers, 'content-type': JSON_TYPE }, body };
  }

  /**
   * A read of summaries into the response whose days this process knows to be settled and in
   * (nothing to sync) and that no replica answers (the statement writes the budget) reads its
   * first page in the statement that finds and charges the connection: one round trip instead of
   * two. The page's text comes without the envelope's head (it names the connection, not yet
   * read) and with its tail when it is the range's last. Undefined when the read does not qualify.
   */
  function quickFirstPage(
    type: DataTypeName,
    userId: string,
    params: ReadParams,
    tail: string,
  ): { range: RangeQuery; page: PageTextInput } | undefined {
    const window = params.window;
    if (params.toWebhook || params.withSamples || !window || type === 'plannedWorkout') return undefined;
    if (deps.readDb && deps.readDb !== db) return undefined;
    if (!sync.knownSettled(userId, type, window.syncStartDay, window.syncEndDay)) return undefined;
    const range: RangeQuery = { userId, type, filter: filterOf(window), withSamples: false };
    const page = {
      ...pageInput({ userId, type, filter: range.filter, limit: pageLimit(range) }, null, null),
      lead: '',
      separator: '',
      tail: `],${tail}}`,
    };
    return { range, page };
  }

  async function readAthlete(
    developer: Developer,
    input: { userId: string; query: { to_webhook?: string } },
  ): Promise<ReadResult> {
    const params = parseAthleteParams(input.query);
    const { user, headers } = await admit(developer, input.userId, params);
    if (params.toWebhook) return acknowledge(developer, user, 'athlete', params, 'v2', headers);
    await syncOrUnavailable(() => sync.syncAthlete(user), headers);
    const stored = await repo.recordsByKeys(db, {
      userId: user.id,
      type: 'athlete',
      keys: [ATHLETE_KEY],
      withSamples: false,
    });
    const athlete = stored[0] ? (JSON.parse(stored[0].summary) as JsonObject) : null;
    return { status: 200, headers, body: { athlete, user: toWireUser(user), type: 'athlete' } };
  }

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

  /**
   * Admits a read of several connections at once (the merged view of a person): the parameters
   * parsed once, each connection found and charged as its own read would be. Returns the
   * connections in the order given and the budget headers of the one with the least left.
   */
  async function admitAll(
    developer: Developer,
    input: { type: DataTypeName; userIds: readonly string[]; query: RawReadQuery },
  ): Promise<{ params: ReadParams; users: ConnectionRow[]; headers: Record<string, string> }> {
    const params = parseReadParams(input.type, input.query, clock.now(), { toWebhook: false });
    const users: ConnectionRow[] = [];
    let headers: Record<string, string> = {};
    for (const userId of input.userIds) {
      const admitted = await admit(developer, userId, params);
      users.push(admitted.user);
      const remaining = (set: Record<string, string>) => Number(set[HEADER_REMAINING] ?? Infinity);
      if (remaining(admitted.headers) <= remaining(headers)) headers = admitted.headers;
    }
    return { params, users, headers };
  }

  /** Brings a connection's days of a window in, as a read does before it answers (a 503 when the provider fails). */
  async function syncWindow(user: ConnectionRow, type: DataTypeName, window: DataWindow): Promise<void> {
    await syncOrUnavailable(() => sync.syncDays(user, type, window.syncStartDay, window.syncEndDay), {});
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
    read,
    readAthlete,
    /** This hour's read budget of the developer's busiest users, and the per-user limit. */
    async budgetUse(developer: Developer, limit = 5) {
      return {
        limit: hourlyLimitOf(developer),
        users: await busiestBuckets(db, developer.id, clock.now(), limit),
      };
    },
    write,
    ingest,
    intakeChanged,
    removeDeleted,
    /** Companion kinds the connection's provider refused (4xx on their path), skipped by every fetch. */
    unreadableCompanions: (userId: string) => coverageRepo.unreadableCompanions(db, userId),
    admitAll,
    syncWindow,
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
