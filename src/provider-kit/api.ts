// The connector interface: what a provider with a real API supplies (declared data plus small
// hooks), and what the framework hands its hooks (an HTTP client that already handles tokens,
// retries, rate limits and budgets). Nothing here names a provider.
import type { IncomingHttpHeaders } from 'node:http';
import type { ProviderDataType } from './basics.ts';
import type { DataPage, DataSourceUser } from './data-source.ts';
import type { ProviderHttp, RateLimitSignal, RequestWindow } from './http.ts';

export type { ProviderHttp, ProviderRequest, RateLimitSignal, RequestWindow } from './http.ts';

/** How a provider's API behaves, as data, plus two tiny parsing hooks. */
export type ProviderApi = {
  /** The provider's documented app-wide limits; Tributary spends at most these. */
  requestWindows: readonly RequestWindow[];
  /** The share of each window one user may spend (so a busy user cannot starve the rest). */
  userShare: number;
  /** Days of history fetched after a connection. */
  backfillDays: number;
  /** Days one backfill chunk (one job) covers: what the provider serves in a few requests. */
  backfillChunkDays: number;
  /**
   * Headers every request carries, by header name -> the setting they are read from
   * (`<ID>_<setting>`), e.g. an API gateway's subscription key. A missing setting sends none.
   */
  requestHeaders?: Readonly<Record<string, string>>;
  /** Reads the provider's rate-limit headers on any answer (429 included). */
  rateLimit?(headers: Headers, status: number, now: Date): RateLimitSignal | null;
  /** A 401/403 that is about a missing scope, not a dead token (so no refresh, no breakage). */
  isScopeRefusal?(status: number, body: string): boolean;
  /**
   * The longest span one notification may name, in seconds, as the provider documents it (e.g. an
   * upload window of at most a day). The sync clamps every notification's `span` to it and to the
   * connection's lifetime before anything is fetched, so a forged notification naming years costs
   * no more than a real one.
   */
  notificationSpanSeconds?: number;
  /**
   * For providers whose notifications name the URL to fetch the change from (a callback URL that
   * carries a one-time pull token): the URLs such a callback may be, origin and path exactly, as
   * declared (`<ID>_BASE_URL` applies). The sync drops every other callback before the provider
   * sees it, so nothing is ever fetched from a host or path the provider does not serve, and
   * fetches each callback at most once.
   */
  notificationCallbacks?: readonly string[];
  /**
   * Seconds an unsigned notification's pending refetch waits before it runs, for providers that
   * send one notification per summary type of a single sync: the summary and its companions are
   * then fetched and normalized together rather than one by one.
   */
  notificationGatherSeconds?: number;
  /** Parses answers when plain JSON.parse would lose something (int64 ids). */
  parseJson?(text: string): unknown;
  /**
   * For APIs that answer HTTP 200 with the outcome in the body: the HTTP status the answer
   * stands for and the payload inside it. The client then treats it exactly as that status
   * (401 refreshes once, 429 waits or pauses, 5xx retries).
   */
  unwrap?(parsed: unknown): { status: number; body: unknown };
  /**
   * Revocation at deauthentication when the declarative `oauth.revoke` cannot express it
   * (signed requests). Best effort, like the declarative one.
   */
  revoke?(input: { http: ProviderHttp; user: DataSourceUser }): Promise<void>;
  /**
   * A step the provider requires once after consent, before any data can be read (registering
   * the user with the app). Run as a durable job with the user's token; the backfill is
   * planned when it succeeds. It must be idempotent: a retried job runs it again.
   */
  onConnected?(input: { http: ProviderHttp; user: DataSourceUser; callbackUrl: string }): Promise<void>;
  /**
   * A provider that sends no notifications is asked every `minutes` (operators override with
   * `<ID>_POLL_MINUTES`) where data changed since the last poll; those days are fetched and
   * sent as data events.
   */
  poll?: {
    minutes: number;
    changes(input: { http: ProviderHttp; since: Date; now: Date }): Promise<ChangedData | null>;
  };
};

// --- data ---------------------------------------------------------------------------------

export type TypeFetchArgs = {
  http: ProviderHttp;
  user: DataSourceUser;
  /** First local day, inclusive; `YYYY-MM-DD`. */
  startDate: string;
  /** Day after the last, exclusive. */
  endDate: string;
  now: Date;
  /**
   * When the fetch answers a notification: what the provider's `locate` made of it (checked
   * callback requests, summaries the notification carried). Opaque to the sync.
   */
  notified?: unknown;
  /** Companion kinds refused before for this connection (DataSourceContext.unreadable). */
  unreadable?: ReadonlySet<string>;
  /** Activities whose original file is already kept (DataSourceContext.originalsKept). */
  originalsKept?: (summaryIds: readonly string[]) => Promise<ReadonlySet<string>>;
};

/** Fetches one unified type for a day range, in pages of normalized records. */
export type TypeFetcher = (args: TypeFetchArgs) => AsyncIterable<DataPage>;

// --- push notifications -------------------------------------------------------------------

