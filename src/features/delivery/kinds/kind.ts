// What an adapter of a destination kind is (the registry is destination-kinds.ts), and the
// small helpers the adapters share to read their settings.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import type { Logger } from 'pino';
import type { TSchema } from 'typebox';
import { compileSchema } from '../../../core/schema-compiler.ts';
import { invalidParameter } from '../../../core/errors.ts';
import type { ResolveHost, WebhookEnvironment } from '../destination-policy.ts';
import type { OwnDatabase } from '../own-database.ts';

/** One event as an adapter sees it: the exact bytes the webhook would POST, and who it is about. */
export type KindEvent = {
  /** The event's id in this destination's log: stable across retries and replays (the dedupe key). */
  id: string;
  developerId: string;
  type: string;
  userId: string | null;
  createdAt: Date;
  /** The request that caused the event, if any (the webhook sends it as `service-reference`). */
  reference: string | null;
  /** The payload as JSON text. */
  body: string;
};

/**
 * What one send came to. `retry`: transient or fixable on the developer's side (unreachable,
 * refused, throttled, a permission the developer may restore): the retry schedule applies.
 * `rejected`: this event can never be accepted as it is (malformed for the destination): not retried.
 * An HTTP kind also says what the receiver answered: its status code, its `Retry-After` (the next
 * attempt waits at least that long) and whether the deadline passed (`timedOut`: the destination
 * takes the slow lane for a while).
 */
export type KindResult = {
  outcome: 'delivered' | 'retry' | 'rejected';
  error: string | null;
  statusCode?: number | null;
  retryAfter?: string | null;
  timedOut?: boolean;
};

/**
 * An open client of one destination, kept between batches by the engine (deliver.ts). The engine
 * gives every send a deadline (`signal`) and does not wait past it: it closes the connection
 * (`close` must then tear its sockets down, not wait for them). The adapter also aborts its own
 * request on `signal`, so nothing is left writing to a socket nobody reads.
 */
export interface KindConnection {
  send(event: KindEvent, signal: AbortSignal): Promise<KindResult>;
  /**
   * Several events in one exchange (a transaction, an object), one result per event in their
   * order, under one deadline. A kind that has it gets a batch's events for the destination this
   * way, as one attempt in flight (deliver.ts); each event's outcome is still its own.
   */
  sendBatch?(events: readonly KindEvent[], signal: AbortSignal): Promise<KindResult[]>;
  close(): Promise<void>;
  /**
   * It ends every send by the engine's deadline itself, answering `timedOut` (the webhook's
   * sender destroys its request), so the engine does not race it with a timer of its own.
   */
  selfTimed?: boolean;
}

/** What decides where a kind's client may connect: the address policy and the service's own databases. */
export type KindPolicy = {
  environment: WebhookEnvironment;
  resolve: ResolveHost;
  ownDatabases: readonly OwnDatabase[];
};

/** What a kind's client gets when it is made. */
export type KindConnectOptions = KindPolicy & {
  log: Logger;
  /** How long opening a connection may take. */
  connectTimeoutMs: number;
  /** The engine's deadline for one send (it aborts `signal` then); the client's own timeouts are set to it too. */
  deadlineMs: number;
};

export type SettingsObject = Record<string, unknown>;

/** What managing a destination needs of its kind: its settings checked, shown, and named as a target. */
export interface KindSettings<S extends object = SettingsObject> {
  kind: string;
  /**
   * Signs with secrets of its own (the webhook): made with one and rotated through the API. Its one
   * setting, the URL, is its target, kept in the clear (no sealed settings).
   */
  signed?: boolean;
  /**
   * The settings checked and completed with defaults; a bad one throws `invalidParameter` naming
   * `settings.<field>`. The policy's environment applies the production address policy to hosts.
   */
  parse(input: unknown, policy: KindPolicy): Promise<S>;
  /** The settings as the API shows them after creation: no secret (password, key, query string). */
  view(settings: S): SettingsObject;
  /** Where it delivers, for the attempt log's `url` (no secret either). */
  target(settings: S): string;
}

