// The outbox relay: an emit smaller than one job leaves its events marked `awaiting_job` and the
// relay queues them after commit. What a process leaves marked when it dies between commit and
// relay is queued by the next relay pass (every process runs one at start and periodically), and
// delivered once; a bulk emit still queues its own jobs in its transaction.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { AppContext } from '../../src/runtime/context.ts';
import { buildHealthcheckEvent, healthcheckEnvelope } from '../../src/features/delivery/events.ts';
import { DELIVERY_QUEUE } from '../../src/features/delivery/outbox.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { setUrl, waitForDelivery } from '../helpers/webhook-api.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

let service: TestService;
let receiver: WebhookReceiver;
let developer: TestDeveloper;

before(async () => {
  receiver = await startWebhookReceiver();
  service = await startTestService();
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

const envelope = () =>
  healthcheckEnvelope(
    buildHealthcheckEvent({ createdAt: new Date(), trendPercentage: 0, sentWebhooksLastHour: 0 }),
  );

async function jobsFor(ids: readonly string[]): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM ${sql.raw(jobsSchema(service.ctx))}.job
    WHERE name = ${DELIVERY_QUEUE} AND EXISTS (
      SELECT 1 FROM jsonb_array_elements(data->'events') AS e
      WHERE e->>0 IN (SELECT id FROM deliveries WHERE event_id = ANY(${ids as string[]})))`.execute(
    service.ctx.db,
  );
  return rows[0]!.n;
}

async function awaiting(ids: readonly string[]): Promise<boolean[]> {
  const rows = await service.ctx.db
    .selectFrom('deliveries')
    .select(['event_id', 'awaiting_job'])
    .where('event_id', 'in', ids)
    .execute();
  return ids.map((id) => rows.find((row) => row.event_id === id)!.awaiting_job);
}

describe('webhook outbox relay', () => {
  it('queues what a process left awaiting its job when the next relay starts, and it is delivered once', async () => {
    const { relay } = service.ctx.webhooks;
    // No relay running: as if the emitting process died right after its commit.
    await relay.stop();
    const ids = await service.ctx.db
      .transaction()
      .execute(async (trx) =>
        Promise.all([1, 2, 3].map(() => service.ctx.webhooks.emit(trx, developer.devId, envelope()))),
      );
    assert.deepEqual(await awaiting(ids), [true, true, true]);
    assert.equal(await jobsFor(ids), 0, 'no job was queued in the emitting transaction');

    relay.start();
    for (const id of ids) {
      await waitForDelivery(
        service,
        developer,
        id,
        (delivery) => delivery.status === 'delivered',
        'delivered',
      );
    }
    assert.deepEqual(await awaiting(ids), [false, false, false]);
    assert.equal(await jobsFor(ids), 1, 'the three events shared one job');
    for (const id of ids) assert.equal(receiver.byId(id).length, 1, `${id} delivered once`);
  });

  it('leaves a bulk emit of at least a job’s worth to its own transaction', async () => {
    const { relay } = service.ctx.webhooks;
    await relay.stop();
    try {
      const ids = await service.ctx.db.transaction().execute(async (trx) =>
        service.ctx.webhooks.emitMany(
          trx,
          developer.devId,
          Array.from({ length: 30 }, () => envelope()),
        ),
      );
      assert.ok((await awaiting(ids)).every((mark) => !mark));
      assert.equal(await jobsFor(ids), 2, '30 events: jobs of 25 and 5, queued with the events');
      for (const id of ids) {
        await waitForDelivery(
          service,
          developer,
          id,
          (delivery) => delivery.status === 'delivered',
          'delivered',
        );
      }
    } finally {
      relay.start();
    }
  });
});
