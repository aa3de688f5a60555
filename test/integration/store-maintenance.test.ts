// The recurring store.maintenance job vacuums embedded PGlite, a single-user backend without
// autovacuum. The tests run on PostgreSQL, where autovacuum does that work: the job is not
// scheduled there. (What it does on the embedded store is the embedded engine's own test.)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { STORE_MAINTENANCE_QUEUE } from '../../src/store/maintenance.ts';
import { recurringJobs } from '../../src/runtime/workers/index.ts';
import { startTestService, type TestService } from '../helpers/app.ts';

let service: TestService;

before(async () => {
  service = await startTestService();
});

after(async () => {
  await service?.close();
});

describe('store maintenance', () => {
  it('is not scheduled on PostgreSQL, where autovacuum runs', () => {
    const maintenance = recurringJobs(service.ctx).find((job) => job.queue === STORE_MAINTENANCE_QUEUE);
    assert.ok(maintenance);
    assert.equal(maintenance.schedule, null);
  });
});
