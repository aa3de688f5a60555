// The webhook engine's recurring work: the sweeper that queues again a pending event whose delivery
// job was lost (a batch that ran out of the queue's retries during a database outage leaves its
// events pending with no job), and the scheduled healthcheck to every destination that can
// receive it, with the contract's integer figures.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { AppContext } from '../../src/runtime/context.ts';
import { healthcheckEnvelope, buildHealthcheckEvent } from '../../src/features/delivery/events.ts';
import { HEALTHCHECK_QUEUE, trendPercentage } from '../../src/features/delivery/healthcheck.ts';
import { STUCK_SWEEP_QUEUE } from '../../src/features/delivery/stuck-sweeper.ts';
import { DELIVERY_QUEUE } from '../../src/features/delivery/outbox.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { setUrl, waitForDelivery } from '../helpers/webhook-api.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

const STUCK_AFTER_MINUTES = 10;

let offsetMs = 0;
const clock = { now: () => new Date(Date.now() + offsetMs) };

let service: TestService;
let receiver: WebhookReceiver;
let developer: TestDeveloper;

before(async () => {
  receiver = await startWebhookReceiver();
  service = await startTestService({
    env: { WEBHOOK_STUCK_AFTER: `${STUCK_AFTER_MINUTES}m` },
    clock,
  });
  // The passes are called directly below; scheduled ones must not race the assertions.
  await service.ctx.jobs.boss().unschedule(STUCK_SWEEP_QUEUE);
  await service.ctx.jobs.boss().unschedule(HEALTHCHECK_QUEUE);
  developer = await createDeveloper(service.ctx);
  await setUrl(service, developer, receiver.url);
});

after(async () => {
  await service?.close();
  await receiver?.close();
});

const jobsSchema = (ctx: AppContext) => {
  const schema = ctx.store.postgres?.schema;
  return schema === undefined || schema === 'public' ? 'pgboss' : `${schema}_jobs`;
};

/**
 * An event as a lost job leaves it: stored and pending, and no delivery job for it. A single emit
 * leaves its first job to the outbox relay; clearing the event's mark in the emitting transaction
 * means no relay ever queues it, so no worker can fetch it.
 */
async function emitWithLostJob(ctx: AppContext, developerId: string): Promise<string> {
  return ctx.db.transaction().execute(async (trx) => {
    const event = buildHealthcheckEvent({
      createdAt: clock.now(),
      trendPercentage: 0,
      sentWebhooksLastHour: 0,
    });
    const id = await ctx.webhooks.emit(trx, developerId, healthcheckEnvelope(event));
    const cleared = await trx
      .updateTable('deliveries')
      .set({ awaiting_job: false })
      .where('event_id', '=', id)
      .where('awaiting_job', '=', true)
      .executeTakeFirst();
    assert.equal(Number(cleared.numUpdatedRows), 1, 'the event awaited its job and never gets one');
    const jobs = await sql`
      SELECT count(*)::int AS n FROM ${sql.raw(jobsSchema(ctx))}.job
      WHERE name = ${DELIVERY_QUEUE}
        AND data->'events'->0->>0 IN (SELECT id FROM deliveries WHERE event_id = ${id})`.execute(trx);
    assert.equal((jobs.rows[0] as { n: number }).n, 0, 'no delivery job was queued in the transaction');
    return id;
  });
}

const statusOf = async (id: string) =>
  (
    await service.ctx.db
      .selectFrom('deliveries')
      .select(['status', 'generation'])
      .where('event_id', '=', id)
      .executeTakeFirstOrThrow()
  ).status;

describe('stuck webhook events', () => {
  it('are left alone while their attempt is due less than WEBHOOK_STUCK_AFTER ago', async () => {
    const id = await emitWithLostJob(service.ctx, developer.devId);
    offsetMs += (STUCK_AFTER_MINUTES - 1) * 60_000;
    assert.equal(await service.ctx.webhooks.sweepStuckEvents(), 0);
    assert.equal(await statusOf(id), 'pending');
    assert.equal(receiver.byId(id).length, 0);

    offsetMs += 2 * 60_000;
    assert.equal(await service.ctx.webhooks.sweepStuckEvents(), 1);
    await waitForDelivery(service, developer, id, (delivery) => delivery.status === 'delivered', 'delivered');
    assert.equal(receiver.byId(id).length, 1, 'delivered once, with its own webhook-id');
  });

  it('are queued again as the next try of their round when a retry job was lost', async () => {
    const id = await emitWithLostJob(service.ctx, developer.devId);
    // As after two failed attempts whose next retry's job went missing.
    await service.ctx.db
      .updateTable('deliveries')
      .set({ attempts: 2, next_attempt_at: clock.now(), updated_at: clock.now() })
      .where('event_id', '=', id)
      .execute();
    offsetMs += (STUCK_AFTER_MINUTES + 1) * 60_000;
    assert.equal(await service.ctx.webhooks.sweepStuckEvents(), 1);
    const delivered = await waitForDelivery(
      service,
      developer,
      id,
      (delivery) => delivery.status === 'delivered',
      'delivered',
    );
    assert.equal(delivered.attempt_count, 3);
    assert.equal(await service.ctx.webhooks.sweepStuckEvents(), 0, 'nothing is left to sweep');
  });
});

describe('scheduled healthcheck', () => {
  it('goes to every destination that can receive it, once per pass, with integer figures', async () => {
    const disabled = await createDeveloper(service.ctx, { name: 'disabled destination' });
    await setUrl(service, disabled, receiver.url);
    await service.ctx.webhooks.setDestination(disabled.devId, { enabled: false });
    const withoutUrl = await createDeveloper(service.ctx, { name: 'no destination yet' });

    const before = receiver.received.length;
    assert.equal(await service.ctx.webhooks.sendScheduledHealthchecks(), 1);
    await receiver.waitFor((list) => list.length > before, 'the scheduled healthcheck');
    const [arrived] = receiver.received.slice(before);
    const body = JSON.parse(arrived?.body ?? '{}') as Record<string, unknown>;
    assert.equal(body.type, 'healthcheck');
    assert.equal(body.status, 'success');
    assert.ok(Number.isInteger(body.trend_percentage), 'trend_percentage is an integer');
    assert.ok(Number.isInteger(body.sent_webhooks_last_hour));
    assert.ok((body.sent_webhooks_last_hour as number) >= 2, 'the attempts of the last hour are counted');
    assert.match(String(body.creation_timestamp), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}\+00:00$/);

    const others = await service.ctx.db
      .selectFrom('deliveries')
      .select('status')
      .where('developer_id', 'in', [disabled.devId, withoutUrl.devId])
      .execute();
    assert.deepEqual(others, [], 'nothing is written for destinations that cannot receive it');
  });

  it('reports the change against the previous hour as a whole percentage', () => {
    assert.equal(trendPercentage(10, 0), 0);
    assert.equal(trendPercentage(10, 10), 0);
    assert.equal(trendPercentage(13, 8), 63);
    assert.equal(trendPercentage(2, 3), -33);
  });
});
