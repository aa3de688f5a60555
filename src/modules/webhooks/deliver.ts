// The delivery worker. pg-boss hands it a batch of jobs (one job = one attempt of one event); it
// re-reads the events, sends the current ones concurrently, then records every outcome, the
// attempt log, the users' last_webhook_update, the destination's health and the next attempts in
// one transaction. A job that no longer matches its event (delivered meanwhile, replayed, dropped)
// is skipped, so a job run twice after a crash never schedules a second chain of retries.
import type { Job } from 'pg-boss';
import type { Logger } from 'pino';
import type { Clock } from '../../context.ts';
import type { SecretBox } from '../../crypto/secret-box.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Db } from '../../store/db.ts';
import { type DestinationRow, findDestinations, recordHealth } from './destination-repo.ts';
import type { DeliveryJob } from './outbox.ts';
import { SLOW_DELIVERY_QUEUE } from './outbox.ts';
import {
  applyOutcomes,
  type DeliverableEvent,
  type EventOutcome,
  findEventsForDelivery,
  findUserActivity,
  insertAttempts,
  type NewAttemptRow,
  pruneEvents,
  touchUsers,
} from './repo.ts';
import { classifyResponse, jitteredDelayMs, parseRetryAfter, scheduledDelayMs } from './retry-policy.ts';
import type { Sender } from './sender.ts';
import type { WebhookSettings } from './settings.ts';
import { buildDeliveryHeaders, signingSecretsAt } from './signing.ts';

export type Lane = 'main' | 'slow';

export type DeliveryEngineDeps = {
  db: Db;
  jobs: JobQueue;
  secretBox: SecretBox;
  clock: Clock;
  log: Logger;
  settings: WebhookSettings;
  sender: Sender;
  version: string;
};

/** How long a destination that answered slowly (or timed out) stays on the slow lane in this process. */
const SLOW_LANE_MS = 60_000;
const PRUNE_EVERY_MS = 10 * 60_000;
const PRUNE_BATCH = 5_000;

type Batch = {
  outcomes: EventOutcome[];
  attempts: Map<string, NewAttemptRow>;
  retries: Map<string, { data: DeliveryJob; options: { startAfter: number } }>;
  diverted: { data: DeliveryJob }[];
  health: Map<string, { successes: number; failures: number }>;
  deliveredUsers: Map<string, { eventId: string; at: Date }[]>;
};

