// Webhook signing: two schemes over the same bytes, so receivers can use either a Standard
// Webhooks library or the `t=…,v1=…` verifier they already have for the reference API.
//
// Key material differs per scheme on purpose:
// - Standard Webhooks: the HMAC key is the base64-decoded part after `whsec_` (as the spec says).
// - service-signature: the HMAC key is the whole secret string as UTF-8, `whsec_` included, because
//   existing receivers of the reference API pass their secret string straight to HMAC.
import { createHmac, createSecretKey, type KeyObject, randomBytes, timingSafeEqual } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';
/** The Standard Webhooks spec allows keys of 24 to 64 bytes; we generate 32. */
const SECRET_BYTES = 32;
const MIN_SECRET_BYTES = 24;
const MAX_SECRET_BYTES = 64;
/** Replay window both verifiers use unless told otherwise (the Standard Webhooks default). */
export const DEFAULT_TOLERANCE_SECONDS = 300;
/** After a rotation, the secret it replaced keeps signing alongside the new one for this long. */
export const SECRET_ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;
/**
 * Secrets replaced within their overlap that may sign at once (with the current one, one more
 * signature each): a further rotation is refused until the oldest has expired, because every
 * secret handed out must sign for its whole overlap.
 */
export const MAX_RETIRED_SECRETS = 4;

export type RawBody = string | Uint8Array;

// A type alias rather than an interface so it is assignable to HeaderBag and other header records.
export type SignatureHeaders = {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
  'service-signature': string;
};

export interface SignInput {
  /** Message id: the same for every retry of one delivery. */
  id: string;
  /** Unix seconds of this attempt. */
  timestamp: number;
  /** The exact bytes that will be sent. */
  rawBody: RawBody;
  /**
   * Current secret first; during rotation the previous one follows. A sender signing many
   * deliveries with the same secrets passes them once made into keys (`signingKey`).
   */
  secrets: readonly (string | SigningKey)[];
}

/**
 * One secret made into the HMAC keys of both schemes. HMAC with a string or Buffer key builds a
 * key object per call (a visible share of a delivery's CPU); a sender that signs thousands of
 * deliveries with the same secret makes its keys once.
 */
export type SigningKey = { readonly standard: KeyObject; readonly service: KeyObject };

export function signingKey(secret: string): SigningKey {
  return {
    standard: createSecretKey(requireSecretKey(secret)),
    service: createSecretKey(Buffer.from(secret, 'utf8')),
  };
}

export type VerificationResult = { valid: true } | { valid: false; reason: string };

/** Header bag as node's IncomingHttpHeaders or a plain object; names are matched case-insensitively. */
export type HeaderBag = Readonly<Record<string, string | readonly string[] | undefined>>;

export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

export function isValidWebhookSecret(secret: string): boolean {
  return decodeSecretKey(secret) !== null;
}

/** The Standard Webhooks HMAC key, or null when the secret is not `whsec_` + base64 of 24–64 bytes. */
function decodeSecretKey(secret: string): Buffer | null {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) return null;
  const key = Buffer.from(encoded, 'base64');
  return key.length >= MIN_SECRET_BYTES && key.length <= MAX_SECRET_BYTES ? key : null;
}

function requireSecretKey(secret: string): Buffer {
  const key = decodeSecretKey(secret);
  if (key === null) throw new TypeError('webhook secret must be "whsec_" followed by base64 of 24-64 bytes');
  return key;
}

function hmac(key: string | Buffer | KeyObject, prefix: string, rawBody: RawBody): Buffer {
  return createHmac('sha256', key).update(prefix).update(rawBody).digest();
}

function standardSignature(
  key: Buffer | KeyObject,
  id: string,
  timestamp: number | string,
  rawBody: RawBody,
): Buffer {
  return hmac(key, `${id}.${timestamp}.`, rawBody);
}

function serviceSignature(secret: string | KeyObject, timestamp: number | string, rawBody: RawBody): Buffer {
  return hmac(secret, `${timestamp}.`, rawBody);
}

/** Signs one delivery with every given secret, in both schemes. */
export function signWebhook(input: SignInput): SignatureHeaders {
  const { id, timestamp, rawBody, secrets } = input;
  if (secrets.length === 0) throw new TypeError('at least one signing secret is required');
  if (!Number.isSafeInteger(timestamp) || timestamp < 0)
    throw new TypeError('timestamp must be unix seconds');
  const seconds = String(timestamp);
  const standardPrefix = `${id}.${seconds}.`;
  const servicePrefix = `${seconds}.`;
  // Built as strings in one loop (no arrays of keys and signatures per delivery: every webhook
  // attempt signs, thousands a second).
  let standard = '';
  let service = `t=${seconds}`;
  for (let index = 0; index < secrets.length; index++) {
    const secret = secrets[index]!;
    const key = typeof secret === 'string' ? signingKey(secret) : secret;
    if (index > 0) standard += ' ';
    standard += `v1,${hmac(key.standard, standardPrefix, rawBody).toString('base64')}`;
    service += `,v1=${hmac(key.service, servicePrefix, rawBody).toString('hex')}`;
  }
  return {
    'webhook-id': id,
    'webhook-timestamp': seconds,
    'webhook-signature': standard,
    'service-signature': service,
  };
}

export interface SigningSecretState {
  current: string;
  /** Secrets rotations replaced, each with the end of its overlap. */
  retired?: readonly { secret: string; signsUntil: Date }[];
}

/** Secrets that must sign at `now`: the current one, then every replaced one still in its overlap, newest first. */
export function signingSecretsAt(state: SigningSecretState, now: Date): string[] {
  const live = (state.retired ?? [])
    .filter((retired) => now.getTime() < retired.signsUntil.getTime())
    .sort((a, b) => b.signsUntil.getTime() - a.signsUntil.getTime());
  return [state.current, ...live.map((retired) => retired.secret)];
}

