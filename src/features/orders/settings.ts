import { ConfigError } from '../../core/config.ts';

/**
 * - `ORDER_SANDBOX_TIMERS` (`on` | `off`, default on): whether sandbox orders move forward on
 *   their own like a supplier would. Off leaves them to `simulate` (deterministic tests).
 * - `ORDER_SANDBOX_STEP_SECONDS` (decimal, optional): one delay for every sandbox step instead of
 *   the realistic per-step delays (about a minute to ship, one to two minutes between results).
 * - `ORDER_IDEMPOTENCY_TTL_HOURS` (default 24): how long an Idempotency-Key is remembered.
 * - `ORDER_CLAIM_LEASE_SECONDS` (default 60): how long a request's claim on an Idempotency-Key is
 *   honoured; after it, a retry with the same key takes over (the first request's process died).
 * - `ORDER_PAYMENT_GRACE_SECONDS` (default 300): how old an authorisation with no order must be
 *   before the sweeper voids it (or captures it, when its order was stored but not yet charged).
 */
export type OrderSettings = {
  sandboxTimers: boolean;
  stepSecondsOverride: number | undefined;
  idempotencyTtlMs: number;
  /** How long an in-flight claim is honoured before another request may take it over. */
  claimLeaseMs: number;
  /** How long an authorisation may wait for its order before the payment sweeper settles it. */
  paymentGraceMs: number;
};

export const DEFAULT_IDEMPOTENCY_TTL_HOURS = 24;
export const DEFAULT_CLAIM_LEASE_SECONDS = 60;
export const DEFAULT_PAYMENT_GRACE_SECONDS = 300;

function positiveSeconds(env: Readonly<Record<string, string | undefined>>, name: string, fallback: number) {
  const raw = env[name];
  const seconds = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new ConfigError(`${name} must be a positive number of seconds, got "${raw}"`);
  }
  return seconds;
}

export function loadOrderSettings(env: Readonly<Record<string, string | undefined>>): OrderSettings {
  const timers = (env.ORDER_SANDBOX_TIMERS ?? 'on').toLowerCase();
  if (!['on', 'off', 'true', 'false', '1', '0'].includes(timers)) {
    throw new ConfigError(`ORDER_SANDBOX_TIMERS must be on or off, got "${env.ORDER_SANDBOX_TIMERS}"`);
  }
  const step = env.ORDER_SANDBOX_STEP_SECONDS;
  let stepSecondsOverride: number | undefined;
  if (step !== undefined && step !== '') {
    stepSecondsOverride = Number(step);
    if (!Number.isFinite(stepSecondsOverride) || stepSecondsOverride < 0) {
      throw new ConfigError(`ORDER_SANDBOX_STEP_SECONDS must be a number of seconds >= 0, got "${step}"`);
    }
  }
  const ttl = env.ORDER_IDEMPOTENCY_TTL_HOURS;
  const ttlHours = ttl === undefined || ttl === '' ? DEFAULT_IDEMPOTENCY_TTL_HOURS : Number(ttl);
  if (!Number.isFinite(ttlHours) || ttlHours <= 0) {
    throw new ConfigError(`ORDER_IDEMPOTENCY_TTL_HOURS must be a positive number, got "${ttl}"`);
  }
  return {
    sandboxTimers: ['on', 'true', '1'].includes(timers),
    stepSecondsOverride,
    idempotencyTtlMs: ttlHours * 3_600_000,
    claimLeaseMs: positiveSeconds(env, 'ORDER_CLAIM_LEASE_SECONDS', DEFAULT_CLAIM_LEASE_SECONDS) * 1000,
    paymentGraceMs: positiveSeconds(env, 'ORDER_PAYMENT_GRACE_SECONDS', DEFAULT_PAYMENT_GRACE_SECONDS) * 1000,
  };
}
