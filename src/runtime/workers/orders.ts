// The orders feature's queues: sandbox timers, and the payment sweeper (every minute, and once at
// worker start-up so authorisations a crash left behind are settled without waiting for the cron).
import type { AppContext } from '../../features/context.ts';
import { PAYMENT_SWEEP_QUEUE } from '../../features/orders/payment-sweeper.ts';
import { defineSandboxTimers } from '../../features/orders/timers.ts';
import type { RecurringJob } from './recurring.ts';

export function defineOrderJobs(ctx: AppContext) {
  defineSandboxTimers({ jobs: ctx.jobs, db: ctx.db, log: ctx.log, apply: ctx.orders.applyStatusEvent });
  ctx.jobs.define({
    name: PAYMENT_SWEEP_QUEUE,
    options: { retryLimit: 2, retryDelay: 30, expireInSeconds: 10 * 60 },
    handler: async () => {
      await ctx.orders.sweepPayments();
    },
  });
}

export function orderRecurringJobs(): RecurringJob[] {
  return [{ queue: PAYMENT_SWEEP_QUEUE, schedule: '* * * * *', atStartup: true }];
}
