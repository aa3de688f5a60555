/**
 * The one error vocabulary. Services throw `AppError` with a kind from this closed set; the
 * HTTP edge turns it into an RFC 7807 problem (status, type URI, title) and nothing else
 * decides a status code.
 */
export const ERROR_KINDS = {
  bad_request: { status: 400, title: 'bad request' },
  unauthorized: { status: 401, title: 'unauthorized' },
  payment_required: { status: 402, title: 'payment required' },
  forbidden: { status: 403, title: 'forbidden' },
  not_found: { status: 404, title: 'not found' },
  method_not_allowed: { status: 405, title: 'method not allowed' },
  request_timeout: { status: 408, title: 'request timeout' },
  conflict: { status: 409, title: 'conflict' },
  gone: { status: 410, title: 'gone' },
  payload_too_large: { status: 413, title: 'payload too large' },
  uri_too_long: { status: 414, title: 'uri too long' },
  unsupported_media_type: { status: 415, title: 'unsupported media type' },
  unprocessable: { status: 422, title: 'unprocessable entity' },
  /** A provider refused or could not take a change Tributary passed on (planned workouts); retry later. */
  failed_dependency: { status: 424, title: 'failed dependency' },
  rate_limited: { status: 429, title: 'too many requests' },
  header_fields_too_large: { status: 431, title: 'request header fields too large' },
  internal: { status: 500, title: 'internal server error' },
  upstream_unavailable: { status: 503, title: 'service unavailable' },
  /** Tributary's own database is unreachable for the moment; the request can be retried as is. */
  service_unavailable: { status: 503, title: 'service unavailable' },
  /** The database has no disk space left; nothing was written, and retrying will not help until space is freed. */
  insufficient_storage: { status: 507, title: 'insufficient storage' },
} as const;

export type ErrorKind = keyof typeof ERROR_KINDS;

export type ErrorOptions = {
  /** Extra members of the problem body (e.g. `invalid_fields`, `current_status`). */
  extensions?: Record<string, unknown>;
  /** Response headers that belong to the error (e.g. `Retry-After`). */
  headers?: Record<string, string>;
  cause?: unknown;
};

export class AppError extends Error {
  override name = 'AppError';
  readonly kind: ErrorKind;
  readonly extensions: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(kind: ErrorKind, detail: string, options: ErrorOptions = {}) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.kind = kind;
    this.extensions = options.extensions ?? {};
    this.headers = options.headers ?? {};
  }

  get status(): number {
    return ERROR_KINDS[this.kind].status;
  }
}

export const badRequest = (detail: string, options?: ErrorOptions) =>
  new AppError('bad_request', detail, options);
export const unauthorized = (detail: string) => new AppError('unauthorized', detail);
export const forbidden = (detail: string) => new AppError('forbidden', detail);
export const notFound = (detail: string) => new AppError('not_found', detail);
export const conflict = (detail: string, options?: ErrorOptions) => new AppError('conflict', detail, options);
export const unprocessable = (detail: string, options?: ErrorOptions) =>
  new AppError('unprocessable', detail, options);
export const upstreamUnavailable = (detail: string, options?: ErrorOptions) =>
  new AppError('upstream_unavailable', detail, options);

/** `invalid <name>: <problem>`, the shape every 400 detail takes so clients can see what to fix. */
export const invalidParameter = (name: string, problem: string) => badRequest(`invalid ${name}: ${problem}`);

/** Seconds a client should wait before retrying while the database is unreachable. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** Seconds a client should wait before retrying a request the database gave up for contention. */
export const CONTENTION_RETRY_AFTER_SECONDS = 1;

// SQLSTATEs that mean the session is gone, not that the statement was wrong: admin shutdown or
// termination (57P01), crash shutdown (57P02), server not yet accepting connections (57P03),
// too many connections (53300), the database dropped under the session (57P04), an idle session
// ended (57P05), and the whole connection-exception class (08xxx).
const CONNECTION_SQLSTATES = new Set(['57P01', '57P02', '57P03', '57P04', '57P05', '53300']);
// Codes PostgreSQL also raises for statements, so they count only where the server refused the
// session itself: the database not accepting connections (55000, ALTER DATABASE … ALLOW_CONNECTIONS
// false during maintenance or a restore) or not there (3D000, dropped to be restored). Known by the
// server function that refused (`routine`, never translated), or, on pg-boss's copies of an error
// that keep only the message, by a message no statement's error has (3D000's is DROP DATABASE's too).
const SESSION_REFUSALS: Record<string, { routines: Set<string>; message?: RegExp }> = {
  '55000': { routines: new Set(['CheckMyDatabase']), message: /is not currently accepting connections/ },
  '3D000': { routines: new Set(['InitPostgres']) },
};
const CONNECTION_SYSCALL_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
// node-postgres reports a dropped or unobtainable connection with these messages and no code.
const CONNECTION_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|not queryable/i;

// SQLSTATEs where PostgreSQL rolled the transaction back to let another one through: a deadlock
// (40P01) or a serialization failure (40001). Nothing in the request was wrong, and the same
// transaction run again normally succeeds.
const CONTENTION_SQLSTATES = new Set(['40P01', '40001']);

