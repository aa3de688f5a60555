// The engine's batch writes send timestamps as epoch milliseconds (event-rows.ts,
// outcome-rows.ts): what is stored must be the same instant to the millisecond as the Date the
// engine had, for the event, its delivery, the outcome and the attempt log.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { recordOutcomes } from '../../src/features/delivery/outcome-rows.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';

let service: TestService;
let developer: TestDeveloper;
before(async () => {
  // No workers: the test writes the outcome itself.
  service = await startTestService({ work: false });
  developer = await createDeveloper(service.ctx);
});
after(() => service.close());

test('timestamps written through the batch statements keep their milliseconds', async () => {
  const eventId = await service.ctx.db
    .transaction()
    .execute((trx) =>
      service.ctx.webhooks.emit(trx, developer.devId, { type: 'test_event', payload: { hello: 'world' } }),
    );
  const delivery = await service.ctx.db
    .selectFrom('deliveries')
    .innerJoin('events', 'events.id', 'deliveries.event_id')
    .select([
      'deliveries.id',
      'deliveries.generation',
      'deliveries.created_at',
      'events.created_at as event_created_at',
    ])
    .where('deliveries.event_id', '=', eventId)
    .executeTakeFirstOrThrow();
  assert.equal(delivery.created_at.getTime(), delivery.event_created_at.getTime());
  assert.ok(delivery.created_at.getTime() > Date.UTC(2000, 0, 1), 'a real instant, not the epoch');

  const attemptedAt = new Date(Date.UTC(2026, 11, 3, 13, 59, 58, 7));
  const at = new Date(Date.UTC(2026, 11, 3, 13, 59, 59, 123));
  const nextAttemptAt = new Date(Date.UTC(2026, 11, 3, 14, 0, 59, 999));
  const applied = await recordOutcomes(service.ctx.db, [
    {
      id: delivery.id,
      generation: delivery.generation,
      status: 'pending',
      nextAttemptAt,
      statusCode: 503,
      error: 'HTTP 503',
      at,
      attempt: {
        developerId: developer.devId,
        number: 1,
        url: 'https://example.com/hooks',
        attemptedAt,
        durationMs: 12,
        outcome: 'retry',
      },
    },
  ]);
  assert.deepEqual([...applied], [delivery.id]);
  const row = await service.ctx.db
    .selectFrom('deliveries')
    .select(['updated_at', 'next_attempt_at', 'last_status_code', 'attempts'])
    .where('id', '=', delivery.id)
    .executeTakeFirstOrThrow();
  assert.equal(row.updated_at.toISOString(), at.toISOString());
  assert.equal(row.next_attempt_at?.toISOString(), nextAttemptAt.toISOString());
  assert.equal(row.last_status_code, 503);
  assert.equal(row.attempts, 1);
  const logged = await service.ctx.db
    .selectFrom('delivery_attempts')
    .select(['attempted_at', 'next_attempt_at', 'duration_ms', 'outcome'])
    .where('delivery_id', '=', delivery.id)
    .executeTakeFirstOrThrow();
  assert.equal(logged.attempted_at.toISOString(), attemptedAt.toISOString());
  assert.equal(logged.next_attempt_at?.toISOString(), nextAttemptAt.toISOString());
  assert.equal(logged.duration_ms, 12);
  assert.equal(logged.outcome, 'retry');
});
