// Settles authorisations that a crashed request left behind. Order creation authorises, stores the
// order (binding the payment to it in the same transaction) and then captures; a process that dies
// between those steps leaves either an authorisation with no order (money held for nothing) or an
// order whose payment was never captured. Both are found here once they are older than the grace
// period, which is far longer than any request takes, and settled: the first voided, the second
// captured. Runs every minute and at worker start-up (runtime/workers/orders.ts); any number of
// workers may run it at once, because every decision is a conditional update of the payment row.
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.ts';
import type { Db } from '../../store/db.ts';
import type { PaymentGateway } from './domain/payment.ts';
import type { NoPayload } from '../../jobs/queues.ts';

export const PAYMENT_SWEEP_QUEUE = 'orders.sweep-payments';

export type PaymentSweepDeps = { db: Db; gateway: PaymentGateway; clock: Clock; log: Logger };

export type PaymentSweepOutcome = {
  /** Authorisations with no order, released. */
  voided: number;
  /** Authorisations whose order was stored but not charged, captured. */
  captured: number;
  /** Left alone: a request still holds the Idempotency-Key claim they were made for. */
  inFlight: number;
  /** The gateway refused to settle them (logged for an operator; retried on the next pass). */
  failed: number;
};

/** Rows settled per statement; a pass loops until nothing old is left. */
const PAGE = 100;

export async function sweepPayments(deps: PaymentSweepDeps, graceMs: number): Promise<PaymentSweepOutcome> {
  const outcome: PaymentSweepOutcome = { voided: 0, captured: 0, inFlight: 0, failed: 0 };
  const cutoff = new Date(deps.clock.now().getTime() - graceMs);
  await voidOrphans(deps, cutoff, outcome);
  await captureStoredOrders(deps, cutoff, outcome);
  if (outcome.voided + outcome.captured + outcome.failed > 0) {
    deps.log.warn(
      { ...outcome },
      'settled payment authorisations left behind by interrupted order creations',
    );
  }
  return outcome;
}

async function voidOrphans(deps: PaymentSweepDeps, cutoff: Date, outcome: PaymentSweepOutcome) {
  const skipped = new Set<string>();
  for (;;) {
    const candidates = await deps.db
      .selectFrom('order_payments as p')
      .select(['p.id', 'p.developer_id', 'p.claim'])
      .where('p.status', '=', 'authorized')
      .where('p.order_id', 'is', null)
      .where('p.created_at', '<=', cutoff)
      // Orders stored before payments were bound to them in the order's transaction.
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('orders').select('orders.id').whereRef('orders.payment_id', '=', 'p.id'))),
      )
      .$if(skipped.size > 0, (query) => query.where('p.id', 'not in', [...skipped]))
      .orderBy('p.created_at')
      .limit(PAGE)
      .execute();
    if (candidates.length === 0) return;
    for (const payment of candidates) {
      const released = await releaseOrphan(deps, payment);
      if (released === 'in_flight') {
        skipped.add(payment.id);
        outcome.inFlight += 1;
        continue;
      }
      if (released === 'gone') {
        skipped.add(payment.id);
        continue;
      }
      // The record says voided from here on; the processor is told afterwards (voiding is
      // idempotent there, and a hold we fail to release lapses at the processor by itself).
      const result = await deps.gateway.void(payment.id);
      if (result.status === 'failed' && result.reason === 'already_captured') {
        outcome.failed += 1;
        deps.log.error(
          { authorizationId: payment.id, developerId: payment.developer_id },
          'an authorisation with no order was already captured at the processor: refund it by hand',
        );
      } else {
        outcome.voided += 1;
      }
    }
  }
}

/**
 * Marks one orphan voided, unless a request still owns its claim. A stale claim (its lease has
 * run out: the request that held it is gone) is forgotten in the same transaction, so a retry
 * with the same Idempotency-Key starts afresh rather than taking over a claim whose authorisation
 * was just voided.
 */
async function releaseOrphan(
  deps: PaymentSweepDeps,
  payment: { id: string; developer_id: string; claim: string },
): Promise<'voided' | 'in_flight' | 'gone'> {
  return deps.db.transaction().execute(async (trx) => {
    const now = deps.clock.now();
    const key = await trx
      .selectFrom('idempotency_keys')
      .select(['key', 'status', 'locked_until'])
      .where('developer_id', '=', payment.developer_id)
      .where('claim', '=', payment.claim)
      .forUpdate()
      .executeTakeFirst();
    if (key && (key.status === 'completed' || key.locked_until > now)) return 'in_flight';
    if (key) {
      await trx
        .deleteFrom('idempotency_keys')
        .where('developer_id', '=', payment.developer_id)
        .where('key', '=', key.key)
        .where('claim', '=', payment.claim)
        .execute();
    }
    const voided = await trx
      .updateTable('order_payments')
      .set({ status: 'voided', voided_at: now })
      .where('id', '=', payment.id)
      .where('status', '=', 'authorized')
      .where('order_id', 'is', null)
      .executeTakeFirst();
    return Number(voided.numUpdatedRows) === 1 ? 'voided' : 'gone';
  });
}

async function captureStoredOrders(deps: PaymentSweepDeps, cutoff: Date, outcome: PaymentSweepOutcome) {
  const failedIds = new Set<string>();
  for (;;) {
    const candidates = await deps.db
      .selectFrom('order_payments as p')
      .innerJoin('orders', 'orders.payment_id', 'p.id')
      .select(['p.id', 'orders.id as order_id', 'p.developer_id'])
      .where('p.status', '=', 'authorized')
      .where('p.created_at', '<=', cutoff)
      .$if(failedIds.size > 0, (query) => query.where('p.id', 'not in', [...failedIds]))
      .orderBy('p.created_at')
      .limit(PAGE)
      .execute();
    if (candidates.length === 0) return;
    for (const payment of candidates) {
      const result = await deps.gateway.capture(payment.id);
      if (result.status !== 'captured') {
        failedIds.add(payment.id);
        outcome.failed += 1;
        deps.log.error(
          { authorizationId: payment.id, orderId: payment.order_id, reason: result.reason },
          'could not capture the payment of a stored order',
        );
        continue;
      }
      await deps.db
        .updateTable('order_payments')
        .set({ status: 'captured', captured_at: deps.clock.now(), order_id: payment.order_id })
        .where('id', '=', payment.id)
        .where('status', '=', 'authorized')
        .execute();
      outcome.captured += 1;
    }
  }
}

// The queues this module owns, with their payloads (see jobs/queues.ts).
declare module '../../jobs/queues.ts' {
  interface QueuePayloads {
    [PAYMENT_SWEEP_QUEUE]: NoPayload;
  }
}
