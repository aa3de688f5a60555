// What a crash during order creation leaves behind, and how it is settled: the Idempotency-Key's
// claim lapses after its lease (a retry then creates the order, charging once), and the payment
// sweeper voids an authorisation that never got its order, or captures one whose order was stored
// but never charged. The crash is reproduced by running the first half of a creation (claim the
// key, authorise) against the database and stopping there, as a killed process would; the
// process-level version (kill -9 mid-burst) is test/integration/fault-crash.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AppContext } from '../../src/runtime/context.ts';
import { CURRENCY } from '../../src/features/orders/domain/catalog.ts';
import { SandboxPaymentGateway } from '../../src/features/orders/domain/payment.ts';
import * as idem from '../../src/features/orders/idempotency.ts';
import { createPaymentsStore, recallAuthorization } from '../../src/features/orders/payments-store.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { api, orderBody } from '../helpers/orders.ts';

const LEASE_SECONDS = 60;
const GRACE_SECONDS = 300;

/** The service's clock: real time plus an offset the tests move forward. */
let offsetMs = 0;
const clock = { now: () => new Date(Date.now() + offsetMs) };
const advance = (seconds: number) => {
  offsetMs += seconds * 1000;
};

let service: TestService;
let developer: TestDeveloper;

before(async () => {
  service = await startTestService({
    env: {
      ORDER_SANDBOX_TIMERS: 'off',
      ORDER_CLAIM_LEASE_SECONDS: String(LEASE_SECONDS),
      ORDER_PAYMENT_GRACE_SECONDS: String(GRACE_SECONDS),
    },
    clock,
    // The sweeper is called directly: a scheduled run must not race the assertions.
    work: false,
  });
  developer = await createDeveloper(service.ctx, { orderApi: true });
});

after(async () => {
  await service?.close();
});

/**
 * The first half of `POST /api/v1/orders` as a process that dies right after authorising runs it:
 * the key claimed (when given), the payment authorised at the processor and recorded, no order.
 * The processor is a gateway of its own, as a real one outlives the process that called it.
 */
async function crashAfterAuthorising(ctx: AppContext, body: Record<string, unknown>, key?: string) {
  const now = clock.now();
  let claim = `crashed-${Math.random().toString(36).slice(2)}`;
  if (key) {
    const outcome = await idem.claimKey(ctx.db, {
      developerId: developer.devId,
      key,
      hash: idem.requestHash('POST', '/api/v1/orders', body),
      now,
      ttlMs: 24 * 3_600_000,
      leaseMs: LEASE_SECONDS * 1000,
    });
    assert.equal(outcome.kind, 'claimed');
    if (outcome.kind === 'claimed') claim = outcome.claim;
  }
  const payments = createPaymentsStore({
    db: ctx.db,
    gateway: new SandboxPaymentGateway({ recall: (id) => recallAuthorization(ctx.db, id) }),
    clock,
  });
  const authorized = await payments.authorize({
    developerId: developer.devId,
    claim,
    amountCents: 9800,
    currency: CURRENCY.USD,
    paymentMethod: 'pm_sandbox_approve',
  });
  assert.ok(authorized.ok);
  return authorized.authorizationId;
}

const payment = (id: string) =>
  service.ctx.db.selectFrom('order_payments').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

const orphans = async () =>
  (
    await service.ctx.db
      .selectFrom('order_payments')
      .select('id')
      .where('developer_id', '=', developer.devId)
      .where('status', '=', 'authorized')
      .where('order_id', 'is', null)
      .execute()
  ).length;

const post = (body: Record<string, unknown>, key: string) =>
  api(service, developer, 'POST', '/api/v1/orders', body, { 'Idempotency-Key': key });

