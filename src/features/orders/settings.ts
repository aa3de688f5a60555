// The lab-order feature's settings (declared here, parsed once at boot by core/settings.ts).
import { Type } from 'typebox';
import { ConfigError, customSetting, defineSettings, numberSetting } from '../../core/settings.ts';

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

const positiveSeconds = (fallback: number, description: string) =>
  numberSetting({
    description,
    default: fallback,
    exclusiveMinimum: 0,
    problem: 'must be a positive number of seconds',
  });

export const orderSettings = defineSettings({
  id: 'orders',
  owner: 'features/orders',
  intro: ['Lab orders.'],
  settings: {
    ORDER_IDEMPOTENCY_TTL_HOURS: numberSetting({
      description: 'How long an Idempotency-Key is remembered, in hours.',
      default: DEFAULT_IDEMPOTENCY_TTL_HOURS,
      exclusiveMinimum: 0,
      problem: 'must be a positive number',
    }),
    ORDER_SANDBOX_TIMERS: customSetting({
      description:
        'Whether sandbox orders move forward on their own like a supplier would (on | off); off leaves them to `simulate` (deterministic tests).',
      schema: Type.Boolean({ default: true }),
      example: 'on',
      parse: (raw) => {
        const timers = (raw ?? 'on').toLowerCase();
        if (!['on', 'off', 'true', 'false', '1', '0'].includes(timers)) {
          throw new ConfigError(`ORDER_SANDBOX_TIMERS must be on or off, got "${raw}"`);
        }
        return ['on', 'true', '1'].includes(timers);
      },
    }),
    ORDER_SANDBOX_STEP_SECONDS: numberSetting({
      description:
        'One delay, in seconds, for every sandbox step instead of the realistic per-step delays (about a minute to ship, one to two between results).',
      default: undefined,
      minimum: 0,
      problem: 'must be a number of seconds >= 0',
    }),
    ORDER_CLAIM_LEASE_SECONDS: positiveSeconds(
      DEFAULT_CLAIM_LEASE_SECONDS,
      "How long a request's claim on an Idempotency-Key is honoured; after it, a retry with the same key takes over (the first request's process died).",
    ),
    ORDER_PAYMENT_GRACE_SECONDS: positiveSeconds(
      DEFAULT_PAYMENT_GRACE_SECONDS,
      'How old an authorisation with no order must be before the sweeper (every minute and at worker start-up) voids it, or captures it when its order was stored but not yet charged.',
    ),
  },
  build: (v): OrderSettings => ({
    sandboxTimers: v.ORDER_SANDBOX_TIMERS,
    stepSecondsOverride: v.ORDER_SANDBOX_STEP_SECONDS,
    idempotencyTtlMs: v.ORDER_IDEMPOTENCY_TTL_HOURS * 3_600_000,
    claimLeaseMs: v.ORDER_CLAIM_LEASE_SECONDS * 1000,
    paymentGraceMs: v.ORDER_PAYMENT_GRACE_SECONDS * 1000,
  }),
});