export function createDeliveryEngine(deps: DeliveryEngineDeps) {
  const { db, clock, settings } = deps;
  const slowUntil = new Map<string, number>();
  let lastPrune = 0;

  /** The schedule's wait (scaled for tests), never shorter than the receiver's Retry-After. */
  function nextAttempt(failedTry: number, now: Date, retryAfter: string | null): { at: Date; delayMs: number } | null {
    const scheduled = scheduledDelayMs(failedTry);
    if (scheduled === null) return null;
    const delayMs = Math.max(jitteredDelayMs(scheduled) * settings.retryScale, parseRetryAfter(retryAfter, now) ?? 0);
    return { at: new Date(now.getTime() + delayMs), delayMs };
  }

  function secretsFor(destination: DestinationRow, now: Date): string[] {
    const previous =
      destination.webhook_secret_previous && destination.webhook_secret_rotated_at
        ? { secret: deps.secretBox.open(destination.webhook_secret_previous), rotatedAt: destination.webhook_secret_rotated_at }
        : null;
    return signingSecretsAt({ current: deps.secretBox.open(destination.webhook_secret), previous }, now);
  }

  async function attempt(batch: Batch, job: DeliveryJob, event: DeliverableEvent, destination: DestinationRow, secrets: string[]) {
    const url = destination.webhook_url ?? '';
    const attemptedAt = clock.now();
    const headers = buildDeliveryHeaders({
      id: event.id,
      timestamp: Math.floor(attemptedAt.getTime() / 1000),
      rawBody: event.body,
      secrets,
      version: deps.version,
      reference: event.reference,
    });
    const result = await deps.sender.send(url, destination.environment, headers, event.body);
    const finishedAt = clock.now();
    const verdict = classifyResponse(result.statusCode ?? result.failure ?? 'network_error');
    const next = verdict === 'retry' ? nextAttempt(job.t, finishedAt, result.retryAfter) : null;
    const status = verdict === 'retry' ? (next ? 'pending' : 'failed') : verdict;
    const error = result.error ?? (verdict === 'delivered' ? null : `HTTP ${result.statusCode}`);
    batch.outcomes.push({
      id: event.id,
      generation: job.g,
      status,
      attempted: true,
      nextAttemptAt: next?.at ?? null,
      statusCode: result.statusCode,
      error,
      at: finishedAt,
    });
    batch.attempts.set(event.id, {
      event_id: event.id,
      developer_id: event.developer_id,
      attempt: event.attempts + 1,
      url,
      attempted_at: attemptedAt,
      duration_ms: result.durationMs,
      status_code: result.statusCode,
      error,
      outcome: verdict === 'retry' && !next ? 'failed' : verdict,
      next_attempt_at: next?.at ?? null,
    });
    if (next) {
      batch.retries.set(event.id, {
        data: { e: event.id, g: job.g + 1, t: job.t + 1 },
        options: { startAfter: next.delayMs / 1000 },
      });
    }
    const health = batch.health.get(event.developer_id) ?? { successes: 0, failures: 0 };
    if (verdict === 'delivered') health.successes++;
    else health.failures++;
    batch.health.set(event.developer_id, health);
    if (verdict === 'delivered' && event.user_id) {
      const list = batch.deliveredUsers.get(event.user_id) ?? [];
      list.push({ eventId: event.id, at: finishedAt });
      batch.deliveredUsers.set(event.user_id, list);
    }
    if (result.failure === 'timeout' || result.durationMs > settings.slowAfterMs) {
      slowUntil.set(event.developer_id, Date.now() + SLOW_LANE_MS);
    } else if (verdict === 'delivered') {
      slowUntil.delete(event.developer_id);
    }
  }

  function settleWithoutAttempt(batch: Batch, job: DeliveryJob, event: DeliverableEvent, status: 'held' | 'dropped', reason: string) {
    const at = clock.now();
    batch.outcomes.push({ id: event.id, generation: job.g, status, attempted: false, nextAttemptAt: null, statusCode: null, error: reason, at });
  }

  /** Only the latest job for each event generation counts; anything else is a leftover of an earlier round. */
  async function currentWork(jobs: Job<DeliveryJob>[]) {
    const events = new Map((await findEventsForDelivery(db, [...new Set(jobs.map((job) => job.data.e))])).map((e) => [e.id, e]));
    const work = new Map<string, { job: DeliveryJob; event: DeliverableEvent }>();
    for (const { data } of jobs) {
      const event = events.get(data.e);
      if (event && event.status === 'pending' && event.generation === data.g) work.set(event.id, { job: data, event });
    }
    return [...work.values()];
  }

  async function deliver(jobs: Job<DeliveryJob>[], lane: Lane): Promise<void> {
    const t0 = performance.now();
    const work = await currentWork(jobs);
    const t1 = performance.now();
    if (work.length === 0) return;
    const destinations = await findDestinations(db, work.map(({ event }) => event.developer_id));
    const activity = await findUserActivity(
      db,
      work.flatMap(({ event }) => (event.is_data && event.user_id ? [event.user_id] : [])),
    );
    const batch: Batch = { outcomes: [], attempts: new Map(), retries: new Map(), diverted: [], health: new Map(), deliveredUsers: new Map() };
    const secrets = new Map<string, string[]>();
    const sends: Promise<void>[] = [];
    for (const { job, event } of work) {
      const destination = destinations.get(event.developer_id);
      if (!destination) continue;
      if (event.is_data && (!event.user_id || activity.get(event.user_id) !== true)) {
        const known = event.user_id ? activity.has(event.user_id) : false;
        settleWithoutAttempt(batch, job, event, 'dropped', known ? 'user inactive' : 'user deleted');
      } else if (!destination.webhook_url) {
        settleWithoutAttempt(batch, job, event, 'held', 'no webhook destination configured');
      } else if (destination.webhook_status === 'disabled') {
        settleWithoutAttempt(batch, job, event, 'held', 'webhook destination disabled');
      } else if (
        lane === 'main' &&
        (destination.webhook_consecutive_failures > 0 || (slowUntil.get(destination.id) ?? 0) > Date.now())
      ) {
        // A failing or slow receiver would hold this batch (and the healthy receivers in it) for up
        // to the timeout: its events go to the slow lane, whose workers only wait on such receivers.
        batch.diverted.push({ data: job });
      } else {
        let signing = secrets.get(destination.id);
        if (!signing) {
          signing = secretsFor(destination, clock.now());
          secrets.set(destination.id, signing);
        }
        sends.push(attempt(batch, job, event, destination, signing));
      }
    }
    const t2 = performance.now();
    await Promise.all(sends);
    const t3 = performance.now();
    await record(batch);
    const t4 = performance.now();
    if (process.env.WH_PROFILE) console.log(`batch ${jobs.length} load ${(t1-t0).toFixed(0)} prep ${(t2-t1).toFixed(0)} send ${(t3-t2).toFixed(0)} record ${(t4-t3).toFixed(0)}`);
    maybePrune();
  }

  async function record(batch: Batch) {
    await db.transaction().execute(async (trx) => {
      const applied = await applyOutcomes(trx, batch.outcomes);
      await insertAttempts(
        trx,
        [...batch.attempts.values()].filter((row) => applied.has(row.event_id)),
      );
      const touched = new Map<string, Date>();
      for (const [userId, deliveries] of batch.deliveredUsers) {
        for (const { eventId, at } of deliveries) {
          const previous = touched.get(userId);
          if (applied.has(eventId) && (!previous || previous < at)) touched.set(userId, at);
        }
      }
      await touchUsers(trx, touched);
      const at = clock.now();
      for (const [developerId, health] of batch.health) {
        await recordHealth(trx, developerId, {
          ...health,
          at,
          failingAfterMs: settings.failingAfterMs,
          disableAfterMs: settings.disableAfterMs,
        });
      }
      const retries = [...batch.retries].filter(([eventId]) => applied.has(eventId)).map(([, retry]) => retry);
      await deps.jobs.sendMany(SLOW_DELIVERY_QUEUE, [...retries, ...batch.diverted], trx);
    });
  }

  /** Retention runs in the workers, a bounded slice at a time, at most every ten minutes per process. */
  function maybePrune() {
    const now = Date.now();
    if (now - lastPrune < PRUNE_EVERY_MS) return;
    lastPrune = now;
    void prune().catch((error: unknown) => deps.log.warn({ err: error }, 'webhook retention prune failed'));
  }

  async function prune(): Promise<number> {
    const cutoff = new Date(clock.now().getTime() - settings.retentionMs);
    let total = 0;
    for (let round = 0; round < 20; round++) {
      const deleted = await pruneEvents(db, cutoff, PRUNE_BATCH);
      total += deleted;
      if (deleted < PRUNE_BATCH) break;
    }
    return total;
  }

  return { deliver, prune };
}

export type DeliveryEngine = ReturnType<typeof createDeliveryEngine>;