describe('an order creation that crashed', () => {
  it('is retried with its Idempotency-Key once the claim lease has passed, and charged once', async () => {
    const body = orderBody({ client_order_reference_id: 'retry-after-crash' });
    const authorizationId = await crashAfterAuthorising(service.ctx, body, 'crash-retry-1');

    const early = await post(body, 'crash-retry-1');
    assert.equal(early.status, 409, 'while the lease runs, the claim may still belong to a live request');

    advance(LEASE_SECONDS + 1);
    const retried = await post(body, 'crash-retry-1');
    assert.equal(retried.status, 201, JSON.stringify(retried.body));
    const orderId = String(retried.body.order_id);

    // The takeover kept the claim, so the processor handed back the same authorisation.
    const settled = await payment(authorizationId);
    assert.equal(settled.status, 'captured');
    assert.equal(settled.order_id, orderId);
    const again = await post(body, 'crash-retry-1');
    assert.equal(again.status, 201);
    assert.equal(again.body.order_id, orderId, 'a replay answers with the same order');
    const orders = await service.ctx.db
      .selectFrom('orders')
      .select('id')
      .where('developer_id', '=', developer.devId)
      .where('client_order_reference_id', '=', 'retry-after-crash')
      .execute();
    assert.equal(orders.length, 1);
  });

  it('leaves an authorisation alone while it is younger than the grace period', async () => {
    const authorizationId = await crashAfterAuthorising(service.ctx, orderBody());
    advance(GRACE_SECONDS - 10);
    const outcome = await service.ctx.orders.sweepPayments();
    assert.equal(outcome.voided, 0);
    assert.equal((await payment(authorizationId)).status, 'authorized');
    advance(20);
    assert.equal((await service.ctx.orders.sweepPayments()).voided, 1);
    assert.equal((await payment(authorizationId)).status, 'voided');
  });

  it('has its orphaned authorisation voided after the grace period, and the key can be used again', async () => {
    const body = orderBody({ client_order_reference_id: 'swept-then-retried' });
    const authorizationId = await crashAfterAuthorising(service.ctx, body, 'crash-swept-1');
    advance(GRACE_SECONDS + 1);

    const outcome = await service.ctx.orders.sweepPayments();
    assert.deepEqual(outcome, { voided: 1, captured: 0, inFlight: 0, failed: 0 });
    const voided = await payment(authorizationId);
    assert.equal(voided.status, 'voided');
    assert.ok(voided.voided_at);
    assert.equal(await orphans(), 0);

    // The stale claim went with it: a retry claims the key afresh and is charged under a new claim.
    const retried = await post(body, 'crash-swept-1');
    assert.equal(retried.status, 201, JSON.stringify(retried.body));
    const charged = await service.ctx.db
      .selectFrom('order_payments')
      .select(['id', 'status'])
      .where('order_id', '=', String(retried.body.order_id))
      .execute();
    assert.equal(charged.length, 1);
    assert.notEqual(charged[0]?.id, authorizationId);
    assert.equal(charged[0]?.status, 'captured');
    assert.equal((await payment(authorizationId)).status, 'voided', 'the old authorisation stays voided');
  });

  it('does not void an authorisation whose claim a live request still holds', async () => {
    const body = orderBody({ client_order_reference_id: 'slow-request' });
    const authorizationId = await crashAfterAuthorising(service.ctx, body, 'crash-live-1');
    advance(GRACE_SECONDS + 1);
    // A retry took the claim over (renewing its lease) and is about to store the order.
    await service.ctx.db
      .updateTable('idempotency_keys')
      .set({ locked_until: new Date(clock.now().getTime() + LEASE_SECONDS * 1000) })
      .where('developer_id', '=', developer.devId)
      .where('key', '=', 'crash-live-1')
      .execute();
    const outcome = await service.ctx.orders.sweepPayments();
    assert.equal(outcome.inFlight, 1);
    assert.equal(outcome.voided, 0);
    assert.equal((await payment(authorizationId)).status, 'authorized');
    advance(LEASE_SECONDS + 1);
    assert.equal((await service.ctx.orders.sweepPayments()).voided, 1);
  });

  it('has the payment of an order stored but never charged captured', async () => {
    const created = await post(orderBody({ client_order_reference_id: 'stored-not-captured' }), 'stored-1');
    assert.equal(created.status, 201);
    const orderId = String(created.body.order_id);
    // The state a process killed between committing the order and capturing leaves behind.
    await service.ctx.db
      .updateTable('order_payments')
      .set({ status: 'authorized', captured_at: null })
      .where('order_id', '=', orderId)
      .execute();
    advance(GRACE_SECONDS + 1);
    const outcome = await service.ctx.orders.sweepPayments();
    assert.equal(outcome.captured, 1);
    assert.equal(outcome.voided, 0);
    const [row] = await service.ctx.db
      .selectFrom('order_payments')
      .select(['status', 'captured_at'])
      .where('order_id', '=', orderId)
      .execute();
    assert.equal(row?.status, 'captured');
    assert.ok(row?.captured_at);
  });

  it('is settled after a restart too: the processor is asked about authorisations this process never saw', async () => {
    const authorizationId = await crashAfterAuthorising(service.ctx, orderBody());
    advance(GRACE_SECONDS + 1);
    // The service's own gateway has no ledger entry for it (another "process" authorised it).
    const outcome = await service.ctx.orders.sweepPayments();
    assert.equal(outcome.voided, 1);
    assert.equal(outcome.failed, 0);
    assert.equal((await payment(authorizationId)).status, 'voided');
  });
});