/** A kind the engine keeps clients of (every kind but the webhook, which the engine signs for itself). */
export interface DestinationKind<S extends object = SettingsObject> extends KindSettings<S> {
  /** A client; it resolves and checks its host again when it connects (stored settings are read again too). */
  connect(settings: S, options: KindConnectOptions): KindConnection;
}

export function settingsObject(input: unknown): SettingsObject {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw invalidParameter('settings', 'expected an object');
  return input as SettingsObject;
}

type SchemaError = { keyword: string; instancePath: string; params: Record<string, unknown> };
type SettingsValidator = { Check(value: unknown): boolean; Errors(value: unknown): Iterable<SchemaError> };

/**
 * A kind's settings checked against its TypeBox schema (the one OpenAPI and packages/client
 * show), compiled on first use. The first failure becomes the problem the API has always
 * answered, naming the setting: `invalid settings.<field>: <reason>`. A null setting counts as
 * absent (stored settings keep null for "not set", and PATCH merges over them). `hints` word a
 * pattern's failure for people (a regular expression is no explanation); `unknownHint` replaces
 * the list of settings after an unknown one. The adapter's semantic checks (URL parsing, the
 * address policy) come after this.
 */
export function settingsChecker(
  schema: TSchema & { properties: Record<string, TSchema> },
  options: { hints?: Readonly<Record<string, string>>; unknownHint?: string } = {},
): (input: unknown) => SettingsObject {
  let validator: SettingsValidator | undefined;
  const fields = Object.keys(schema.properties);
  return (input) => {
    const given = settingsObject(input);
    const settings = Object.fromEntries(Object.entries(given).filter(([, value]) => value !== null));
    validator ??= compileSchema(schema) as unknown as SettingsValidator;
    if (validator.Check(settings)) return settings;
    // The problem named is the one the adapter's checks always named first: an unknown setting,
    // else the first bad setting in the schema's order (which is the order they are checked in).
    const problems = [...validator.Errors(settings)]
      .map((error) => describeSchemaError(error, fields, options))
      .filter((problem) => problem !== null);
    // An unknown setting is in no position: -1, first.
    const rank = (problem: { field: string }) => fields.indexOf(problem.field.slice('settings.'.length));
    const first = problems.reduce<(typeof problems)[number] | undefined>(
      (best, problem) => (best === undefined || rank(problem) < rank(best) ? problem : best),
      undefined,
    );
    if (first) throw invalidParameter(first.field, first.reason);
    throw invalidParameter('settings', 'not valid for this kind');
  };
}

