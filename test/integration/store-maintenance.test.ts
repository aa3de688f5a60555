// Embedded storage has no autovacuum (PGlite is a single-user backend without background workers):
// the recurring store.maintenance job vacuums and analyses it. On PostgreSQL the job does nothing
// and is not scheduled (autovacuum runs there).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { STORE_MAINTENANCE_QUEUE } from '../../src/store/maintenance.ts';
import { recurringJobs } from '../../src/runtime/workers/index.ts';
import { startTestService, type TestService, usingPostgres } from '../helpers/app.ts';
import { waitForJobsSettled } from '../helpers/jobs.ts';

let service: TestService;

before(async () => {
  service = await startTestService();
});

after(async () => {
  await service?.close();
});

describe('store maintenance', () => {
  it('is scheduled on embedded storage only', () => {
    const maintenance = recurringJobs(service.ctx).find((job) => job.queue === STORE_MAINTENANCE_QUEUE);
    assert.ok(maintenance);
    assert.equal(maintenance.schedule === null, usingPostgres());
  });

  it(
    'vacuums and analyses the embedded store when its job runs',
    { skip: usingPostgres() && 'embedded storage only' },
    async () => {
      const { db } = service.ctx;
      const stats = () =>
        sql<{ n_dead_tup: number; last_vacuum: Date | null; last_analyze: Date | null }>`
        SELECT n_dead_tup, last_vacuum, last_analyze FROM pg_stat_user_tables WHERE relname = 'developers'`
          .execute(db)
          .then((result) => result.rows[0]);
      const before = (await stats())?.last_vacuum?.getTime() ?? 0;
      const id = await service.ctx.jobs.send(STORE_MAINTENANCE_QUEUE, {});
      assert.ok(id);
      const [job] = await waitForJobsSettled(service.ctx, STORE_MAINTENANCE_QUEUE, { id }, 60_000);
      assert.equal(job?.state, 'completed');
      const afterwards = await stats();
      assert.ok(afterwards?.last_vacuum && afterwards.last_vacuum.getTime() > before, 'VACUUM ran');
      assert.ok(afterwards?.last_analyze, 'ANALYZE ran');
    },
  );
});
