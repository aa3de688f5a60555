import { randomBytes, randomInt } from 'node:crypto';
import { newId } from '../../core/ids.ts';

/**
 * Order, item, recipient, test-taker and event ids are 64-bit snowflakes sent as JSON strings
 * (docs/wire-contract.md#order-api-conventions): 41 bits of milliseconds since 2024-01-01, 10 bits of a
 * per-process random node id, 12 bits of sequence. They sort by creation time, which keyset pagination
 * relies on for ties.
 */
const EPOCH_MS = Date.UTC(2024, 0, 1);
const NODE_ID = BigInt(randomInt(0, 1024));
let lastMs = 0;
let sequence = 0;

export function newSnowflake(now: number = Date.now()): string {
  let ms = Math.max(now - EPOCH_MS, lastMs);
  if (ms === lastMs) {
    sequence = (sequence + 1) & 0xfff;
    // 4,096 ids in one millisecond: borrow the next millisecond rather than repeat an id.
    if (sequence === 0) ms += 1;
  } else {
    sequence = 0;
  }
  lastMs = ms;
  return ((BigInt(ms) << 22n) | (NODE_ID << 12n) | BigInt(sequence)).toString();
}

/** Canonical decimal form only, so "007" and "7" never name the same order. */
export const isSnowflake = (value: string): boolean =>
  /^[1-9]\d{0,19}$/.test(value) && BigInt(value) < 2n ** 63n;

// Crockford base32 without I, L, O, U: nothing a test taker can misread when typing a kit id.
const KIT_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * The kit id printed on the box and encoded in its QR code. Activation needs nothing else, so it
 * is a bearer secret: 80 random bits, in groups of four for typing.
 */
export function newKitId(): string {
  const bytes = randomBytes(16);
  let text = '';
  for (const byte of bytes) text += KIT_ALPHABET[byte & 31];
  return `KIT-${text.match(/.{4}/g)?.join('-')}`;
}

/** Normalises what a person typed: case, spaces and the optional prefix do not matter. */
export function normalizeKitId(raw: string): string | undefined {
  const compact = raw.toUpperCase().replace(/[\s-]/g, '').replace(/^KIT/, '');
  if (!/^[0-9A-HJKMNP-TV-Z]{16}$/.test(compact)) return undefined;
  return `KIT-${compact.match(/.{4}/g)?.join('-')}`;
}

export function newTrackingNumber(): string {
  return `TRB${randomBytes(8).toString('hex').toUpperCase()}`;
}

export const newClaim = (): string => newId('idempotencyClaim');
