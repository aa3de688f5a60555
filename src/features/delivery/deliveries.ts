// The delivery log as developers see it: one destination's deliveries newest first, each with its
// event and its attempts, paged with an opaque cursor (base64url JSON of the last row's position,
// so the format can change freely).
import { invalidParameter } from '../../core/errors.ts';
import { readDateTime } from '../../model/calendar.ts';
import { wireDateTime } from '../../model/time.ts';
import type { Db } from '../../store/db.ts';
import type { AttemptOutcome, WebhookEventStatus } from './tables.ts';
import { WEBHOOK_EVENT_STATUSES } from './tables.ts';

export type DeliveryFilters = {
  status?: string;
  type?: string;
  userId?: string;
  /** One event (the dashboard's event page). */
  eventId?: string;
  since?: string;
  cursor?: string;
  limit?: number;
  /** Whose log: the webhook's (unset or null) or one other destination's. */
  destinationId?: string | null;
};

export type AttemptRecord = {
  attempt: number;
  url: string;
  attemptedAt: Date;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  outcome: AttemptOutcome;
  nextAttemptAt: Date | null;
};

export type DeliveryRecord = {
  eventId: string;
  type: string;
  userId: string | null;
  reference: string | null;
  status: WebhookEventStatus;
  attemptCount: number;
  createdAt: Date;
  updatedAt: Date;
  deliveredAt: Date | null;
  nextAttemptAt: Date | null;
  lastStatusCode: number | null;
  lastError: string | null;
  attempts: AttemptRecord[];
};

export type DeliveryPage = { deliveries: DeliveryRecord[]; nextCursor: string | null };

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

export function encodeCursor(seq: number): string {
  return Buffer.from(JSON.stringify({ s: seq }), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): number {
  try {
    if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) throw new Error('not base64url');
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { s?: unknown };
    if (typeof parsed.s === 'number' && Number.isSafeInteger(parsed.s) && parsed.s > 0) return parsed.s;
  } catch {
    // Falls through to the one error below: a cursor is either ours and intact, or invalid.
  }
  throw invalidParameter('cursor', 'not a cursor returned by this endpoint');
}

/** An ISO 8601 date-time with a time and an offset or Z, on a real calendar date (no 2026-02-30). */
export function parseSince(since: string): Date {
  const reading = readDateTime(since, { requireOffset: true });
  if (!reading) throw invalidParameter('since', 'expected ISO 8601 date-time');
  return new Date(reading.ms);
}

export function parseStatus(status: string): WebhookEventStatus {
  const found = WEBHOOK_EVENT_STATUSES.find((candidate) => candidate === status);
  if (!found) throw invalidParameter('status', `expected one of ${WEBHOOK_EVENT_STATUSES.join(', ')}`);
  return found;
}

