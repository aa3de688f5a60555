import { randomBytes } from 'node:crypto';

/**
 * Every prefixed id the service mints, in one table, so a prefix says what an id is at a glance
 * (in logs, support tickets, webhook payloads) and two kinds never share one. Ids that the wire
 * contract defines as UUIDs (users, widget and auth sessions) are plain UUIDs instead.
 */
export const ID_PREFIXES = {
  request: 'req',
  apiKey: 'key',
  webhookEvent: 'evt',
  idempotencyClaim: 'clm',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

/** `<prefix>_<hex>` with `bytes` random bytes (96 bits by default). */
export function newId(kind: IdKind, bytes = 12): string {
  return `${ID_PREFIXES[kind]}_${randomBytes(bytes).toString('hex')}`;
}
