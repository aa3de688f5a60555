// Verifying Tributary's webhook deliveries, in any runtime with Web Crypto (Node 20 and later,
// browsers, Deno, Bun, edge workers). Tributary signs every delivery twice over the same raw body
// (docs/webhooks.md, src/features/delivery/signing.ts in the service):
// - Standard Webhooks: `webhook-signature: v1,<base64>` (space-separated during a rotation),
//   HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` keyed with the base64-decoded part
//   of the `whsec_…` secret;
// - `service-signature: t=<unix seconds>,v1=<hex>[,v1=<hex>]`, HMAC-SHA256 of `<t>.<body>` keyed
//   with the whole secret string (`whsec_` included) as UTF-8.
// Both reject a timestamp more than 300 seconds from now unless told otherwise. Verify the bytes
// exactly as received, before parsing them.
import type { webhooks } from './schema.js';

export const SECRET_PREFIX = 'whsec_';
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** Every event type Tributary sends. */
export type WebhookEventType = keyof webhooks;
/** The payload of one event type, as the OpenAPI document's `webhooks` section describes it. */
export type WebhookPayload<T extends WebhookEventType = WebhookEventType> = T extends WebhookEventType
  ? NonNullable<webhooks[T]['post']['requestBody']>['content']['application/json']
  : never;

export type RawBody = string | Uint8Array | ArrayBuffer;
/** A Fetch `Headers`, or a plain record such as Node's `IncomingHttpHeaders` (names in any case). */
export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

export type VerifyOptions = {
  /** Your signing secret (`whsec_…`); during your own rotation, several. */
  secret: string | readonly string[];
  /** Largest distance of the signed timestamp from now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The time to compare with (default: now). */
  now?: Date;
};

export type VerificationResult = { valid: true } | { valid: false; reason: string };

export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
}

const encoder = new TextEncoder();

function bytesOf(body: RawBody): Uint8Array {
  if (typeof body === 'string') return encoder.encode(body);
  return body instanceof Uint8Array ? body : new Uint8Array(body);
}

function headerOf(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') {
    const value = (headers as Headers).get(name);
    if (value !== null) return value;
  }
  for (const [key, value] of Object.entries(headers as Record<string, unknown>)) {
    if (key.toLowerCase() !== name) continue;
    if (typeof value === 'string') return value;
    if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
  }
  return undefined;
}

function concat(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text) || text.length % 4 !== 0) return null;
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

function fromHex(text: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[0-9a-fA-F]{64}$/.test(text)) return null;
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = Number.parseInt(text.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** The Standard Webhooks key: the base64 after `whsec_`, 24 to 64 bytes; null otherwise. */
function standardKeyBytes(secret: string): Uint8Array<ArrayBuffer> | null {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const key = fromBase64(encoded);
  return key && key.length >= 24 && key.length <= 64 ? key : null;
}

/** A Web Crypto key (named through `crypto` so the type needs neither DOM's lib nor Node's). */
type HmacKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;

function hmacKey(bytes: Uint8Array<ArrayBuffer>): Promise<HmacKey> {
  return crypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
}

/** Whether any candidate is the HMAC of `message` (Web Crypto's verify compares in constant time). */
async function anyVerifies(
  key: HmacKey,
  message: Uint8Array<ArrayBuffer>,
  candidates: Uint8Array<ArrayBuffer>[],
) {
  let matched = false;
  for (const candidate of candidates) {
    if (await crypto.subtle.verify('HMAC', key, candidate, message)) matched = true;
  }
  return matched;
}

function checkTimestamp(raw: string, options: VerifyOptions): VerificationResult {
  if (!/^\d{1,15}$/.test(raw)) return { valid: false, reason: 'timestamp is not unix seconds' };
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(now - Number(raw)) > (options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS))
    return { valid: false, reason: 'timestamp outside tolerance' };
  return { valid: true };
}

const secretsOf = (secret: string | readonly string[]): readonly string[] =>
  typeof secret === 'string' ? [secret] : secret;

/** Verifies `webhook-id`, `webhook-timestamp` and `webhook-signature` (Standard Webhooks). */
export async function verifyStandardWebhook(
  rawBody: RawBody,
  headers: WebhookHeaders,
  options: VerifyOptions,
): Promise<VerificationResult> {
  const id = headerOf(headers, 'webhook-id');
  const timestamp = headerOf(headers, 'webhook-timestamp');
  const signature = headerOf(headers, 'webhook-signature');
  if (!id || !timestamp || !signature) return { valid: false, reason: 'missing webhook-* headers' };
  const fresh = checkTimestamp(timestamp, options);
  if (!fresh.valid) return fresh;
  const candidates = signature
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .map((entry) => fromBase64(entry.slice(3)))
    .filter((bytes): bytes is Uint8Array<ArrayBuffer> => bytes !== null);
  const message = concat(encoder.encode(`${id}.${timestamp}.`), bytesOf(rawBody));
  for (const secret of secretsOf(options.secret)) {
    const key = standardKeyBytes(secret);
    if (key === null) return { valid: false, reason: 'secret is not a valid whsec_ secret' };
    if (await anyVerifies(await hmacKey(key), message, candidates)) return { valid: true };
  }
  return { valid: false, reason: 'no matching signature' };
}

/** Verifies `service-signature: t=<unix seconds>,v1=<hex>[,v1=<hex>]`. */
export async function verifyServiceSignature(
  rawBody: RawBody,
  headers: WebhookHeaders,
  options: VerifyOptions,
): Promise<VerificationResult> {
  const value = headerOf(headers, 'service-signature');
  if (!value) return { valid: false, reason: 'missing service-signature header' };
  let timestamp: string | undefined;
  const candidates: Uint8Array<ArrayBuffer>[] = [];
  for (const element of value.split(',')) {
    const separator = element.indexOf('=');
    if (separator < 0) continue;
    const name = element.slice(0, separator).trim();
    const part = element.slice(separator + 1).trim();
    if (name === 't') timestamp = part;
    else if (name === 'v1') {
      const bytes = fromHex(part);
      if (bytes) candidates.push(bytes);
    }
  }
  if (timestamp === undefined) return { valid: false, reason: 'service-signature has no t=' };
  const fresh = checkTimestamp(timestamp, options);
  if (!fresh.valid) return fresh;
  const message = concat(encoder.encode(`${timestamp}.`), bytesOf(rawBody));
  for (const secret of secretsOf(options.secret)) {
    if (await anyVerifies(await hmacKey(encoder.encode(secret)), message, candidates)) return { valid: true };
  }
  return { valid: false, reason: 'no matching signature' };
}

/**
 * Verifies a delivery (Standard Webhooks signature; `service-signature` when a proxy dropped the
 * `webhook-*` headers) and returns its parsed event, or throws `WebhookVerificationError`.
 */
export async function constructWebhookEvent(
  rawBody: RawBody,
  headers: WebhookHeaders,
  options: VerifyOptions,
): Promise<WebhookPayload> {
  const standard = headerOf(headers, 'webhook-signature');
  const result = standard
    ? await verifyStandardWebhook(rawBody, headers, options)
    : await verifyServiceSignature(rawBody, headers, options);
  if (!result.valid) throw new WebhookVerificationError(`webhook not verified: ${result.reason}`);
  const text = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(bytesOf(rawBody));
  return JSON.parse(text) as WebhookPayload;
}
