// A delivery's first attempt, when it succeeded, is kept on the delivery's row instead of as a row
// of the attempt log (migration 0053, issue 44): the delivery log must list it exactly as it listed
// the row, in the same order among later attempts (a resend), and the healthcheck's attempts per
// hour must still count it. Attempts that failed are rows as before.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { attemptsPerHour } from '../../src/features/delivery/delivery-counts.ts';
import { reschedule } from '../../src/features/delivery/delivery-moves.ts';
import { wireDateTime } from '../../src/model/time.ts';
import { type EventOutcome, recordOutcomes } from '../../src/features/delivery/outcome-rows.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { api } from '../helpers/destinations.ts';

let service: TestService;
let developer: TestDeveloper;
before(async () => {
  // No workers: the test writes the outcomes itself, at instants it chooses.
  service = await startTestService({ work: false });
  developer = await createDeveloper(service.ctx);
});
after(() => service.close());

const URL_AT_THE_TIME = 'https://hooks.example.com/in';

async function emitOne(type: string): Promise<{ eventId: string; id: string; generation: number }> {
  const eventId = await service.ctx.db
    .transaction()
    .execute((trx) => service.ctx.webhooks.emit(trx, developer.devId, { type, payload: { type } }));
  const row = await service.ctx.db
    .selectFrom('deliveries')
    .select(['id', 'generation'])
    .where('event_id', '=', eventId)
    .executeTakeFirstOrThrow();
  return { eventId, ...row };
}

function outcome(
  delivery: { id: string; generation: number },
  number: number,
  attemptedAt: Date,
  answer: { statusCode: number; delivered: boolean; nextAttemptAt?: Date },
): EventOutcome {
  const at = new Date(attemptedAt.getTime() + 7);
  return {
    id: delivery.id,
    generation: delivery.generation,
    status: answer.delivered ? 'delivered' : 'pending',
    nextAttemptAt: answer.nextAttemptAt ?? null,
    statusCode: answer.statusCode,
    error: answer.delivered ? null : `HTTP ${answer.statusCode}`,
    at,
    attempt: {
      developerId: developer.devId,
      number,
      url: URL_AT_THE_TIME,
      attemptedAt,
      durationMs: 7,
      outcome: answer.delivered ? 'delivered' : 'retry',
    },
  };
}

const attemptsLogged = async (deliveryId: string) =>
  (
    await service.ctx.db
      .selectFrom('delivery_attempts')
      .select('attempt')
      .where('delivery_id', '=', deliveryId)
      .orderBy('attempt')
      .execute()
  ).map((row) => row.attempt);

test('a first attempt that succeeded is kept on its delivery and listed as the attempt log listed it', async () => {
  const t0 = Date.UTC(2026, 11, 4, 9, 0, 0, 0);
  const once = await emitOne('kept_once');
  const retried = await emitOne('kept_retried');
  const resent = await emitOne('kept_resent');

  // Delivered at the first attempt.
  await recordOutcomes(service.ctx.db, [
    outcome(once, 1, new Date(t0 + 1_001), { statusCode: 204, delivered: true }),
  ]);
  // A 503, then delivered at the second attempt: both are rows.
  const nextAt = new Date(t0 + 61_000);
  await recordOutcomes(service.ctx.db, [
    outcome(retried, 1, new Date(t0 + 2_002), { statusCode: 503, delivered: false, nextAttemptAt: nextAt }),
  ]);
  await recordOutcomes(service.ctx.db, [
    outcome({ id: retried.id, generation: retried.generation + 1 }, 2, new Date(t0 + 62_003), {
      statusCode: 200,
      delivered: true,
    }),
  ]);
  // Delivered at the first attempt, resent by the developer and delivered again (attempt 2, a row).
  await recordOutcomes(service.ctx.db, [
    outcome(resent, 1, new Date(t0 + 3_004), { statusCode: 202, delivered: true }),
  ]);
  const [again] = await reschedule(service.ctx.db, developer.devId, resent.eventId, new Date(t0 + 90_000));
  assert.ok(again);
  await recordOutcomes(service.ctx.db, [
    outcome(again, 2, new Date(t0 + 90_005), { statusCode: 204, delivered: true }),
  ]);

  // What is stored: the first successes are not rows of the attempt log.
  assert.deepEqual(await attemptsLogged(once.id), []);
  assert.deepEqual(await attemptsLogged(retried.id), [1, 2]);
  assert.deepEqual(await attemptsLogged(resent.id), [2]);

  // What the API answers: every attempt, in order, each as the log's row would have read.
  const log = await api(service, developer, 'GET', '/v2/webhook/deliveries');
  assert.equal(log.status, 200);
  const byEvent = new Map(
    (log.body.deliveries as { event_id: string; attempt_count: number; attempts: unknown[] }[]).map((d) => [
      d.event_id,
      d,
    ]),
  );
  const wire = (number: number, attemptedAt: number, statusCode: number, next: string | null = null) => ({
    attempt: number,
    url: URL_AT_THE_TIME,
    attempted_at: wireDateTime(new Date(attemptedAt)),
    duration_ms: 7,
    status_code: statusCode,
    error: next ? `HTTP ${statusCode}` : null,
    outcome: next ? 'retry' : 'delivered',
    next_attempt_at: next,
  });
  assert.deepEqual(byEvent.get(once.eventId)?.attempts, [wire(1, t0 + 1_001, 204)]);
  assert.equal(byEvent.get(once.eventId)?.attempt_count, 1);
  assert.deepEqual(byEvent.get(retried.eventId)?.attempts, [
    wire(1, t0 + 2_002, 503, wireDateTime(nextAt)),
    wire(2, t0 + 62_003, 200),
  ]);
  assert.deepEqual(byEvent.get(resent.eventId)?.attempts, [
    wire(1, t0 + 3_004, 202),
    wire(2, t0 + 90_005, 204),
  ]);
  assert.equal(byEvent.get(resent.eventId)?.attempt_count, 2);

  // The healthcheck counts them all, rows or not: five in the last hour half an hour later; an
  // hour and 61 s later, the two of the last hour and the three of the hour before.
  assert.deepEqual(await attemptsPerHour(service.ctx.db, developer.devId, new Date(t0 + 30 * 60_000)), {
    last: 5,
    previous: 0,
  });
  assert.deepEqual(
    await attemptsPerHour(service.ctx.db, developer.devId, new Date(t0 + 60 * 60_000 + 61_000)),
    { last: 2, previous: 3 },
  );
});
