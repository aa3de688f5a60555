// The data-source hook of a connector: how Tributary reads a provider's data (historical
// backfill), writes planned workouts to it, and (for simulated providers) learns what arrived
// recently. Providers yield records already normalized to the unified model; core code
// validates them against the model schemas before storing anything.
import type { PlannedWorkoutDetails } from '../model/planned-workout.ts';
import type { ProviderDataType, ProviderRuntime } from './basics.ts';
import type { CompanionDay } from './day-companions.ts';
import type { ProviderHttp } from './http.ts';

/** The connection being read, as a provider needs to see it. */
export type DataSourceUser = {
  /** Tributary's user id (a simulated provider seeds its generator with it). */
  id: string;
  providerUserId: string | null;
  scopes: string | null;
};

export type ProviderCredentials = { accessToken: string };

export type DataSourceContext = {
  user: DataSourceUser;
  runtime: ProviderRuntime;
  /** The user's decrypted tokens, read only when called; null when none are stored. */
  credentials(): Promise<ProviderCredentials | null>;
  /**
   * For providers with a real API (`connector.api`): HTTP to the provider with the user's token
   * kept fresh, retries, rate limits and request budgets handled by the connector framework.
   */
  http?: ProviderHttp;
  /** When the fetch answers a notification: what the provider's `locate` made of it (opaque). */
  notified?: unknown;
  /**
   * Companion kinds (the provider's own names) this connection's provider refused before (4xx on
   * their path): the fetch leaves them out and serves the rest.
   */
  unreadable?: ReadonlySet<string>;
  /**
   * Which of these activities (their `metadata.summary_id`) already have their original file kept
   * for this connection (original-files.ts): a connector that fetches each file with a request of
   * its own skips those, so a range synced again costs no request budget for files already had.
   * Absent: none are known.
   */
  originalsKept?(summaryIds: readonly string[]): Promise<ReadonlySet<string>>;
};

export type DataFetchArgs = DataSourceContext & {
  type: ProviderDataType;
  /** First local day, `YYYY-MM-DD`, inclusive. Ignored for `athlete`. */
  startDate: string;
  /** Day after the last, `YYYY-MM-DD`, exclusive. */
  endDate: string;
};

/** One page of a fetch: normalized records, and the provider's payload they came from. */
export type DataPage = {
  records: readonly unknown[];
  raw?: unknown;
  /** Items of the payload that could not be normalized (logged by the sync, then skipped). */
  rejected?: readonly { item: string; problem: string }[];
  /**
   * Companion kinds the provider refused on their own path (a 4xx: not served to this partner or
   * user): recorded for the connection and left out of every later fetch.
   */
  unreadable?: readonly UnreadableKind[];
  /**
   * The provider's original files of activities among `records` (original-files.ts), each named by
   * its record's `metadata.summary_id`; checked and kept by core for the `fit` output format.
   */
  originals?: readonly OriginalFile[];
  /**
   * A day whose records core builds from every summary it keeps of the day (day-companions.ts),
   * for a connector that makes a day's record from summaries its provider notifies separately:
   * core keeps what this page brought, reads the whole day back and has it built, added to
   * `records`, in the day's exclusive section.
   */
  companions?: CompanionDay;
};

/**
 * The provider's original file of one activity (a FIT recording: original-files.ts), named by the
 * activity's `metadata.summary_id`, or why it could not be had.
 */
export type OriginalFile =
  | { summaryId: string; format: 'fit'; bytes: Uint8Array }
  | { summaryId: string; format: 'fit'; problem: string };

/** A companion kind the provider refused, with its answer. */
export type UnreadableKind = { kind: string; status: number; detail: string };

/** Records that came in since the last look (`arrivals`), grouped by type. */
export type ArrivedRecords = { type: ProviderDataType; records: readonly unknown[] };

export type DataSource = {
  /**
   * Every record whose anchor falls on a local day in [startDate, endDate), full (with samples),
   * in pages, so a long range never has to sit in memory. `athlete` yields the profile as the
   * one record. Throw `ProviderDataError` when the provider cannot answer.
   */
  fetch(args: DataFetchArgs): AsyncIterable<DataPage>;
  /** Creates planned workouts at the provider; returns their provider ids, in posted order. */
  writePlannedWorkouts?(
    args: DataSourceContext & { workouts: readonly PlannedWorkoutDetails[] },
  ): Promise<string[]>;
  /**
   * Why planned workouts cannot be written for this user (e.g. a permission the user did not
   * grant), answered to the developer as a 400; null when they can. Absent: always can.
   */
  plannedWorkoutRefusal?(user: DataSourceUser): string | null;
  /** Deletes planned workouts at the provider; one outcome per id, in order. */
  deletePlannedWorkouts?(
    args: DataSourceContext & { ids: readonly string[] },
  ): Promise<{ id: string; deleted: boolean }[]>;
  /**
   * For simulated providers only: records that "arrived" in (since, until], pushed to the
   * developer as if the provider had sent them.
   */
  arrivals?(args: DataSourceContext & { since: Date; until: Date }): Promise<ArrivedRecords[]>;
};

export type ProviderDataErrorKind = 'unavailable' | 'rate_limited' | 'unauthorized';

/** The provider could not answer; `retryAfterSeconds` when it said (or we know) when to retry. */
export class ProviderDataError extends Error {
  override name = 'ProviderDataError';
  readonly kind: ProviderDataErrorKind;
  readonly retryAfterSeconds: number | null;
  /** The HTTP status the provider answered, when it answered one. */
  readonly status: number | null;

  constructor(
    kind: ProviderDataErrorKind,
    message: string,
    options: { retryAfterSeconds?: number; cause?: unknown; status?: number } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.kind = kind;
    this.retryAfterSeconds = options.retryAfterSeconds ?? null;
    this.status = options.status ?? null;
  }
}
