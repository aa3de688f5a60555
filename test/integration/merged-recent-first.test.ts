// A change to a person's recent days is merged ahead of a history's: a connection's first sync
// queues a merge for every day it brought, and a change made now must not wait behind them all.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  MERGE_CHANGED_QUEUE,
  mergePriority,
  type PersonChangedJob,
  RECENT_DAY_PRIORITY,
} from '../../src/features/merge/service.ts';
import { addDays } from '../../src/model/time.ts';
import { createDeveloper, startTestService, type TestService } from '../helpers/app.ts';
import { findJobs, makeJobDue } from '../helpers/jobs.ts';
import { ingestSandboxDay } from '../helpers/sandbox-days.ts';
import { insertConnection } from '../helpers/users.ts';

const NOW = Date.parse('2026-10-06T12:00:00Z');

test('recent is today and the two days before by UTC (every time zone’s today), nothing older', () => {
  assert.equal(mergePriority('2026-10-07', NOW), RECENT_DAY_PRIORITY, 'a day ahead of UTC (Kiribati)');
  assert.equal(mergePriority('2026-10-06', NOW), RECENT_DAY_PRIORITY);
  assert.equal(mergePriority('2026-10-04', NOW), RECENT_DAY_PRIORITY, 'the day before yesterday');
  assert.equal(mergePriority('2026-10-03', NOW), 0);
  assert.equal(mergePriority('2025-10-06', NOW), 0);
});

let service: TestService;
before(async () => {
  // No workers and a long delay: the test takes the first job itself, as a worker's fetch would.
  service = await startTestService({
    work: false,
    clock: { now: () => new Date(NOW) },
    env: { MERGED_EVENT_DELAY_SECONDS: '3600' },
  });
});
after(() => service?.close());

test('a change to today queued after a month of history is fetched first', async () => {
  const developer = await createDeveloper(service.ctx);
  await service.ctx.merge.updateSettings(developer.devId, { merged_events: true });
  const watch = await insertConnection(service.ctx, {
    developerId: developer.devId,
    provider: 'GARMIN',
    referenceId: 'ada',
  });
  // The first sync's history, oldest first, then today's change.
  for (let back = 30; back >= 3; back--)
    await ingestSandboxDay(service.ctx, watch, `h${back}`, addDays('2026-10-06', -back));
  await ingestSandboxDay(service.ctx, watch, 'today', '2026-10-06');

  const jobs = await findJobs<PersonChangedJob>(service.ctx, MERGE_CHANGED_QUEUE);
  assert.equal(jobs.length, 29);
  for (const job of jobs) await makeJobDue(service.ctx, job.id);

  const [first] = await service.ctx.jobs
    .boss()
    .fetch<PersonChangedJob>(MERGE_CHANGED_QUEUE, { batchSize: 1 });
  assert.equal(first?.data.day, '2026-10-06', `fetched ${first?.data.day} first`);
});
