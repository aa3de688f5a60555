// The per-process credential cache (developers/service.ts) seen from two processes: two developer
// services over one store, each hearing the store's change feed, stand for two API processes. A
// key made in one is accepted by the other at once (a refused key is looked up again before the
// 401); a key revoked in this process stops working here at once; and on PostgreSQL, where other
// processes write, a key revoked or a developer suspended elsewhere is refused here as soon as the
// notice published with the change arrives (not at the same instant: the notice comes back over
// the store's listening connection), long before the cache would have expired; and while the
// listening connection is lost the cache answers nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { createDevelopersService, CREDENTIALS_TOPIC } from '../../src/features/developers/service.ts';
import { CHANGE_FEED_APPLICATION_NAME } from '../../src/store/change-feed.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { until } from '../helpers/until.ts';

type DevelopersService = ReturnType<typeof createDevelopersService>;

describe('credential cache across processes', () => {
  let service: TestService;
  let developer: TestDeveloper;
  let otherProcess: DevelopersService;

  before(async () => {
    service = await startTestService({ work: false });
    developer = await createDeveloper(service.ctx);
    otherProcess = anotherProcess();
  });
  after(() => service.close());

  /** A developer service over the same store hearing its change feed: another API process. */
  function anotherProcess(credentialCacheMs?: number) {
    return createDevelopersService({
      db: service.ctx.db,
      setUp: async () => {
        throw new Error('this test creates no developers in the second process');
      },
      credentialChanges: (handlers) => service.store.listen(CREDENTIALS_TOPIC, handlers),
      ...(credentialCacheMs === undefined ? {} : { credentialCacheMs }),
    });
  }

  /** Authenticates until `here` answers `awaited` (`accepted`, or the refusal's kind). */
  function untilAnswer(what: string, here: DevelopersService, apiKey: string, awaited: string) {
    return until(
      what,
      async () => {
        const result = await here.authenticate(developer.devId, apiKey);
        return result.ok ? 'accepted' : result.kind;
      },
      { done: (kind) => kind === awaited },
    );
  }

  test('a key created by another process authenticates here at once', async () => {
    const here = service.ctx.developers;
    assert.equal((await here.authenticate(developer.devId, developer.apiKey)).ok, true, 'cached now');
    const created = await otherProcess.createKey(developer.devId);
    const result = await here.authenticate(developer.devId, created.apiKey);
    assert.equal(result.ok, true);
    assert.equal(result.ok && result.keyId, created.id);
  });

  test('a wrong key is still refused after the second look', async () => {
    const result = await service.ctx.developers.authenticate(developer.devId, 'not-a-key');
    assert.deepEqual(result, {
      ok: false,
      kind: 'unauthorized',
      detail: 'unknown dev-id or invalid API key',
    });
  });

  test('a key revoked in this process is refused here at once', async () => {
    const here = service.ctx.developers;
    const created = await here.createKey(developer.devId);
    assert.equal((await here.authenticate(developer.devId, created.apiKey)).ok, true);
    await here.revokeKey(developer.devId, created.id);
    assert.equal((await here.authenticate(developer.devId, created.apiKey)).ok, false);
  });

  /** Sets the developer's status behind every cache's back (no notice): only the store knows. */
  async function setStatusSilently(status: 'active' | 'suspended') {
    await service.ctx.db
      .updateTable('developers')
      .set({ status })
      .where('id', '=', developer.devId)
      .execute();
  }

  /** Waits until this process's cache answers for the developer (its change feed is live). */
  async function untilCacheAnswers(here = service.ctx.developers) {
    await until('the credential cache to answer', async () => {
      await here.authenticate(developer.devId, developer.apiKey);
      await setStatusSilently('suspended');
      try {
        return (await here.authenticate(developer.devId, developer.apiKey)).ok;
      } finally {
        // A write that is announced: whatever `here` cached is forgotten before the next try. When
        // its feed comes up between the two look-ups above, it has cached the suspended row (a
        // silent write would leave that in a ten-minute cache, and every later try would fail).
        await otherProcess.setStatus(developer.devId, 'active');
      }
    });
  }

  test('on PostgreSQL a key revoked and a developer suspended by another process are refused here once the notice arrives', async () => {
    // A cache here that would answer for ten minutes: only the notice can make it forget within
    // the wait below, so this fails if notices are not heard or not acted on.
    const here = anotherProcess(10 * 60_000);
    const created = await here.createKey(developer.devId);
    await untilCacheAnswers(here);
    assert.equal((await here.authenticate(developer.devId, created.apiKey)).ok, true, 'cached now');
    await otherProcess.revokeKey(developer.devId, created.id);
    await untilAnswer('the revoked key to be refused here', here, created.apiKey, 'unauthorized');
    assert.equal((await here.authenticate(developer.devId, developer.apiKey)).ok, true, 'cached again');
    await otherProcess.setStatus(developer.devId, 'suspended');
    await untilAnswer('the suspended developer to be refused here', here, developer.apiKey, 'forbidden');
    await otherProcess.setStatus(developer.devId, 'active');
  });

  test('on PostgreSQL the cache answers nothing while its listening connection is lost, and again once it is back', async () => {
    const here = service.ctx.developers;
    await otherProcess.setStatus(developer.devId, 'active');
    await untilCacheAnswers();
    // The store's listening session, ended by the server (in this database only: other test
    // files' services listen in theirs). Every topic of the store (credentials, provider
    // settings) and every cache on it share that one connection.
    const listening = await sql<{ pid: number }>`
        select pid from pg_stat_activity
         where datname = current_database() and application_name = ${CHANGE_FEED_APPLICATION_NAME}`.execute(
      service.ctx.db,
    );
    assert.equal(listening.rows.length, 1, 'one listening session for the whole store');
    await sql`select pg_terminate_backend(${listening.rows[0]!.pid})`.execute(service.ctx.db);
    // A change nobody announces is seen as soon as the loss is noticed: nothing is served from memory.
    await setStatusSilently('suspended');
    await untilAnswer('the cache to stop answering', here, developer.apiKey, 'forbidden');
    await setStatusSilently('active');
    await untilCacheAnswers();
  });
});
