// Data access for a delivery's outcomes: the new state of each delivery after an attempt
// (`deliveries`) and the attempt log (`delivery_attempts`), written together as one statement per
// batch, because the delivery engine writes thousands of outcomes a second. A first attempt that
// succeeded (nearly every attempt) is kept on the delivery's row instead of as a row of its own
// (migration 0053; the delivery log lists it with the rows, deliveries.ts). No index names a column
// such an outcome changes, so it is a HOT update: a new version of the row on its page, no index
// entry written (migration 0054).
import { CompiledQuery } from 'kysely';
import type { Db } from '../../store/db.ts';
import {
  booleanArrayLiteral,
  nullableTextArrayLiteral,
  numberArrayLiteral,
} from '../../store/array-literals.ts';
import { textArrayLiteral } from '../../store/text-array.ts';
import type { AttemptOutcome, WebhookEventStatus } from './tables.ts';

/** One attempt that went over the wire, for the attempt log. */
export type AttemptRecord = {
  developerId: string;
  number: number;
  url: string;
  attemptedAt: Date;
  durationMs: number;
  outcome: AttemptOutcome;
};

/** The new state of one delivery after an attempt (`attempt` set), or after it was held or dropped without one. */
export type EventOutcome = {
  id: string;
  /** The generation the job was for: a row that moved on meanwhile is left alone. */
  generation: number;
  status: WebhookEventStatus;
  nextAttemptAt: Date | null;
  statusCode: number | null;
  error: string | null;
  at: Date;
  attempt: AttemptRecord | null;
};

/**
 * How soon after its delivery was created a first attempt must be made to be kept on the row: the
 * healthcheck counts kept attempts through the deliveries created in its two hours and this much
 * before them (`attemptsPerHour`, through an index the outcome does not change, so the outcome is a
 * HOT update: migration 0054). A first attempt made later (after a hold, a long outage) is a row.
 */
export const KEPT_WITHIN_MINUTES = 15;
const KEEP = `v.kept AND e.created_at >= v.attempted_at - interval '${KEPT_WITHIN_MINUTES} minutes'`;

/**
 * The outcome write's one statement, its text fixed (one array parameter per column, $1 the
 * delivery ids), so no query builder runs per wave. Timestamps go as epoch milliseconds (float8),
 * which cost less to print and to parse than ISO text. Deliberately not a prepared (named)
 * statement: a generic plan does not see the ids array, and a plan that scans deliveries instead
 * of finding the wave's rows by primary key costs O(backlog) per write (bench/FINDINGS.md, issue
 * 44 third pass); the database CPU per outcome was the same either way (bench/delivery-statements.ts).
 */
const RECORD_OUTCOMES = `
    WITH v (id, generation, status, attempted, next_attempt_at, status_code, error, at,
            developer_id, attempt, url, attempted_at, duration_ms, outcome, kept) AS (
      SELECT u.id, u.generation, u.status, u.attempted, to_timestamp(u.next_ms / 1000), u.status_code,
        u.error, to_timestamp(u.at_ms / 1000), u.developer_id, u.attempt, u.url,
        to_timestamp(u.attempted_ms / 1000), u.duration_ms, u.outcome, u.kept
      FROM unnest($1::text[], $2::int[], $3::text[], $4::boolean[], $5::float8[], $6::int[], $7::text[],
        $8::float8[], $9::text[], $10::int[], $11::text[], $12::float8[], $13::int[], $14::text[],
        $15::boolean[])
        AS u (id, generation, status, attempted, next_ms, status_code, error, at_ms, developer_id, attempt,
          url, attempted_ms, duration_ms, outcome, kept)),
    updated AS (
      UPDATE deliveries AS e SET
        status = v.status,
        generation = e.generation + 1,
        attempts = e.attempts + CASE WHEN v.attempted THEN 1 ELSE 0 END,
        next_attempt_at = v.next_attempt_at,
        last_status_code = CASE WHEN v.attempted THEN v.status_code ELSE e.last_status_code END,
        last_error = v.error,
        delivered_at = CASE WHEN v.status = 'delivered' THEN v.at ELSE e.delivered_at END,
        held_at = CASE WHEN v.status = 'held' THEN v.at END,
        updated_at = v.at,
        first_attempt_at = CASE WHEN ${KEEP} THEN v.attempted_at ELSE e.first_attempt_at END,
        first_attempt_url = CASE WHEN ${KEEP} THEN v.url ELSE e.first_attempt_url END,
        first_attempt_ms = CASE WHEN ${KEEP} THEN v.duration_ms ELSE e.first_attempt_ms END,
        first_attempt_status = CASE WHEN ${KEEP} THEN v.status_code ELSE e.first_attempt_status END
      FROM v
      -- The rows are found by primary key, from the ids as one array. (Written with IS TRUE, the
      -- pending test could not use the stuck sweeper's partial index of pending deliveries, which a
      -- planner with stale statistics took, hash-joining every pending delivery to the wave: O(backlog)
      -- per write. That index is gone (0054); the form stays so no index on status ever tempts it.)
      WHERE e.id = any($1::text[]) AND e.id = v.id AND e.generation = v.generation
        AND (e.status = 'pending') IS TRUE
        -- Hold only while the destination still says so: a URL set (and held events released)
        -- after this batch read the destination must not leave the event held with nobody to
        -- release it. The caller sends such an event again instead.
        AND (v.status <> 'held' OR NOT EXISTS (
          SELECT 1 FROM webhook_destinations AS d
          WHERE (CASE WHEN e.destination_id IS NULL
                   THEN d.developer_id = e.developer_id AND d.kind = 'webhook' AND NOT d.secondary
                   ELSE d.id = e.destination_id END)
            AND d.url IS NOT NULL AND d.status <> 'disabled'
            AND d.suspended_at IS NULL))
      RETURNING e.id, ${KEEP} AS kept),
    logged AS (
      INSERT INTO delivery_attempts (delivery_id, developer_id, attempt, url, attempted_at, duration_ms, status_code,
        error, outcome, next_attempt_at)
      SELECT v.id, v.developer_id, v.attempt, v.url, v.attempted_at, v.duration_ms, v.status_code, v.error,
        v.outcome, v.next_attempt_at
      FROM v JOIN updated ON updated.id = v.id
      WHERE v.attempted AND NOT updated.kept)`;