// 57014 query_canceled: PostgreSQL cut the statement, at the store's statement deadline
// (statement_timeout, store/db.ts) or on a cancel request. The request was not wrong and nothing
// it did stays (the statement, and its transaction, rolled back); the database was too slow for it.
const STATEMENT_CANCELED = '57014';

/** Seconds a client should wait before retrying a request whose statement ran past its deadline. */
export const STATEMENT_TIMEOUT_RETRY_AFTER_SECONDS = 10;

/** How deep the causes of an error are followed: wrappers nest a few levels, never dozens. */
const MAX_CAUSE_DEPTH = 8;

/**
 * The error and everything it wraps, outermost first: `cause` (Error options, or a library's own
 * field) and an AggregateError's `errors`, to MAX_CAUSE_DEPTH levels, each error once.
 */
export function causeChain(error: unknown): unknown[] {
  const seen = new Set<unknown>();
  const chain: unknown[] = [];
  let level: unknown[] = [error];
  for (let depth = 0; depth <= MAX_CAUSE_DEPTH && level.length > 0; depth++) {
    const next: unknown[] = [];
    for (const item of level) {
      if (item === undefined || item === null || seen.has(item)) continue;
      seen.add(item);
      chain.push(item);
      if (typeof item !== 'object') continue;
      const { cause, errors } = item as { cause?: unknown; errors?: unknown };
      if (cause !== undefined) next.push(cause);
      if (Array.isArray(errors)) next.push(...errors);
    }
    level = next;
  }
  return chain;
}

/**
 * An Error, or what a library passes on in its place: pg-boss emits a worker's failure as a plain
 * copy of the error's fields (message, code, …), not an Error.
 */
type ErrorLike = { message: string; code?: unknown; routine?: unknown };
const isErrorLike = (value: unknown): value is ErrorLike =>
  value instanceof Error ||
  (typeof value === 'object' &&
    value !== null &&
    typeof (value as { message?: unknown }).message === 'string');

const sqlstateOf = (error: ErrorLike): string | undefined =>
  typeof error.code === 'string' ? error.code : undefined;

/**
 * Errors the store's own database client raised (store/db.ts marks them as they leave its pool):
 * a bare socket error among them is the database's, where the same code from anywhere else
 * (a provider's API, a destination, a DNS look-up) names nothing.
 */
const raisedByDatabase = new WeakSet<object>();

/** Marks an error as the store's database client's own (store/db.ts); returns it. */
export function markDatabaseError<T>(error: T): T {
  if (typeof error === 'object' && error !== null) raisedByDatabase.add(error);
  return error;
}

/** What PostgreSQL or node-postgres said about a lost or refused session (a SQLSTATE, pg's own messages). */
function isPostgresConnectionError(error: ErrorLike): boolean {
  const code = sqlstateOf(error);
  if (code !== undefined && (CONNECTION_SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code))) return true;
  const refusal = code === undefined ? undefined : SESSION_REFUSALS[code];
  if (refusal && (refusal.routines.has(String(error.routine)) || refusal.message?.test(error.message)))
    return true;
  return CONNECTION_MESSAGES.test(error.message);
}

const isSocketError = (error: ErrorLike) => {
  const code = sqlstateOf(error);
  return code !== undefined && CONNECTION_SYSCALL_CODES.has(code);
};

/** `networkCodes`: whether a bare socket error code counts (it may be any service's, not the database's). */
function isConnectionErrorItself(error: unknown, networkCodes = true): boolean {
  if (!isErrorLike(error)) return false;
  return isPostgresConnectionError(error) || (networkCodes && isSocketError(error));
}

function isContentionErrorItself(error: unknown): boolean {
  if (!isErrorLike(error)) return false;
  const code = sqlstateOf(error);
  return code !== undefined && CONTENTION_SQLSTATES.has(code);
}

function isStatementTimeoutItself(error: unknown): boolean {
  return isErrorLike(error) && sqlstateOf(error) === STATEMENT_CANCELED;
}

function isDiskFullErrorItself(error: unknown): boolean {
  if (!isErrorLike(error)) return false;
  const code = sqlstateOf(error);
  // 53100 disk_full: PostgreSQL could not extend a file; the statement was rolled back.
  return code === '53100' || code === 'ENOSPC';
}

/**
 * Whether an error from the store means "the database cannot be reached right now" (the
 * request may succeed when retried) rather than a fault in the request or the code. An error
 * that wraps such an error (its cause, an AggregateError's errors) means the same.
 */
export function isDatabaseConnectionError(error: unknown): boolean {
  return causeChain(error).some((item) => isConnectionErrorItself(item));
}

/** Whether PostgreSQL gave the transaction up for contention (deadlock, serialization), here or in a cause. */
export function isDatabaseContentionError(error: unknown): boolean {
  return causeChain(error).some(isContentionErrorItself);
}

/**
 * Whether the same database work, run again as a whole, may well succeed: the connection was
 * lost or refused, or the transaction lost to another. Such a transaction was rolled back,
 * unless the connection went while it committed (a retry must find its own work already done).
 */
