// Recording a delivery's first outcome is a HOT update (migration 0054, issue 44): no index of
// `deliveries` names a column it changes. What those indexes served must still work without them:
// the stuck sweeper finds pending deliveries whose job was lost (first attempts, across passes,
// and retries), and leaves settled ones alone; the healthcheck still counts every attempt, a first
// attempt made long after its delivery's creation being a row of the attempt log.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { attemptsPerHour } from '../../src/features/delivery/delivery-counts.ts';
import { type EventOutcome, recordOutcomes } from '../../src/features/delivery/outcome-rows.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';

const STUCK_AFTER_MINUTES = 10;
let offsetMs = 0;
const clock = { now: () => new Date(Date.now() + offsetMs) };

let service: TestService;
let developer: TestDeveloper;
before(async () => {
  // No workers: jobs stay queued, and the test writes the outcomes itself, at instants it chooses.
  service = await startTestService({
    work: false,
    clock,
    env: { WEBHOOK_STUCK_AFTER: `${STUCK_AFTER_MINUTES}m` },
  });
  developer = await createDeveloper(service.ctx);
});
after(() => service.close());

type Delivery = { eventId: string; id: string; generation: number; createdAt: Date };

/** One event and its delivery, whose first job is lost: the relay's mark is cleared before commit. */
async function emitWithLostJob(): Promise<Delivery> {
  return service.ctx.db.transaction().execute(async (trx) => {
    const eventId = await service.ctx.webhooks.emit(trx, developer.devId, {
      type: 'hot_test',
      payload: { type: 'hot_test' },
    });
    const row = await trx
      .updateTable('deliveries')
      .set({ awaiting_job: false })
      .where('event_id', '=', eventId)
      .returning(['id', 'generation', 'created_at'])
      .executeTakeFirstOrThrow();
    return { eventId, id: row.id, generation: row.generation, createdAt: row.created_at };
  });
}

function outcome(
  delivery: { id: string; generation: number },
  number: number,
  attemptedAt: Date,
  answer: { delivered: boolean; nextAttemptAt?: Date },
  developerId = developer.devId,
): EventOutcome {
  return {
    id: delivery.id,
    generation: delivery.generation,
    status: answer.delivered ? 'delivered' : 'pending',
    nextAttemptAt: answer.nextAttemptAt ?? null,
    statusCode: answer.delivered ? 204 : 503,
    error: answer.delivered ? null : 'HTTP 503',
    at: new Date(attemptedAt.getTime() + 5),
    attempt: {
      developerId,
      number,
      url: 'https://hooks.example.com/in',
      attemptedAt,
      durationMs: 5,
      outcome: answer.delivered ? 'delivered' : 'retry',
    },
  };
}

