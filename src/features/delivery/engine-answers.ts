// What an attempt's answers mean, noted in a wave for the next write: each event's outcome and
// attempt log entry, its next attempt (the retry schedule, never sooner than the receiver's
// Retry-After) or its failure, the destination's health counts and its slow-lane marking, and the
// user a webhook delivery was about. Events settled without a request (held, dropped) are noted
// here too. Separate from sending (engine-send.ts) and from writing (engine-record.ts): these are
// the retry and hold decisions.
import type { Clock } from '../../core/clock.ts';
import { type DestinationRow, routeKey, WEBHOOK_KIND } from './destination-repo.ts';
import type { Answer } from './engine-send.ts';
import type { Sink, Wave, Work } from './engine-work.ts';
import type { KindConnection } from './kinds/kind.ts';
import { jitteredDelayMs, parseRetryAfter, scheduledDelayMs } from './retry-policy.ts';
import type { WebhookSettings } from './settings.ts';

/** How long a destination that answered slowly (or timed out) stays on the slow lane in this process. */
const SLOW_LANE_MS = 60_000;

export function createAttempts(deps: {
  clock: Clock;
  settings: WebhookSettings;
  send: (
    works: readonly Work[],
    destination: DestinationRow,
    connection: KindConnection,
  ) => Promise<Answer[]>;
  /** By route key (destination-repo.ts `routeKey`): until when each destination takes the slow lane here. */
  slowUntil: Map<string, number>;
  /** Where a detached attempt's answers go (engine-detached.ts). */
  detached: { wave: Wave };
}) {
  const { clock, settings, send, slowUntil, detached } = deps;

  /** The schedule's wait (scaled for tests), never shorter than the receiver's Retry-After. */
  function nextAttempt(
    failedTry: number,
    now: Date,
    retryAfter: string | null,
  ): { at: Date; delayMs: number } | null {
    const scheduled = scheduledDelayMs(failedTry);
    if (scheduled === null) return null;
    const delayMs = Math.max(
      jitteredDelayMs(scheduled) * settings.retryScale,
      parseRetryAfter(retryAfter, now) ?? 0,
    );
    return { at: new Date(now.getTime() + delayMs), delayMs };
  }

  /**
   * Sends one attempt (of one event, or of a batch of one destination's events); its outcomes go
   * into whichever wave `sink` holds when the answer comes (the engine's own, `detached`, once its
   * batch stopped waiting for it). True when every event was delivered.
   */
  async function attempt(
    sink: Sink,
    works: readonly Work[],
    destination: DestinationRow,
    connection: KindConnection,
  ): Promise<boolean> {
    const route = routeKey(works[0]!.event);
    const attemptedAt = clock.now();
    const answers = await send(works, destination, connection);
    const finishedAt = clock.now();
    const wave = sink.detached ? detached.wave : sink.wave;
    let delivered = 0;
    let slow = false;
    for (let index = 0; index < works.length; index++) {
      const answer = answers[index]!;
      recordAnswer(wave, works[index]!, destination, answer, attemptedAt, finishedAt);
      if (answer.verdict === 'delivered') delivered++;
      if (answer.timedOut || answer.durationMs > settings.slowAfterMs) slow = true;
    }
    const health = wave.health.get(destination.id);
    if (health) {
      health.successes += delivered;
      health.failures += works.length - delivered;
    } else {
      wave.health.set(destination.id, { successes: delivered, failures: works.length - delivered });
    }
    if (slow) {
      slowUntil.set(route, Date.now() + SLOW_LANE_MS);
    } else if (delivered > 0) {
      slowUntil.delete(route);
    }
    return delivered === works.length;
  }

  /** One event's answer as its outcome, attempt log entry, retry and delivered user in `wave`. */
  function recordAnswer(
    wave: Wave,
    work: Work,
    destination: DestinationRow,
    answer: Answer,
    attemptedAt: Date,
    finishedAt: Date,
  ) {
    const { event } = work;
    const { verdict } = answer;
    const next = verdict === 'retry' ? nextAttempt(work.try, finishedAt, answer.retryAfter) : null;
    const status = verdict === 'retry' ? (next ? 'pending' : 'failed') : verdict;
    wave.outcomes.push({
      id: event.id,
      generation: work.generation,
      status,
      nextAttemptAt: next?.at ?? null,
      statusCode: answer.statusCode,
      error: answer.error,
      at: finishedAt,
      attempt: {
        developerId: event.developer_id,
        number: event.attempts + 1,
        url: destination.url ?? '',
        attemptedAt,
        durationMs: answer.durationMs,
        outcome: verdict === 'retry' && !next ? 'failed' : verdict,
      },
    });
    if (next) {
      wave.retries.set(event.id, {
        data: { events: [[event.id, work.generation + 1]], try: work.try + 1 },
        options: { startAfter: next.delayMs / 1000 },
      });
    }
    // `last_webhook_update` and the like are about the webhook.
    if (verdict === 'delivered' && event.user_id && destination.kind === WEBHOOK_KIND)
      wave.deliveredUsers.push({ eventId: event.id, userId: event.user_id, at: finishedAt });
  }

  function settle(wave: Wave, work: Work, status: 'held' | 'dropped', reason: string) {
    wave.outcomes.push({
      id: work.event.id,
      generation: work.generation,
      status,
      nextAttemptAt: null,
      statusCode: null,
      error: reason,
      at: clock.now(),
      attempt: null,
    });
  }

  return { attempt, settle };
}