export function isTransientDatabaseError(error: unknown): boolean {
  return isDatabaseConnectionError(error) || isDatabaseContentionError(error);
}

/** The outages a 503 can stand for: the database unreachable, or its statements cut at their deadline. */
export type DatabaseOutage = 'connection' | 'statement_timeout';

/**
 * Which database outage an error stands for, and the database's own error that says so: a lost,
 * refused or unaccepted session (a bare socket error only when the store's client raised it), or
 * a statement cut at its deadline (57014). Undefined for anything else, a bug among them.
 */
export function databaseOutage(error: unknown): { outage: DatabaseOutage; cause: unknown } | undefined {
  for (const item of causeChain(error)) {
    if (!isErrorLike(item)) continue;
    if (isPostgresConnectionError(item) || (isSocketError(item) && raisedByDatabase.has(item)))
      return { outage: 'connection', cause: item };
    if (isStatementTimeoutItself(item)) return { outage: 'statement_timeout', cause: item };
  }
  return undefined;
}

/** The 503 a request gets while the database is unreachable, with the wait before a retry. */
export const databaseUnavailable = (cause: unknown) =>
  new AppError('service_unavailable', 'the database is unreachable right now; retry shortly', {
    headers: { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) },
    cause,
  });

/**
 * The 503 a request gets when a connection to something else it depends on was refused or lost
 * (a socket error not known to be the database's), naming the far end when the error does.
 */
export const dependencyUnavailable = (cause: unknown) => {
  const { address, port, hostname } = (cause ?? {}) as {
    address?: unknown;
    port?: unknown;
    hostname?: unknown;
  };
  const where =
    typeof address === 'string'
      ? ` (${address}${typeof port === 'number' || typeof port === 'string' ? `:${port}` : ''})`
      : typeof hostname === 'string'
        ? ` (${hostname})`
        : '';
  const code = (cause as { code?: unknown } | null)?.code;
  return new AppError(
    'upstream_unavailable',
    `a service this request depends on${where} could not be reached (${String(code)}); retry shortly`,
    { headers: { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) }, cause },
  );
};

/** The 503 a request gets when the database gave its transaction up to another (deadlock, serialization). */
export const databaseContention = (cause: unknown) =>
  new AppError('service_unavailable', 'the database gave this request up to a concurrent one; retry', {
    headers: { 'retry-after': String(CONTENTION_RETRY_AFTER_SECONDS) },
    cause,
  });

/** Whether PostgreSQL cut a statement at its deadline (statement_timeout) or on a cancel, here or in a cause. */
export function isStatementTimeoutError(error: unknown): boolean {
  return causeChain(error).some(isStatementTimeoutItself);
}

/**
 * The 503 a request gets when the database did not finish its statement in time: nothing was
 * changed, and the same request may well succeed once the database is less busy.
 */
export const databaseTimeout = (cause: unknown) =>
  new AppError('service_unavailable', 'the database did not answer this request in time; retry shortly', {
    headers: { 'retry-after': String(STATEMENT_TIMEOUT_RETRY_AFTER_SECONDS) },
    cause,
  });

/** Whether the database (or the disk under embedded storage) refused a write for lack of space, here or in a cause. */
export function isDiskFullError(error: unknown): boolean {
  return causeChain(error).some(isDiskFullErrorItself);
}

export const storageFull = (cause: unknown) =>
  new AppError('insufficient_storage', 'the database is out of disk space; nothing was written', { cause });

/**
 * What a database failure means to the client, when it is not a bug: the database unreachable,
 * the transaction lost to contention or its statement cut at its deadline (503, retry) or out of
 * space (507). The error may come
 * wrapped (a feature's error with the database's as its cause, an AggregateError): the first
 * such fault found in its causes decides. Anything else stays an internal error.
 */
export function databaseFault(error: unknown): AppError | undefined {
  return faultIn(error, true);
}

/**
 * databaseFault, but only from what PostgreSQL or its client said (a SQLSTATE, node-postgres's
 * own messages), never from a bare socket error code: for errors of work that also calls other
 * services (a provider's token endpoint), where an ECONNREFUSED in the causes is likely theirs.
 */
export function postgresFault(error: unknown): AppError | undefined {
  return faultIn(error, false);
}

function faultIn(error: unknown, networkCodes: boolean): AppError | undefined {
  for (const item of causeChain(error)) {
    if (isErrorLike(item) && isPostgresConnectionError(item)) return databaseUnavailable(item);
    // A bare socket error is the database's only when its client raised it; anyone else's is
    // still something outside us failing (503), but worded as what it is.
    if (isErrorLike(item) && isSocketError(item)) {
      if (raisedByDatabase.has(item)) return databaseUnavailable(item);
      if (networkCodes) return dependencyUnavailable(item);
    }
    if (isContentionErrorItself(item)) return databaseContention(item);
    if (isStatementTimeoutItself(item)) return databaseTimeout(item);
    if (isDiskFullErrorItself(item) && (networkCodes || (item as ErrorLike).code !== 'ENOSPC'))
      return storageFull(item);
  }
  return undefined;
}