/** The ids of the deliveries updated (still pending at the job's generation). */
const RETURN_IDS = `${RECORD_OUTCOMES}
    SELECT id FROM updated`;
/**
 * Only how many: a wave that needs no ids (everything delivered, nothing else to write) is spared
 * a row per outcome to send, parse and collect (~100 a statement).
 */
const RETURN_COUNT = `${RECORD_OUTCOMES}
    SELECT count(*)::int AS updated FROM updated`;

/**
 * Whether an attempt is kept on its delivery's row rather than logged as a row: the delivery's
 * first, and it succeeded, so all the log shows of it besides these columns is fixed (attempt 1,
 * `delivered`, no error, no next attempt). The generation check makes `number` the row's: an
 * attempt's number is the attempts its delivery had when the batch read it, plus one, and they
 * change only with the generation. The statement keeps it only when it was made within
 * KEPT_WITHIN_MINUTES of the delivery's creation, which it alone reads.
 */
function keptOnRow(outcome: EventOutcome, attempt: AttemptRecord): boolean {
  return (
    attempt.number === 1 &&
    attempt.outcome === 'delivered' &&
    outcome.status === 'delivered' &&
    outcome.error === null &&
    outcome.nextAttemptAt === null
  );
}

/**
 * Applies outcomes and logs their attempts in one statement; returns the ids actually updated
 * (still pending at the generation the job was for). An attempt is logged only with its update,
 * so the log and the event never disagree, and the attempt's delivery exists (no foreign key
 * checks it per row any more: migration 0050). A first attempt that succeeded is kept on the row
 * (`keptOnRow`).
 */
export async function recordOutcomes(db: Db, outcomes: readonly EventOutcome[]): Promise<Set<string>> {
  if (outcomes.length === 0) return new Set();
  const result = await db.executeQuery<{ id: string }>(
    CompiledQuery.raw(RETURN_IDS, outcomeColumns(outcomes)),
  );
  const applied = new Set<string>();
  for (const row of result.rows) applied.add(row.id);
  return applied;
}

/** `recordOutcomes` for a caller that needs only how many deliveries were updated. */
export async function recordOutcomesCounted(db: Db, outcomes: readonly EventOutcome[]): Promise<number> {
  if (outcomes.length === 0) return 0;
  const result = await db.executeQuery<{ updated: number }>(
    CompiledQuery.raw(RETURN_COUNT, outcomeColumns(outcomes)),
  );
  return result.rows[0]?.updated ?? 0;
}

/** The statement's parameters: one array literal per column. */
function outcomeColumns(outcomes: readonly EventOutcome[]): string[] {
  // The columns in one pass, each sent as one array literal built here (store/array-literals.ts).
  const count = outcomes.length;
  const ids = new Array<string>(count);
  const generations = new Array<number>(count);
  const statuses = new Array<string>(count);
  const attempted = new Array<boolean>(count);
  const nextAttemptMs = new Array<number | null>(count);
  const statusCodes = new Array<number | null>(count);
  const errors = new Array<string | null>(count);
  const atMs = new Array<number>(count);
  const developerIds = new Array<string | null>(count);
  const attemptNumbers = new Array<number | null>(count);
  const urls = new Array<string | null>(count);
  const attemptedAtMs = new Array<number | null>(count);
  const durations = new Array<number | null>(count);
  const attemptOutcomes = new Array<string | null>(count);
  const kept = new Array<boolean>(count);
  for (let index = 0; index < count; index++) {
    const outcome = outcomes[index]!;
    const attempt = outcome.attempt;
    ids[index] = outcome.id;
    generations[index] = outcome.generation;
    statuses[index] = outcome.status;
    attempted[index] = attempt !== null;
    nextAttemptMs[index] = outcome.nextAttemptAt ? outcome.nextAttemptAt.getTime() : null;
    statusCodes[index] = outcome.statusCode;
    errors[index] = outcome.error;
    atMs[index] = outcome.at.getTime();
    developerIds[index] = attempt ? attempt.developerId : null;
    attemptNumbers[index] = attempt ? attempt.number : null;
    urls[index] = attempt ? attempt.url : null;
    attemptedAtMs[index] = attempt ? attempt.attemptedAt.getTime() : null;
    durations[index] = attempt ? attempt.durationMs : null;
    attemptOutcomes[index] = attempt ? attempt.outcome : null;
    kept[index] = attempt !== null && keptOnRow(outcome, attempt);
  }
  return [
    textArrayLiteral(ids),
    numberArrayLiteral(generations),
    textArrayLiteral(statuses),
    booleanArrayLiteral(attempted),
    numberArrayLiteral(nextAttemptMs),
    numberArrayLiteral(statusCodes),
    nullableTextArrayLiteral(errors),
    numberArrayLiteral(atMs),
    nullableTextArrayLiteral(developerIds),
    numberArrayLiteral(attemptNumbers),
    nullableTextArrayLiteral(urls),
    numberArrayLiteral(attemptedAtMs),
    numberArrayLiteral(durations),
    nullableTextArrayLiteral(attemptOutcomes),
    booleanArrayLiteral(kept),
  ];
}
