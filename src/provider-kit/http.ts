// What a connector's hooks call the provider with: an HTTP client the framework hands them, which
// already handles tokens, retries, rate limits and request budgets, and reads no answer (nor one
// item of a list) past PROVIDER_HTTP_MAX_ANSWER_MB (a larger one fails the call).

export type ProviderRequest = {
  /** The provider's real URL, as documented; the framework applies `<ID>_BASE_URL`. */
  url: string;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  query?: Readonly<Record<string, string | number | boolean | undefined>>;
  headers?: Readonly<Record<string, string>>;
  /** A form (`application/x-www-form-urlencoded`) or JSON body. */
  form?: Readonly<Record<string, string>>;
  json?: unknown;
  /** `user` (default): the user's bearer token; `app`: none (the request carries client credentials). */
  auth?: 'user' | 'app';
  /**
   * Statuses that mean "nothing here" rather than a failure (a document deleted since the
   * notification, a scope the user left unticked): the call resolves to null.
   */
  absentOn?: readonly number[];
  /**
   * A cap on this answer below PROVIDER_HTTP_MAX_ANSWER_MB (an original file's size limit): a
   * larger answer fails the call at once, naming this limit.
   */
  maxBytes?: number;
};

export type ProviderHttp = {
  /** The parsed JSON answer (null for an empty body or an `absentOn` status). */
  json<T = unknown>(request: ProviderRequest): Promise<T | null>;
  /**
   * An answer that is one JSON list, item by item as the body arrives (a list of any length
   * never sits in memory whole); null for an `absentOn` status, no items for an empty body or
   * `null`. A body that is not a list, or breaks off, fails the iteration (ProviderDataError).
   */
  items(request: ProviderRequest): Promise<AsyncIterable<unknown> | null>;
  /** A file (a FIT recording) as bytes; null for an `absentOn` status. */
  bytes(request: ProviderRequest): Promise<Uint8Array | null>;
  /** The deployment's client credentials for this provider (app-level calls). */
  readonly client: { clientId: string; clientSecret: string } | null;
};

/** What the provider's own headers say about its limits. */
export type RateLimitSignal = {
  /** Seconds until requests are accepted again, when it says (or we can tell). */
  retryAfterSeconds: number | null;
  /** The window is used up: stop sending until `retryAfterSeconds` passes. */
  exhausted: boolean;
};

export type RequestWindow = { requests: number; seconds: number };