export function webhookUserAgent(version: string): string {
  return `Tributary/${version} (webhooks)`;
}

export interface DeliveryHeaderInput extends SignInput {
  /** Tributary's version, for the user-agent. */
  version: string;
  /** The originating request's reference (data events), sent as `service-reference`. */
  reference?: string | null;
  /** When the event was made: `service-ordering-timestamp`, kept by retries and replays. */
  orderingTimestamp: Date;
}

/**
 * Every header one delivery attempt carries. Besides the signatures, the vendor contract's two
 * dedupe and ordering aids under the service's neutral names (docs/vendor-spec-deviations.md):
 * `service-trace-id` (its `X-Terra-Trace-Id`: one value per event, the same on every retry and
 * replay) and `service-ordering-timestamp` (its `X-Terra-Ordering-Timestamp`: the event's creation
 * in unix milliseconds, so of two copies of a record the higher value is the newer; a replayed old
 * event keeps its old value and never overwrites newer data).
 */
export function buildDeliveryHeaders(input: DeliveryHeaderInput): Record<string, string> {
  const signatures = signWebhook(input);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': userAgentOf(input.version),
    'webhook-id': signatures['webhook-id'],
    'webhook-timestamp': signatures['webhook-timestamp'],
    'webhook-signature': signatures['webhook-signature'],
    'service-signature': signatures['service-signature'],
    'service-trace-id': input.id,
    'service-ordering-timestamp': String(input.orderingTimestamp.getTime()),
  };
  if (input.reference) headers['service-reference'] = input.reference;
  return headers;
}

/** The user-agent of the last version asked for (one version per process): not rebuilt per attempt. */
let userAgent = { version: '', text: '' };
function userAgentOf(version: string): string {
  if (userAgent.version !== version) userAgent = { version, text: webhookUserAgent(version) };
  return userAgent.text;
}

// ---------------------------------------------------------------------------------------------
// Verification, for receivers (and our own tests). Both accept several secrets so a receiver
// can keep verifying while it rolls its own configuration during a rotation.

export interface VerifyOptions {
  rawBody: RawBody;
  headers: HeaderBag;
  secret: string | readonly string[];
  toleranceSeconds?: number;
  /** Injectable clock, for tests. */
  now?: Date;
}

function header(headers: HeaderBag, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name) continue;
    return typeof value === 'string' ? value : value?.[0];
  }
  return undefined;
}

function checkTimestamp(raw: string, toleranceSeconds: number, now: Date): VerificationResult {
  if (!/^\d{1,15}$/.test(raw)) return { valid: false, reason: 'timestamp is not unix seconds' };
  const skew = Math.abs(Math.floor(now.getTime() / 1000) - Number(raw));
  if (skew > toleranceSeconds) return { valid: false, reason: 'timestamp outside tolerance' };
  return { valid: true };
}

/** Constant-time comparison of one expected digest against candidates that arrived on the wire. */
function anyMatches(expected: Buffer, candidates: readonly Buffer[]): boolean {
  let matched = false;
  for (const candidate of candidates) {
    // Length is public (always 32 for SHA-256), so checking it first leaks nothing secret.
    if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) matched = true;
  }
  return matched;
}

const asList = (secret: string | readonly string[]): readonly string[] =>
  typeof secret === 'string' ? [secret] : secret;

/** Verifies `webhook-id`/`webhook-timestamp`/`webhook-signature` (Standard Webhooks). */
export function verifyStandardWebhook(options: VerifyOptions): VerificationResult {
  const id = header(options.headers, 'webhook-id');
  const timestamp = header(options.headers, 'webhook-timestamp');
  const signature = header(options.headers, 'webhook-signature');
  if (!id || !timestamp || !signature) return { valid: false, reason: 'missing webhook-* headers' };
  const fresh = checkTimestamp(
    timestamp,
    options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS,
    options.now ?? new Date(),
  );
  if (!fresh.valid) return fresh;
  const candidates = signature
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .map((entry) => Buffer.from(entry.slice(3), 'base64'));
  for (const secret of asList(options.secret)) {
    const key = decodeSecretKey(secret);
    if (key === null) return { valid: false, reason: 'secret is not a valid whsec_ secret' };
    if (anyMatches(standardSignature(key, id, timestamp, options.rawBody), candidates))
      return { valid: true };
  }
  return { valid: false, reason: 'no matching signature' };
}

/** Verifies `service-signature: t=<unix seconds>,v1=<hex>[,v1=<hex>]`. */
export function verifyServiceSignature(options: VerifyOptions): VerificationResult {
  const value = header(options.headers, 'service-signature');
  if (!value) return { valid: false, reason: 'missing service-signature header' };
  let timestamp: string | undefined;
  const candidates: Buffer[] = [];
  for (const element of value.split(',')) {
    const separator = element.indexOf('=');
    if (separator < 0) continue;
    const name = element.slice(0, separator).trim();
    const part = element.slice(separator + 1).trim();
    if (name === 't') timestamp = part;
    else if (name === 'v1' && /^[0-9a-fA-F]{64}$/.test(part)) candidates.push(Buffer.from(part, 'hex'));
  }
  if (timestamp === undefined) return { valid: false, reason: 'service-signature has no t=' };
  const fresh = checkTimestamp(
    timestamp,
    options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS,
    options.now ?? new Date(),
  );
  if (!fresh.valid) return fresh;
  for (const secret of asList(options.secret)) {
    if (anyMatches(serviceSignature(secret, timestamp, options.rawBody), candidates)) return { valid: true };
  }
  return { valid: false, reason: 'no matching signature' };
}
