// The API's data reads: find the connection and charge its read budget, bring the window's days
// in from the provider, and answer in the response or queue the delivery to the webhook.
import { newUuid } from '../../core/ids.ts';
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.ts';
import { invalidParameter, upstreamUnavailable } from '../../core/errors.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { DataTypeName } from '../../model/index.ts';
import { legacyPlannedWorkout } from '../../model/planned-workout-current.ts';
import { ProviderDataError } from '../../provider-kit/data-source.ts';
import type { ProviderDataType } from '../../provider-kit/types.ts';
import type { Db } from '../../store/db.ts';
import type { Developer } from '../developers/service.ts';
import {
  findConnectionForDeveloper,
  findConnectionWith,
  toWireUser,
  type ConnectionRow,
} from '../connections/service.ts';
import { isLargeRequestRange } from './chunking.ts';
import { DELIVER_QUEUE, type DeliverJob } from './deliver.ts';
import type { JsonObject } from './events.ts';
import {
  type DataWindow,
  filterOf,
  parseAthleteParams,
  parseReadParams,
  type RawReadQuery,
  type ReadParams,
} from './params.ts';
import type { DayRange } from './planned-workout-view.ts';
import {
  bucketStartOf,
  bucketUsed,
  budgetHeaders,
  costOf,
  enforceReadBudget,
  findChargeAndPage,
  findConnectionAndCharge,
  HEADER_REMAINING,
  hourlyLimitOf,
  r2Rejection,
  secondsToNextHour,
  violatesR1,
} from './rate-limit.ts';
import { ATHLETE_KEY } from './records.ts';
import * as repo from './repo.ts';
import { envelopeBody, envelopeFromFirstPage, pageLimit, type RangeQuery } from './stream.ts';
import { type PageOfText, type PageTextInput, pageInput } from './repo.ts';
import type { ProviderFetch } from './provider-fetch.ts';
import type { ReadRouting } from './read-routing.ts';
import type { PlannedWorkoutView } from './planned-workout-view.ts';

export const DATA_SENT_MESSAGE = 'Data sent to webhook';
const JSON_TYPE = 'application/json; charset=utf-8';
export const LARGE_REQUEST_MESSAGE =
  'Large request submitted. The data is being processed and will be sent to your destination in chunks';

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

export type DataReadsDeps = {
  db: Db;
  jobs: JobQueue;
  clock: Clock;
  log: Logger;
  /** A streaming replica (DATABASE_READ_URL) for reads of settled days; see read-routing.ts. */
  readDb?: Db;
  sync: ProviderFetch;
  routing: ReadRouting;
  plannedWorkouts: PlannedWorkoutView;
};

export function createDataReads(deps: DataReadsDeps) {
  const { db, clock, log, sync, routing, plannedWorkouts } = deps;

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

  return { read, readAthlete, admitAll, syncWindow };
}