/** One thing a provider told us: some data of an account changed, or the account withdrew access. */
export type ProviderNotification =
  | {
      kind: 'data';
      providerUserId: string;
      /** The provider's own name for what changed (`sleep`, `activity`, …). */
      dataKind: string;
      objectId: string;
      action: 'create' | 'update' | 'delete';
      /** When it happened, ISO 8601, if the provider says. */
      eventTime: string | null;
      /**
       * The time span the notification names (e.g. an upload window), ISO 8601 instants. The sync
       * clamps it to `api.notificationSpanSeconds` and to the connection's lifetime.
       */
      span?: { start: string; end: string };
      /**
       * URLs the provider named to fetch the change from (with their pull tokens). The sync keeps
       * only those matching `api.notificationCallbacks`, rewritten to the declared URL (so
       * `<ID>_BASE_URL` applies when they are fetched), and drops those already fetched.
       */
      callbacks?: readonly string[];
      /** Summaries the notification carried itself (push delivery), by the provider's kind. */
      inline?: Readonly<Record<string, readonly unknown[]>>;
    }
  | { kind: 'revoked'; providerUserId: string }
  | { kind: 'ignored'; reason: string };

export type DataNotification = Extract<ProviderNotification, { kind: 'data' }>;

export type NotificationRequest = {
  headers: IncomingHttpHeaders;
  /** The body exactly as received: signatures are over these bytes. */
  rawBody: Buffer;
  /**
   * The query of the URL the provider posted to: providers that sign nothing are given a URL
   * with a secret token in it (Concept2).
   */
  query?: URLSearchParams;
  /** The key signatures use (the client secret); null when not configured. */
  secret: string | null;
  /** The deployment's client id for this provider (some providers name it in a header); null when not configured. */
  clientId: string | null;
  /** Ids of the subscriptions Tributary holds at this provider. */
  subscriptionIds: readonly string[];
  now: Date;
};

export type Verification = 'valid' | 'invalid' | 'unconfigured';

/**
 * Where changed data lies, found with the user's own credentials: the local days [startDate,
 * endDate) of `types` to fetch again (an empty range when `types` is empty).
 */
export type ChangedData = {
  types: readonly ProviderDataType[];
  startDate: string;
  endDate: string;
  /**
   * The provider said records of these days were deleted, and a fetch of the range returns
   * everything it still holds there: stored records of these days the fetch lacks are removed.
   */
  deleted?: boolean;
  /** What the fetch of these types gets as `notified` (see TypeFetchArgs); opaque to the sync. */
  notified?: unknown;
  /**
   * Records the provider says were deleted, by the identity their normalized records carry (an
   * activity's `metadata.summary_id`, a planned workout's `metadata.id`), for these types: removed
   * from the store and announced to the developer, whatever days they lie on. `types` may then be
   * empty (a change that is only deletions).
   */
  removed?: RemovedRecords;
};

/** Deleted at the provider: the ids of records of some types (see ChangedData.removed). */
export type RemovedRecords = { types: readonly ProviderDataType[]; ids: readonly string[] };

/**
 * What a notification about the account itself turned out to mean, once confirmed with the
 * user's own credentials (so an unsigned notification can be believed): access withdrawn, or
 * the permissions the user now grants (the provider's names).
 */
export type AccessChange = { access: 'revoked' } | { access: 'permissions'; granted: readonly string[] };

export type SubscriptionRecord = {
  externalId: string;
  dataType: string | null;
  eventType: string | null;
  expiresAt: Date | null;
};

export type NotificationHooks = {
  /**
   * The provider's GET handshake (a subscription being verified): the answer, or null when the
   * query is not a valid handshake. `verifyToken` is the token Tributary gave the provider.
   */
  handshake(query: URLSearchParams, verifyToken: string): { body: unknown } | null;
  /** Authenticity of a POST, from its raw body and headers (constant-time compares). */
  verify(request: NotificationRequest): Verification;
  /** What a verified body tells; `now` is when it arrived. */
  parse(rawBody: Buffer, now: Date): ProviderNotification[];
  /**
   * Present when the provider does not sign its notifications, so anyone can post a well-formed
   * one: they are accepted only for accounts connected here, rate limited per sender, never
   * taken as a withdrawal of access, and coalesced to one pending refetch per account and data
   * kind. `coalesce` folds a newer notification into the pending one (e.g. widens its days).
   */
  unsigned?: { coalesce(pending: DataNotification, next: DataNotification): DataNotification };
  /**
   * The provider's data kinds (`DataNotification.dataKind`) that are about the account itself
   * rather than its data (its registration, its permissions): `locate` answers them with an
   * AccessChange. They decide whether Tributary may call the provider at all, so their
   * notifications are handled apart from data refetches and at once: no gather window, and never
   * queued behind a backfill's refetches.
   */
  accountKinds?: readonly string[];
  /**
   * The types and days to fetch again for a data notification; or, for a notification about the
   * account itself, the confirmed change of access.
   */
  locate(notification: DataNotification, http: ProviderHttp): Promise<ChangedData | AccessChange | null>;
  /** Creates (or finds) the app's subscriptions at the provider; absent when set in a dashboard. */
  subscribe?(input: {
    http: ProviderHttp;
    callbackUrl: string;
    verifyToken: string;
  }): Promise<SubscriptionRecord[]>;
  /** Extends subscriptions that expire; returns their new expiry. */
  renew?(input: { http: ProviderHttp; externalId: string }): Promise<Date | null>;
};