export async function listDeliveries(
  db: Db,
  developerId: string,
  filters: DeliveryFilters,
): Promise<DeliveryPage> {
  const limit = filters.limit ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw invalidParameter('limit', `expected an integer from 1 to ${MAX_PAGE_SIZE}`);
  }
  const status = filters.status === undefined ? undefined : parseStatus(filters.status);
  const since = filters.since === undefined ? undefined : parseSince(filters.since);
  const before = filters.cursor === undefined ? undefined : decodeCursor(filters.cursor);

  let query = db
    .selectFrom('deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .select([
      'd.id',
      'd.seq',
      'e.id as event_id',
      'e.type',
      'e.user_id',
      'e.reference',
      'd.status',
      'd.attempts',
      'd.created_at',
      'd.updated_at',
      'd.delivered_at',
      'd.next_attempt_at',
      'd.last_status_code',
      'd.last_error',
      'd.first_attempt_at',
      'd.first_attempt_url',
      'd.first_attempt_ms',
      'd.first_attempt_status',
    ])
    .where('d.developer_id', '=', developerId)
    .where('d.destination_id', filters.destinationId ? '=' : 'is', filters.destinationId ?? null)
    .orderBy('d.seq', 'desc')
    .limit(limit + 1);
  if (status) query = query.where('d.status', '=', status);
  if (filters.type) query = query.where('e.type', '=', filters.type);
  if (filters.userId) query = query.where('e.user_id', '=', filters.userId);
  if (filters.eventId) query = query.where('d.event_id', '=', filters.eventId);
  if (since) query = query.where('d.created_at', '>=', since);
  if (before !== undefined) query = query.where('d.seq', '<', before);
  const rows = await query.execute();
  const page = rows.slice(0, limit);

  const attempts = page.length
    ? await db
        .selectFrom('delivery_attempts')
        .select([
          'delivery_id',
          'attempt',
          'url',
          'attempted_at',
          'duration_ms',
          'status_code',
          'error',
          'outcome',
          'next_attempt_at',
        ])
        .where(
          'delivery_id',
          'in',
          page.map((row) => row.id),
        )
        .orderBy('delivery_id')
        .orderBy('attempted_at')
        .orderBy('attempt')
        .execute()
    : [];
  const byDelivery = new Map<string, AttemptRecord[]>();
  for (const row of attempts) {
    const list = byDelivery.get(row.delivery_id) ?? [];
    list.push({
      attempt: row.attempt,
      url: row.url,
      attemptedAt: row.attempted_at,
      durationMs: row.duration_ms,
      statusCode: row.status_code,
      error: row.error,
      outcome: row.outcome,
      nextAttemptAt: row.next_attempt_at,
    });
    byDelivery.set(row.delivery_id, list);
  }
  // A first attempt that succeeded is kept on its delivery's row (migration 0053): listed with the
  // rows, in the order the query above gives them (attempted_at, then attempt).
  for (const row of page) {
    if (row.first_attempt_at === null) continue;
    const first: AttemptRecord = {
      attempt: 1,
      url: row.first_attempt_url ?? '',
      attemptedAt: row.first_attempt_at,
      durationMs: row.first_attempt_ms ?? 0,
      statusCode: row.first_attempt_status,
      error: null,
      outcome: 'delivered',
      nextAttemptAt: null,
    };
    const list = byDelivery.get(row.id);
    if (!list) {
      byDelivery.set(row.id, [first]);
      continue;
    }
    const at = first.attemptedAt.getTime();
    const after = list.findIndex(
      (other) =>
        other.attemptedAt.getTime() > at || (other.attemptedAt.getTime() === at && other.attempt > 1),
    );
    list.splice(after === -1 ? list.length : after, 0, first);
  }

  const last = page.at(-1);
  return {
    deliveries: page.map((row) => ({
      eventId: row.event_id,
      type: row.type,
      userId: row.user_id,
      reference: row.reference,
      status: row.status,
      attemptCount: row.attempts,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      deliveredAt: row.delivered_at,
      nextAttemptAt: row.next_attempt_at,
      lastStatusCode: row.last_status_code,
      lastError: row.last_error,
      attempts: byDelivery.get(row.id) ?? [],
    })),
    nextCursor: rows.length > limit && last ? encodeCursor(last.seq) : null,
  };
}

const wireOrNull = (at: Date | null) => (at ? wireDateTime(at) : null);

/** A delivery as the API shows it (the webhook's and every destination's delivery log). */
export function toWireDelivery(record: DeliveryRecord) {
  return {
    event_id: record.eventId,
    type: record.type,
    user_id: record.userId,
    reference: record.reference,
    status: record.status,
    attempt_count: record.attemptCount,
    created_at: wireDateTime(record.createdAt),
    updated_at: wireDateTime(record.updatedAt),
    delivered_at: wireOrNull(record.deliveredAt),
    next_attempt_at: wireOrNull(record.nextAttemptAt),
    last_status_code: record.lastStatusCode,
    last_error: record.lastError,
    attempts: record.attempts.map((attempt) => ({
      attempt: attempt.attempt,
      url: attempt.url,
      attempted_at: wireDateTime(attempt.attemptedAt),
      duration_ms: attempt.durationMs,
      status_code: attempt.statusCode,
      error: attempt.error,
      outcome: attempt.outcome,
      next_attempt_at: wireOrNull(attempt.nextAttemptAt),
    })),
  };
}
