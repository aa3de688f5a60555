import { randomBytes, randomFillSync, randomUUID } from 'node:crypto';

// Every id and bearer token the service mints comes from this module (a lint rule in
// eslint.config.js rejects minting them elsewhere), so their formats, prefixes and entropy are
// decided in one place.

/**
 * Every prefixed id the service mints, in one table, so a prefix says what an id is at a glance
 * (in logs, support tickets, webhook payloads) and two kinds never share one. Ids that the wire
 * contract defines as UUIDs (users, widget and auth sessions) are plain UUIDs instead (`newUuid`).
 */
export const ID_PREFIXES = {
  request: 'req',
  apiKey: 'key',
  webhookEvent: 'evt',
  delivery: 'dlv',
  idempotencyClaim: 'clm',
  labReportUpload: 'upl',
  mcpToken: 'mtk',
  fhirExport: 'exp',
  erasureReceipt: 'ers',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

/**
 * Random bytes for ids, drawn from the CSPRNG a pool at a time and each byte used once (as Node's
 * `randomUUID` keeps its own cache): a `randomBytes` call per id was a native call and a Buffer
 * each, and a bulk emit mints two ids per event (issue 44, the delivery engine's profile).
 */
const ID_POOL_BYTES = 4096;
const idPool = Buffer.alloc(ID_POOL_BYTES);
let idPoolUsed = ID_POOL_BYTES;

/** `bytes` fresh random bytes as hex. */
function randomHex(bytes: number): string {
  if (bytes > ID_POOL_BYTES) return randomBytes(bytes).toString('hex');
  if (idPoolUsed + bytes > ID_POOL_BYTES) {
    randomFillSync(idPool);
    idPoolUsed = 0;
  }
  const hex = idPool.toString('hex', idPoolUsed, idPoolUsed + bytes);
  idPoolUsed += bytes;
  return hex;
}

/** `<prefix>_<hex>` with `bytes` random bytes (96 bits by default). */
export function newId(kind: IdKind, bytes = 12): string {
  return `${ID_PREFIXES[kind]}_${randomHex(bytes)}`;
}

/**
 * `<prefix>_<uuid>`: for ids whose wire contract shows that shape (the `event_id` of lab_report
 * events, `evt_4a2b8c1d-3f9e-…`).
 */
export function newUuidId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${randomUUID()}`;
}

/**
 * Bearer tokens: secrets a client presents, stored only as a hash. The prefix says what a leaked
 * token is (secret scanners match on it); the rest is base64url of `bytes` random bytes (256 bits
 * by default).
 */
export const TOKEN_PREFIXES = {
  mobileUpload: 'tru',
  sandboxApiKey: 'sk_test',
  productionApiKey: 'sk_live',
  mcpUserToken: 'trm',
} as const;

export type TokenKind = keyof typeof TOKEN_PREFIXES;

/** `<prefix>_<base64url>` with `bytes` random bytes. */
export function newToken(kind: TokenKind, bytes = 32): string {
  return `${TOKEN_PREFIXES[kind]}_${randomBytes(bytes).toString('base64url')}`;
}

/** A random (version 4) UUID: the ids the wire contract defines as UUIDs. */
export function newUuid(): string {
  return randomUUID();
}

/** `<slug>-<hex>` (`acme-health-3f9a2c1d`): readable in logs, unguessable enough not to enumerate. */
export function newSluggedId(slug: string, bytes = 4): string {
  return `${slug}-${randomBytes(bytes).toString('hex')}`;
}
