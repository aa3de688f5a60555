// A batch that read "no destination" must not hold an event once a URL has been set meanwhile:
// setting the URL releases the events held so far, and an event held after that release would
// wait for a release that never comes. The engine's outcome write re-checks the destination.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { recordOutcomes } from '../../src/features/delivery/outcome-rows.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { setUrl } from '../helpers/webhook-api.ts';

describe('holding an event for want of a destination', () => {
  let service: TestService;
  let developer: TestDeveloper;
  before(async () => {
    // No workers: the test plays the worker's part itself, at the moment of its choosing.
    service = await startTestService({ work: false });
    developer = await createDeveloper(service.ctx);
  });
  after(() => service.close());

  async function pendingEvent(): Promise<{ id: string; generation: number }> {
    const id = await service.ctx.db
      .transaction()
      .execute((trx) =>
        service.ctx.webhooks.emit(trx, developer.devId, { type: 'test_event', payload: { hello: 'world' } }),
      );
    return service.ctx.db
      .selectFrom('deliveries')
      .select(['id', 'generation'])
      .where('event_id', '=', id)
      .executeTakeFirstOrThrow();
  }

  const held = (event: { id: string; generation: number }) => ({
    id: event.id,
    generation: event.generation,
    status: 'held' as const,
    nextAttemptAt: null,
    statusCode: null,
    error: 'no webhook destination configured',
    at: service.ctx.clock.now(),
    attempt: null,
  });

  const statusOf = async (id: string) =>
    (
      await service.ctx.db
        .selectFrom('deliveries')
        .select('status')
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
    ).status;

  test('while there is no URL the hold is recorded', async () => {
    const event = await pendingEvent();
    assert.deepEqual([...(await recordOutcomes(service.ctx.db, [held(event)]))], [event.id]);
    assert.equal(await statusOf(event.id), 'held');
  });

  test('once a URL is set, a hold decided before it is not recorded: the event stays pending', async () => {
    const event = await pendingEvent();
    await setUrl(service, developer, 'http://127.0.0.1:9/hook');
    assert.deepEqual([...(await recordOutcomes(service.ctx.db, [held(event)]))], []);
    assert.equal(await statusOf(event.id), 'pending');
  });
});
