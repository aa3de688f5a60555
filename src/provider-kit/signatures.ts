// Checks for inbound provider notifications: HMACs over the raw body compared in constant
// time, timestamp freshness, and the verification token Tributary hands providers when it
// subscribes (derived from the service key, so every process knows it without storing it).
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Config } from '../core/config.ts';
import { providerKitSettings } from './settings.ts';

/** Equal strings, compared in time independent of where they differ (and of their lengths). */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = createHash('sha256').update(a).digest();
  const right = createHash('sha256').update(b).digest();
  return timingSafeEqual(left, right) && a.length === b.length;
}

/** Whether `provided` is the HMAC of `message` under `key`, in the provider's encoding. */
export function hmacMatches(input: {
  key: string;
  message: Buffer;
  provided: string | string[] | undefined;
  encoding: 'hex' | 'base64';
  /** Hex providers differ in letter case (some send upper case). */
  ignoreCase?: boolean;
}): boolean {
  if (typeof input.provided !== 'string' || input.provided === '') return false;
  const expected = createHmac('sha256', input.key).update(input.message).digest(input.encoding);
  return input.ignoreCase
    ? constantTimeEqual(expected.toLowerCase(), input.provided.trim().toLowerCase())
    : constantTimeEqual(expected, input.provided.trim());
}

/** Signed notifications older than this are refused as replays. */
export const NOTIFICATION_TOLERANCE_MS = 5 * 60_000;

/**
 * A signed timestamp no older than the tolerance and not in the future: a stamp ahead of our
 * clock cannot come from a provider sending now, and would stretch a replay's window.
 */
export function isFresh(timestampMs: number, now: Date, toleranceMs = NOTIFICATION_TOLERANCE_MS): boolean {
  if (!Number.isFinite(timestampMs)) return false;
  const age = now.getTime() - timestampMs;
  return age >= 0 && age <= toleranceMs;
}

/** A header's single value (providers never repeat these). */
export const headerOf = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value[0] : value;

/** The token Tributary gives a provider to echo in its subscription handshakes. */
export function verifyTokenFor(config: Config, providerId: string): string {
  const configured = config.settings.forProvider(providerKitSettings, providerId).verifyToken;
  if (configured) return configured;
  return createHmac('sha256', config.encryptionKey)
    .update(`tributary provider webhook verification:${providerId}`)
    .digest('base64url')
    .slice(0, 32);
}
