// Payments as the order service sees them: the gateway (an interface; the sandbox one keeps its
// ledger in memory like a processor would) plus a durable record of every authorisation and
// capture in `order_payments`. The record is what proves "one charge" across processes: its
// `claim` is unique, so one idempotency claim can never hold two authorisations.

import type { Clock } from '../../core/clock.ts';
import { AppError, conflict } from '../../core/errors.ts';
import type { Db } from '../../store/db.ts';
import type { CurrencyCode } from './domain/catalog.ts';
import type { Decline, PaymentGateway, RecalledAuthorization } from './domain/payment.ts';

export type AuthorizeInput = {
  developerId: string;
  /** One charge per claim: the Idempotency-Key's claim, or the new order's id without a key. */
  claim: string;
  amountCents: number;
  currency: CurrencyCode;
  paymentMethod: string;
};

export type AuthorizeOutcome = { ok: true; authorizationId: string } | { ok: false; decline: Decline };

export function createPaymentsStore(deps: { db: Db; gateway: PaymentGateway; clock: Clock }) {
  const { db, gateway, clock } = deps;

  return {
    async authorize(input: AuthorizeInput): Promise<AuthorizeOutcome> {
      const result = await gateway.authorize({
        amountCents: input.amountCents,
        currency: input.currency,
        payment: { payment_method: input.paymentMethod },
        idempotencyKey: input.claim,
      });
      // A decline holds no money, so there is nothing to record and nothing to undo.
      if (result.status === 'declined') return { ok: false, decline: result };
      const now = clock.now();
      const values = {
        id: result.authorization_id,
        developer_id: input.developerId,
        claim: input.claim,
        order_id: null,
        amount_cents: result.amount_cents,
        currency: result.currency,
        payment_method: input.paymentMethod,
        status: 'authorized' as const,
        created_at: now,
        captured_at: null,
        voided_at: null,
      };
      // A claim taken over from a crashed request replaces its abandoned authorisation; a captured
      // one, or one already bound to an order, means an order exists for the claim, and a second
      // charge must not happen.
      const row = await db
        .insertInto('order_payments')
        .values(values)
        .onConflict((oc) =>
          oc
            .column('claim')
            .doUpdateSet({ id: values.id, status: 'authorized', created_at: now, voided_at: null })
            .where('order_payments.status', '!=', 'captured')
            .where('order_payments.order_id', 'is', null),
        )
        .returning('id')
        .executeTakeFirst();
      if (!row)
        throw conflict('this order was already paid for; retry with the same Idempotency-Key to get it');
      return { ok: true, authorizationId: row.id };
    },

    /**
     * Binds the authorisation to its order inside the transaction that stores the order. The row
     * lock and the `authorized` check are what the payment sweeper races against: either the
     * order commits first (and the sweeper sees `order_id` set and leaves the payment alone), or the
     * sweeper voided it first (and this order must not be stored).
     */
    async attach(trx: Db, authorizationId: string, orderId: string): Promise<void> {
      const bound = await trx
        .updateTable('order_payments')
        .set({ order_id: orderId })
        .where('id', '=', authorizationId)
        .where('status', '=', 'authorized')
        .where('order_id', 'is', null)
        .executeTakeFirst();
      if (Number(bound.numUpdatedRows) !== 1) {
        throw new AppError(
          'service_unavailable',
          'the payment authorisation expired before the order could be stored; retry the request',
        );
      }
    },

    /** Captures once the order is stored; the durable record follows the gateway's answer. */
    async capture(authorizationId: string, orderId: string): Promise<boolean> {
      const result = await gateway.capture(authorizationId);
      if (result.status !== 'captured') return false;
      await db
        .updateTable('order_payments')
        .set({ status: 'captured', captured_at: clock.now(), order_id: orderId })
        .where('id', '=', authorizationId)
        .execute();
      return true;
    },

    /** Releases the hold when the order could not be stored: the caller is charged nothing. */
    async void(authorizationId: string): Promise<void> {
      await gateway.void(authorizationId);
      await db
        .updateTable('order_payments')
        .set({ status: 'voided', voided_at: clock.now() })
        .where('id', '=', authorizationId)
        .where('status', '=', 'authorized')
        .execute();
    },
  };
}

export type PaymentsStore = ReturnType<typeof createPaymentsStore>;

/** The durable record of an authorisation, as the sandbox gateway reads it back after a restart. */
export async function recallAuthorization(
  db: Db,
  authorizationId: string,
): Promise<RecalledAuthorization | undefined> {
  const row = await db
    .selectFrom('order_payments')
    .select(['amount_cents', 'currency', 'payment_method', 'status'])
    .where('id', '=', authorizationId)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    amount_cents: row.amount_cents,
    currency: row.currency as CurrencyCode,
    payment_method: row.payment_method,
    state: row.status,
  };
}
