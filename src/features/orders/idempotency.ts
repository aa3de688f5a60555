// Idempotency-Key for order creation, kept in the database so every API process sees one truth.
//
// A request with a key first *claims* it (INSERT ... ON CONFLICT DO NOTHING: exactly one
// concurrent request wins). The winner runs the create and, in the same transaction that stores
// the order, records the response; a declined payment or a failure deletes the claim so a retry
// starts afresh. Everyone else sees the row: an identical request gets the stored response
// replayed (or 409 while it is still in flight), a different request under the same key gets 409.
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { conflict, invalidParameter } from '../../core/errors.ts';
import type { Db } from '../../store/db.ts';
import { newClaim } from './ids.ts';

export type StoredResponse = { status: number; body: unknown };

export type ClaimOutcome =
  | { kind: 'claimed'; claim: string }
  | { kind: 'replay'; response: StoredResponse }
  | { kind: 'conflict'; reason: 'in_flight' | 'different_request' };

export const MAX_KEY_LENGTH = 255;

/** Printable ASCII up to 255 characters, as the wire allows; anything else is a client bug worth a 400. */
export function parseIdempotencyKey(raw: string | string[] | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (value === undefined || value === '') throw invalidParameter('Idempotency-Key', 'must not be empty');
  if (value.length > MAX_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(value)) {
    throw invalidParameter('Idempotency-Key', `expected 1 to ${MAX_KEY_LENGTH} printable ASCII characters`);
  }
  return value;
}

/** JSON with object keys sorted at every depth: bodies that differ only in key order or spacing match. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, member]) => `${JSON.stringify(key)}:${canonicalJson(member)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function requestHash(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method.toUpperCase()} ${path}\n${canonicalJson(body)}`)
    .digest('hex');
}

function outcomeOf(
  row: { request_hash: string; status: string; response_status: number | null; response_body: unknown },
  hash: string,
): ClaimOutcome {
  if (row.request_hash !== hash) return { kind: 'conflict', reason: 'different_request' };
  if (row.status !== 'completed' || row.response_status === null)
    return { kind: 'conflict', reason: 'in_flight' };
  return { kind: 'replay', response: { status: row.response_status, body: row.response_body } };
}

/** The live record for a key, if any: lets a replay or a 409 skip validation and payment entirely. */
export async function lookupKey(
  db: Db,
  developerId: string,
  key: string,
  hash: string,
  now: Date,
): Promise<ClaimOutcome | undefined> {
  const row = await db
    .selectFrom('idempotency_keys')
    .select(['request_hash', 'status', 'response_status', 'response_body', 'locked_until'])
    .where('developer_id', '=', developerId)
    .where('key', '=', key)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  if (!row) return undefined;
  // A stale claim of the same request is about to be taken over by `claimKey`.
  if (row.status === 'in_flight' && row.locked_until <= now && row.request_hash === hash) return undefined;
  return outcomeOf(row, hash);
}

export async function claimKey(
  db: Db,
  input: { developerId: string; key: string; hash: string; now: Date; ttlMs: number; leaseMs: number },
): Promise<ClaimOutcome> {
  const { developerId, key, hash, now } = input;
  const expiresAt = new Date(now.getTime() + input.ttlMs);
  const lockedUntil = new Date(now.getTime() + input.leaseMs);
  const inserted = await db
    .insertInto('idempotency_keys')
    .values({
      developer_id: developerId,
      key,
      request_hash: hash,
      claim: newClaim(),
      status: 'in_flight',
      response_status: null,
      response_body: null,
      locked_until: lockedUntil,
      created_at: now,
      expires_at: expiresAt,
    })
    .onConflict((oc) => oc.columns(['developer_id', 'key']).doNothing())
    .returning('claim')
    .executeTakeFirst();
  if (inserted) return { kind: 'claimed', claim: inserted.claim };

  // The row exists. It may be expired (the key is free again: a new claim token, so the old
  // order's unique claim does not collide), or an in-flight claim of this same request whose
  // process died (taken over with the same token, so the unique constraints still stop a
  // duplicate if the first process was merely slow).
  const takenOver = await db
    .updateTable('idempotency_keys')
    .set({
      request_hash: hash,
      claim: sql<string>`CASE WHEN expires_at <= ${now} THEN ${newClaim()} ELSE claim END`,
      status: 'in_flight',
      response_status: null,
      response_body: null,
      locked_until: lockedUntil,
      created_at: sql<Date>`CASE WHEN expires_at <= ${now} THEN ${now}::timestamptz ELSE created_at END`,
      expires_at: sql<Date>`CASE WHEN expires_at <= ${now} THEN ${expiresAt}::timestamptz ELSE expires_at END`,
    })
    .where('developer_id', '=', developerId)
    .where('key', '=', key)
    .where((eb) =>
      eb.or([
        eb('expires_at', '<=', now),
        eb.and([
          eb('status', '=', 'in_flight'),
          eb('locked_until', '<=', now),
          eb('request_hash', '=', hash),
        ]),
      ]),
    )
    .returning('claim')
    .executeTakeFirst();
  if (takenOver) return { kind: 'claimed', claim: takenOver.claim };

  const row = await db
    .selectFrom('idempotency_keys')
    .select(['request_hash', 'status', 'response_status', 'response_body'])
    .where('developer_id', '=', developerId)
    .where('key', '=', key)
    .executeTakeFirst();
  // Deleted between our statements (the winner's payment was declined): the caller may retry.
  if (!row) return { kind: 'conflict', reason: 'in_flight' };
  return outcomeOf(row, hash);
}

/** Stores the response in the transaction that stores the order: both commit or neither does. */
export async function completeKey(
  trx: Db,
  developerId: string,
  key: string,
  claim: string,
  response: StoredResponse,
): Promise<void> {
  const result = await trx
    .updateTable('idempotency_keys')
    .set({
      status: 'completed',
      response_status: response.status,
      response_body: JSON.stringify(response.body),
    })
    .where('developer_id', '=', developerId)
    .where('key', '=', key)
    .where('claim', '=', claim)
    .where('status', '=', 'in_flight')
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) {
    throw conflict(`Idempotency-Key "${key}" was taken over by another request; retry to get its result`);
  }
}

/** Forgets a claim whose request created nothing (declined, invalid, failed), so the key can be retried. */
export async function releaseKey(db: Db, developerId: string, key: string, claim: string): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('developer_id', '=', developerId)
    .where('key', '=', key)
    .where('claim', '=', claim)
    .where('status', '=', 'in_flight')
    .execute();
}

/** Expired keys are dead weight; each developer's are swept when it next uses a key. */
export async function sweepExpiredKeys(db: Db, developerId: string, now: Date): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('developer_id', '=', developerId)
    .where('expires_at', '<=', now)
    .execute();
}

export function conflictFor(reason: 'in_flight' | 'different_request', key: string) {
  return reason === 'in_flight'
    ? conflict(`a request with Idempotency-Key "${key}" is still in flight; retry once it has finished`)
    : conflict(
        `Idempotency-Key "${key}" was already used with a different request body; use a new key for a new order`,
      );
}
