// What an adapter of a destination kind is (the registry is destination-kinds.ts), and the
// small helpers the adapters share to read their settings.
import type { Logger } from 'pino';
import { invalidParameter } from '../../../core/errors.ts';
import type { ResolveHost, WebhookEnvironment } from '../destination-policy.ts';

/** One event as an adapter sees it: the exact bytes the webhook would POST, and who it is about. */
export type KindEvent = {
  /** The event's id in this destination's log: stable across retries and replays (the dedupe key). */
  id: string;
  developerId: string;
  type: string;
  userId: string | null;
  createdAt: Date;
  /** The payload as JSON text. */
  body: string;
};

/**
 * What one send came to. `retry`: transient or fixable on the developer's side (unreachable,
 * refused, throttled, a permission the developer may restore): the retry schedule applies.
 * `rejected`: this event can never be accepted as it is (malformed for the destination): not retried.
 */
export type KindResult = { outcome: 'delivered' | 'retry' | 'rejected'; error: string | null };

/** An open client of one destination, kept between batches by the engine (deliver.ts). */
export interface KindConnection {
  send(event: KindEvent): Promise<KindResult>;
  close(): Promise<void>;
}

export type SettingsObject = Record<string, unknown>;

export interface DestinationKind<S extends object = SettingsObject> {
  kind: string;
  /**
   * The settings checked and completed with defaults; a bad one throws `invalidParameter` naming
   * `settings.<field>`. `environment` applies the production address policy to hosts.
   */
  parse(input: unknown, environment: WebhookEnvironment, resolve?: ResolveHost): Promise<S>;
  /** The settings as the API shows them after creation: secrets left out (or masked in URLs). */
  view(settings: S): SettingsObject;
  /** Where it delivers, for the attempt log's `url` (no password). */
  target(settings: S): string;
  connect(settings: S, log: Logger): KindConnection;
}

export function settingsObject(input: unknown): SettingsObject {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw invalidParameter('settings', 'expected an object');
  return input as SettingsObject;
}

export function allowOnly(settings: SettingsObject, fields: readonly string[]): void {
  for (const key of Object.keys(settings)) {
    if (!fields.includes(key))
      throw invalidParameter(`settings.${key}`, `unknown setting; expected ${fields.join(', ')}`);
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

/** The URL with any password replaced by `***` (what the API and the attempt log show). */
export function maskedUrl(raw: string): string {
  const url = new URL(raw);
  if (url.password) url.password = '***';
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
