// The per-process credential cache (developers/service.ts) seen from two processes: two developer
// services over one store stand for two API processes. A key made in one is accepted by the other
// at once (a refused key is looked up again before the 401); a key revoked in this process stops
// working here at once; and on PostgreSQL, where other processes write, a key revoked or a
// developer suspended elsewhere is refused here at once too (no cache there).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createDevelopersService } from '../../src/features/developers/service.ts';
import {
  createDeveloper,
  requiresPostgres,
  startTestService,
  type TestDeveloper,
  type TestService,
} from '../helpers/app.ts';

describe('credential cache across processes', () => {
  let service: TestService;
  let developer: TestDeveloper;
  let otherProcess: ReturnType<typeof createDevelopersService>;

  before(async () => {
    service = await startTestService({ work: false });
    developer = await createDeveloper(service.ctx);
    otherProcess = createDevelopersService({
      db: service.ctx.db,
      setUp: async () => {
        throw new Error('this test creates no developers in the second process');
      },
    });
  });
  after(() => service.close());

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

  test(
    'on PostgreSQL a key revoked and a developer suspended by another process are refused here at once',
    requiresPostgres('another process writes the same developers table'),
    async () => {
      const here = service.ctx.developers;
      const created = await here.createKey(developer.devId);
      assert.equal((await here.authenticate(developer.devId, created.apiKey)).ok, true);
      await otherProcess.revokeKey(developer.devId, created.id);
      assert.equal((await here.authenticate(developer.devId, created.apiKey)).ok, false);
      assert.equal((await here.authenticate(developer.devId, developer.apiKey)).ok, true);
      await otherProcess.setStatus(developer.devId, 'suspended');
      const refused = await here.authenticate(developer.devId, developer.apiKey);
      assert.equal(refused.ok ? 'accepted' : refused.kind, 'forbidden');
    },
  );
});
