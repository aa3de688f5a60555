// Sandbox orders move forward on their own, like a real supplier's would: durable pg-boss jobs,
// enqueued in the transaction of the change that makes them due, each carrying the version of the
// order or item it was planned for. A simulate call that moves the order first bumps the version,
// so the old job finds itself stale and does nothing; the change that superseded it planned its own.
import type { Job } from 'pg-boss';
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.ts';
import { AppError } from '../../core/errors.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Db } from '../../store/db.ts';
import {
  nextSandboxOrderStep,
  nextSandboxResultsStep,
  orderIsReadyToComplete,
} from './domain/sandbox-timeline.ts';
import type { ChangeOutcome, StatusChange } from './status-change.ts';
import type { ItemRow, OrderRow } from './repo.ts';
import type { OrderSettings } from './settings.ts';

export const SANDBOX_STEP_QUEUE = 'orders.sandbox-step';

export type StepJob = { orderId: string; itemId?: string; version: number; event: string };

/** The lab reports the order complete a little after the last result, not at the same instant. */
const COMPLETION_DELAY_SECONDS = 30;

export async function scheduleNextSteps(
  deps: { jobs: JobQueue; clock: Clock; settings: OrderSettings },
  trx: Db,
  order: OrderRow,
  items: readonly ItemRow[],
  changed: { orderChanged: boolean; changedItems: readonly ItemRow[] },
): Promise<void> {
  const now = deps.clock.now().getTime();
  const at = (seconds: number) => new Date(now + (deps.settings.stepSecondsOverride ?? seconds) * 1000);
  const steps: { data: StepJob; options: { startAfter: Date } }[] = [];

  // Production has no simulated supplier; only confirming the payment captured at creation is ours.
  if (order.environment === 'production') {
    if (changed.orderChanged && order.status === 'order.payment_processing') {
      steps.push({
        data: { orderId: order.id, version: order.version, event: 'payment_complete' },
        options: { startAfter: new Date(now) },
      });
    }
  } else if (deps.settings.sandboxTimers) {
    const orderStep = changed.orderChanged ? nextSandboxOrderStep(order.status) : undefined;
    if (orderStep) {
      steps.push({
        data: { orderId: order.id, version: order.version, event: orderStep.event },
        options: { startAfter: at(orderStep.delaySeconds) },
      });
    }
    for (const item of changed.changedItems) {
      const step = nextSandboxResultsStep(item.results_status);
      if (!step) continue;
      steps.push({
        data: { orderId: order.id, itemId: item.id, version: item.version, event: step.event },
        options: { startAfter: at(step.delaySeconds) },
      });
    }
    const settledNow = orderIsReadyToComplete(
      order.status,
      items.map((item) => item.results_status),
    );
    if (settledNow && (changed.orderChanged || changed.changedItems.length > 0)) {
      steps.push({
        data: { orderId: order.id, version: order.version, event: 'completed' },
        options: { startAfter: at(COMPLETION_DELAY_SECONDS) },
      });
    }
  }
  await deps.jobs.sendMany(SANDBOX_STEP_QUEUE, steps, trx);
}

export function defineSandboxTimers(deps: {
  jobs: JobQueue;
  db: Db;
  log: Logger;
  apply: (trx: Db, change: StatusChange) => Promise<ChangeOutcome>;
}): void {
  deps.jobs.define({
    name: SANDBOX_STEP_QUEUE,
    options: {
      retryLimit: 5,
      retryDelay: 5,
      retryBackoff: true,
      expireInSeconds: 60,
      deleteAfterSeconds: 3600,
    },
    work: { batchSize: 10, pollingIntervalSeconds: 1 },
    handler: async (jobs: Job<StepJob>[]) => {
      for (const job of jobs) {
        const { orderId, itemId, version, event } = job.data;
        try {
          await deps.db.transaction().execute((trx) =>
            deps.apply(trx, {
              orderId,
              event,
              source: 'timer',
              expectVersion: version,
              ...(itemId ? { orderItemId: itemId } : {}),
            }),
          );
        } catch (error) {
          // A refused move (the order was cancelled, deleted, ...) is final; retrying cannot help.
          if (!(error instanceof AppError)) throw error;
          deps.log.info({ orderId, itemId, event, detail: error.message }, 'sandbox step no longer applies');
        }
      }
    },
  });
}

// The queues this module owns, with their payloads (see jobs/queues.ts).
declare module '../../jobs/queues.ts' {
  interface QueuePayloads {
    [SANDBOX_STEP_QUEUE]: StepJob;
  }
}
