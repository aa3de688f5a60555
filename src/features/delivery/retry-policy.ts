// When to try a webhook delivery again, and when to stop. Pure: the delivery engine records
// attempts and asks this module what each outcome means and when the next attempt is due.

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** A receiver gets this long to answer one attempt. */
export const DELIVERY_TIMEOUT_MS = 10 * SECOND;

/**
 * The published schedule: the wait before retry n (attempt n + 1). Attempt 1 is immediate.
 * Short steps first absorb blips and deploys; long steps later ride out outages. The waits sum to
 * 23 h 36 min 5 s, so with jitter and the last attempt's own timeout retries span about a day.
 */
export const RETRY_DELAYS_MS: readonly number[] = [
  5 * SECOND,
  1 * MINUTE,
  5 * MINUTE,
  30 * MINUTE,
  1 * HOUR,
  2 * HOUR,
  4 * HOUR,
  8 * HOUR,
  8 * HOUR,
];

/** First attempt plus one per scheduled retry. */
export const MAX_DELIVERY_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/**
 * Each wait is scaled by a random factor in [1 - ratio, 1 + ratio], so receivers that failed
 * together (one outage, many events) are not hit again by the whole backlog at the same instant.
 */
export const RETRY_JITTER_RATIO = 0.2;

/** Bounds for a receiver's Retry-After: at least a second, and never more than an hour of our queue. */
export const RETRY_AFTER_MIN_MS = 1 * SECOND;
export const RETRY_AFTER_MAX_MS = 1 * HOUR;

export type DeliveryOutcome = 'delivered' | 'retry' | 'rejected';

/**
 * Failures where no HTTP status came back.
 * - network_error: DNS failure, refused or reset connection, TLS failure: usually transient.
 * - timeout: no complete answer within DELIVERY_TIMEOUT_MS.
 * - destination_blocked: the destination resolved to a forbidden address at send time.
 */
export type DeliveryFailureKind = 'network_error' | 'timeout' | 'destination_blocked';

/**
 * What one attempt's result means.
 * 2xx delivered. 408, 429, 5xx and network errors or timeouts are retried. Everything else is
 * rejected without retry: other 4xx are the receiver refusing this payload, and 3xx is rejected too
 * because redirects are not followed (a redirect could point at an address the destination policy
 * forbids), so the same request would get the same answer again. A blocked destination is a policy
 * decision, not a transient failure.
 */
export function classifyResponse(statusOrFailure: number | DeliveryFailureKind): DeliveryOutcome {
  if (statusOrFailure === 'destination_blocked') return 'rejected';
  if (typeof statusOrFailure === 'string') return 'retry';
  const status = statusOrFailure;
  if (status >= 200 && status <= 299) return 'delivered';
  if (status === 408 || status === 429 || (status >= 500 && status <= 599)) return 'retry';
  if (status >= 300 && status <= 499) return 'rejected';
  // 1xx as a final answer or a code outside HTTP's range: a broken intermediary, worth another try.
  return 'retry';
}

const clampRetryAfter = (ms: number): number =>
  Math.min(RETRY_AFTER_MAX_MS, Math.max(RETRY_AFTER_MIN_MS, ms));

/**
 * Parses a Retry-After header, either delay-seconds or an HTTP date, into milliseconds from `now`,
 * clamped to [RETRY_AFTER_MIN_MS, RETRY_AFTER_MAX_MS]. Null when absent or unparseable.
 */
export function parseRetryAfter(value: string | null | undefined, now: Date): number | null {
  const text = value?.trim();
  if (!text) return null;
  if (/^\d+$/.test(text)) return clampRetryAfter(Number(text) * SECOND);
  // Only day-name-first forms are HTTP dates (IMF-fixdate, RFC 850, asctime); Date.parse alone would
  // accept things like "1.5" or "2024" and turn them into nonsense instants.
  if (!/^[A-Za-z]{3,9},? /.test(text)) return null;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return clampRetryAfter(at - now.getTime());
}

/** The scheduled wait after attempt `failedAttempt` failed, before jitter; null once attempts are used up. */
export function scheduledDelayMs(failedAttempt: number): number | null {
  if (!Number.isInteger(failedAttempt) || failedAttempt < 1) {
    throw new RangeError('failedAttempt counts from 1');
  }
  return RETRY_DELAYS_MS[failedAttempt - 1] ?? null;
}

export function jitteredDelayMs(delayMs: number, random: () => number = Math.random): number {
  const factor = 1 - RETRY_JITTER_RATIO + 2 * RETRY_JITTER_RATIO * random();
  return Math.round(delayMs * factor);
}

/**
 * When to make the next attempt after attempt number `failedAttempt` (1-based) failed with a
 * retryable outcome, or null to give up. A Retry-After from the receiver is a floor: we never
 * come back sooner than asked, but a short Retry-After does not burn through the schedule either,
 * so the retries still span about a day.
 */
export function nextAttemptAt(
  failedAttempt: number,
  now: Date,
  retryAfterMs?: number | null,
  random: () => number = Math.random,
): Date | null {
  const delay = scheduledDelayMs(failedAttempt);
  if (delay === null) return null;
  const jittered = jitteredDelayMs(delay, random);
  const floor = retryAfterMs == null ? 0 : clampRetryAfter(retryAfterMs);
  return new Date(now.getTime() + Math.max(jittered, floor));
}

/** The schedule as offsets from the first attempt, without jitter, for documentation and tests. */
export function retryScheduleOffsetsMs(): number[] {
  const offsets = [0];
  let total = 0;
  for (const delay of RETRY_DELAYS_MS) {
    total += delay;
    offsets.push(total);
  }
  return offsets;
}

/**
 * Maps an error thrown by the HTTP client to a failure kind. Timeouts come from AbortSignal.timeout
 * (TimeoutError) or socket timeouts; a blocked destination is flagged by the destination policy.
 */
export function deliveryFailureKind(error: unknown): DeliveryFailureKind {
  // node:http wraps the signal's reason (an AbortError whose cause is the TimeoutError), so walk a
  // few levels of `cause`; bounded because cause chains can be cyclic.
  let current = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const { name, code, cause } = current as { name?: unknown; code?: unknown; cause?: unknown };
    if (code === 'ERR_WEBHOOK_DESTINATION_BLOCKED') return 'destination_blocked';
    if (name === 'TimeoutError' || code === 'ETIMEDOUT' || code === 'ESOCKETTIMEDOUT') return 'timeout';
    current = cause;
  }
  return 'network_error';
}