const stateOf = (id: string) =>
  service.ctx.db
    .selectFrom('deliveries')
    .select(['status', 'generation', 'attempts'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();

const attemptsLogged = async (id: string) =>
  (
    await service.ctx.db
      .selectFrom('delivery_attempts')
      .select('attempt')
      .where('delivery_id', '=', id)
      .orderBy('attempt')
      .execute()
  ).map((row) => row.attempt);

const minutes = (n: number) => n * 60_000;

test('a first attempt that succeeded is recorded as a HOT update of its delivery', async () => {
  const delivery = await emitWithLostJob();
  const counted = await service.ctx.db.transaction().execute(async (trx) => {
    // The backend's counts not yet reported (this transaction's, and earlier ones' still pending),
    // so no wait for the statistics: the difference is the outcome's.
    const counts = async () => {
      const { rows } = await sql<{ updated: string; hot: string }>`
        SELECT n_tup_upd AS updated, n_tup_hot_upd AS hot FROM pg_stat_xact_user_tables
        WHERE relid = 'deliveries'::regclass`.execute(trx);
      return { updated: Number(rows[0]?.updated ?? 0), hot: Number(rows[0]?.hot ?? 0) };
    };
    const before = await counts();
    const applied = await recordOutcomes(trx, [outcome(delivery, 1, clock.now(), { delivered: true })]);
    assert.deepEqual([...applied], [delivery.id]);
    const after = await counts();
    return { updated: after.updated - before.updated, hot: after.hot - before.hot };
  });
  assert.deepEqual(counted, { updated: 1, hot: 1 }, 'the update wrote no index entry');
  assert.equal((await stateOf(delivery.id)).status, 'delivered');
});

test('the stuck sweeper still finds lost first attempts, pass after pass, and lost retries, not settled deliveries', async () => {
  const sweep = () => service.ctx.webhooks.sweepStuckEvents();
  const lost = await emitWithLostJob();
  const settled = await emitWithLostJob();
  await recordOutcomes(service.ctx.db, [outcome(settled, 1, clock.now(), { delivered: true })]);
  const retried = await emitWithLostJob();
  await recordOutcomes(service.ctx.db, [
    outcome(retried, 1, clock.now(), {
      delivered: false,
      nextAttemptAt: new Date(clock.now().getTime() + 30_000),
    }),
  ]);

  offsetMs += minutes(STUCK_AFTER_MINUTES - 2);
  assert.equal(await sweep(), 0, 'nothing is stuck yet');
  offsetMs += minutes(3);
  assert.equal(await sweep(), 2, 'the lost first attempt and the lost retry');
  assert.deepEqual(await stateOf(lost.id), {
    status: 'pending',
    generation: lost.generation + 1,
    attempts: 0,
  });
  assert.deepEqual(await stateOf(retried.id), {
    status: 'pending',
    generation: retried.generation + 2,
    attempts: 1,
  });
  assert.equal((await stateOf(settled.id)).generation, settled.generation + 1, 'the settled one untouched');
  assert.equal(await sweep(), 0, 'a second pass finds nothing new');

  // After the walk has moved on: a later delivery whose job is lost is found in its turn.
  const later = await emitWithLostJob();
  offsetMs += minutes(STUCK_AFTER_MINUTES + 1);
  // The two swept before are due again by now (their new jobs never ran: no workers here).
  assert.equal(await sweep(), 3);
  assert.deepEqual(await stateOf(later.id), {
    status: 'pending',
    generation: later.generation + 1,
    attempts: 0,
  });

  // Settled, a swept delivery leaves the sweeper's sight for good.
  for (const delivery of [lost, retried, later]) {
    const { generation, attempts } = await stateOf(delivery.id);
    await recordOutcomes(service.ctx.db, [
      outcome({ id: delivery.id, generation }, attempts + 1, clock.now(), { delivered: true }),
    ]);
  }
  offsetMs += minutes(STUCK_AFTER_MINUTES + 1);
  assert.equal(await sweep(), 0);
});

test('a first attempt long after its delivery was created is a row; the healthcheck counts every attempt', async () => {
  const dev = await createDeveloper(service.ctx, { name: 'healthcheck counts' });
  const emit = () =>
    service.ctx.db
      .transaction()
      .execute((trx) => service.ctx.webhooks.emit(trx, dev.devId, { type: 'hot_count', payload: {} }))
      .then((eventId) =>
        service.ctx.db
          .selectFrom('deliveries')
          .select(['id', 'generation', 'created_at'])
          .where('event_id', '=', eventId)
          .executeTakeFirstOrThrow(),
      );
  const soon = await emit();
  const late = await emit();
  const created = soon.created_at.getTime();
  const record = (delivery: { id: string; generation: number }, attemptedAt: number) =>
    recordOutcomes(service.ctx.db, [
      outcome(delivery, 1, new Date(attemptedAt), { delivered: true }, dev.devId),
    ]);
  await record(soon, created + minutes(1));
  // As after a hold of 20 minutes.
  await record(late, created + minutes(20));

  assert.deepEqual(await attemptsLogged(soon.id), [], 'kept on its row');
  assert.deepEqual(await attemptsLogged(late.id), [1], 'a row of the attempt log');
  assert.deepEqual(await attemptsPerHour(service.ctx.db, dev.devId, new Date(created + minutes(30))), {
    last: 2,
    previous: 0,
  });
  assert.deepEqual(await attemptsPerHour(service.ctx.db, dev.devId, new Date(created + minutes(61 + 15))), {
    last: 1,
    previous: 1,
  });
  assert.deepEqual(await attemptsPerHour(service.ctx.db, dev.devId, new Date(created + minutes(139))), {
    last: 0,
    previous: 1,
  });
});