function describeSchemaError(
  error: SchemaError,
  fields: readonly string[],
  options: { hints?: Readonly<Record<string, string>>; unknownHint?: string },
): { field: string; reason: string } | null {
  const { keyword, params } = error;
  if (keyword === 'required') {
    const missing = (params.requiredProperties as string[] | undefined)?.[0];
    return missing ? { field: `settings.${missing}`, reason: 'required' } : null;
  }
  if (keyword === 'additionalProperties') {
    const extra = (params.additionalProperties as string[] | undefined)?.[0];
    if (!extra) return null;
    return {
      field: `settings.${extra}`,
      reason: `unknown setting; ${options.unknownHint ?? `expected ${fields.join(', ')}`}`,
    };
  }
  const name = error.instancePath.replace(/^\//, '').split('/')[0];
  if (!name) return null;
  const field = `settings.${name}`;
  switch (keyword) {
    case 'type':
      return {
        field,
        reason:
          params.type === 'boolean'
            ? 'expected true or false'
            : params.type === 'string'
              ? 'expected a non-empty string'
              : `expected a ${String(params.type)}`,
      };
    case 'minLength':
      // A longer minimum is part of a pattern, whose hint (the next error) says it better.
      return params.limit === 1 ? { field, reason: 'expected a non-empty string' } : null;
    case 'maxLength':
      return { field, reason: `longer than ${String(params.limit)} characters` };
    case 'pattern':
      return { field, reason: options.hints?.[name] ?? `expected ${String(params.pattern)}` };
    default:
      return null;
  }
}

export function stringSetting(
  settings: SettingsObject,
  field: string,
  options: { required?: boolean; pattern?: RegExp; hint?: string; max?: number } = {},
): string | undefined {
  const value = settings[field];
  if (value === undefined || value === null) {
    if (options.required) throw invalidParameter(`settings.${field}`, 'required');
    return undefined;
  }
  if (typeof value !== 'string' || value.length === 0)
    throw invalidParameter(`settings.${field}`, 'expected a non-empty string');
  if (value.length > (options.max ?? 2048))
    throw invalidParameter(`settings.${field}`, `longer than ${options.max ?? 2048} characters`);
  if (value.includes('\u0000')) throw invalidParameter(`settings.${field}`, 'contains a NUL character');
  if (options.pattern && !options.pattern.test(value))
    throw invalidParameter(`settings.${field}`, options.hint ?? `expected ${String(options.pattern)}`);
  return value;
}

export function booleanSetting(settings: SettingsObject, field: string): boolean | undefined {
  const value = settings[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw invalidParameter(`settings.${field}`, 'expected true or false');
  return value;
}

/** A URL setting with one of the given schemes; its password masked for display. */
export function urlSetting(settings: SettingsObject, field: string, schemes: readonly string[]): URL {
  const raw = stringSetting(settings, field, { required: true })!;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalidParameter(`settings.${field}`, 'not a valid absolute URL');
  }
  const scheme = url.protocol.replace(/:$/, '');
  if (!schemes.includes(scheme))
    throw invalidParameter(
      `settings.${field}`,
      `unsupported scheme ${scheme}: expected ${schemes.join(' or ')}`,
    );
  if (!url.hostname) throw invalidParameter(`settings.${field}`, 'has no host');
  return url;
}

/**
 * A URL setting that is an address and nothing else: no query string or fragment (they are where
 * tokens hide, and would be shown back), no credentials (they have settings of their own).
 */
export function addressUrlSetting(
  settings: SettingsObject,
  field: string,
  schemes: readonly string[],
  options: { credentials: boolean; credentialsHint?: string },
): URL {
  const url = urlSetting(settings, field, schemes);
  const raw = String(settings[field]);
  if (url.search || raw.includes('?')) throw invalidParameter(`settings.${field}`, 'takes no query string');
  if (url.hash || raw.includes('#')) throw invalidParameter(`settings.${field}`, 'takes no fragment');
  if (!options.credentials && (url.username || url.password))
    throw invalidParameter(`settings.${field}`, `takes no credentials${options.credentialsHint ?? ''}`);
  return url;
}

/** PEM text as the TLS settings take it: at most 64 KiB. */
export const MAX_PEM_CHARS = 64 * 1024;
const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]+?-----END \1-----/;

/**
 * TLS material given as PEM text (never a path on the server): certificates are parsed, a private
 * key must open without a passphrase (an encrypted key would need a password setting of its own).
 */
export function pemSetting(
  settings: SettingsObject,
  field: string,
  kind: 'certificates' | 'private key',
): string | undefined {
  const value = stringSetting(settings, field, { max: MAX_PEM_CHARS });
  if (value === undefined) return undefined;
  if (!PEM_BLOCK.test(value)) throw invalidParameter(`settings.${field}`, `expected PEM text (-----BEGIN …)`);
  try {
    if (kind === 'private key') createPrivateKey(value);
    else new X509Certificate(value);
  } catch {
    throw invalidParameter(
      `settings.${field}`,
      kind === 'private key'
        ? 'not a readable private key (an encrypted key is not supported: give it unencrypted)'
        : 'not a readable PEM certificate',
    );
  }
  return value;
}

/**
 * The URL with any password replaced by `***` and without query string or fragment (what the API
 * and the attempt log show; a row saved before query strings were refused may still have one).
 */
export function maskedUrl(raw: string): string {
  const url = new URL(raw);
  if (url.password) url.password = '***';
  url.search = '';
  url.hash = '';
  return url.href;
}

/** A failure's text for the attempt log: its code and message, never a stack, at most 300 characters. */
export function describeFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error).slice(0, 300);
  const code = (error as { code?: unknown }).code;
  const name = error.name !== 'Error' ? error.name : '';
  const prefix =
    typeof code === 'string' && !error.message.includes(code) ? `${code}: ` : name ? `${name}: ` : '';
  return `${prefix}${error.message}`.slice(0, 300);
}
