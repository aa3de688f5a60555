import type { AppContext } from '../../features/context.ts';
import { defineSandboxTimers } from '../../features/orders/timers.ts';

export function defineOrderJobs(ctx: AppContext) {
  defineSandboxTimers({ jobs: ctx.jobs, db: ctx.db, log: ctx.log, apply: ctx.orders.applyStatusEvent });
}
