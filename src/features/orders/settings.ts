import { ConfigError } from '../../core/config.ts';

/**
 * - `ORDER_SANDBOX_TIMERS` (`on` | `off`, default on): whether sandbox orders move forward on
 *   their own like a supplier would. Off leaves them to `simulate` (deterministic tests).
 * - `ORDER_SANDBOX_STEP_SECONDS` (decimal, optional): one delay for every sandbox step instead of
 *   the realistic per-step delays (about a minute to ship, one to two minutes between results).
 * - `ORDER_IDEMPOTENCY_TTL_HOURS` (default 24): how long an Idempotency-Key is remembered.
 */
export type OrderSettings = {
  sandboxTimers: boolean;
  stepSecondsOverride: number | undefined;
  idempotencyTtlMs: number;
  /** How long an in-flight claim is honoured before another request may take it over. */
  claimLeaseMs: number;
};

export const DEFAULT_IDEMPOTENCY_TTL_HOURS = 24;

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
    claimLeaseMs: 60_000,
  };
}
