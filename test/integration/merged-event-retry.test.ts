// A person's `merged` event after a merge job failed. The merge queue is `stately` (one waiting
// job per person, type and day) and retries a failed job after a delay: neither may hold back the
// event of a later change. Failures are forced through the service's own objects (a thrown merge,
// a deadlock from the event store), and the job states are shown whenever a wait gives up.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MERGE_CHANGED_QUEUE, type PersonChangedJob } from '../../src/features/merge/service.ts';
import type { ConnectionRow } from '../../src/features/connections/service.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { deferJob, findJobs, TERMINAL_JOB_STATES } from '../helpers/jobs.ts';
import { insertConnection } from '../helpers/users.ts';
import { ingestSandboxDay } from '../helpers/sandbox-days.ts';
import { until } from '../helpers/until.ts';
import { setUrl } from '../helpers/webhook-api.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

const DAY = '2026-10-05';

describe('merged events after a failed merge', () => {
  let service: TestService;
  let developer: TestDeveloper;
  let receiver: WebhookReceiver;

  const connection = (provider: string, referenceId: string) =>
    insertConnection(service.ctx, { developerId: developer.devId, provider, referenceId });
  const ingestDay = (user: ConnectionRow, seed: string) => ingestSandboxDay(service.ctx, user, seed, DAY);
  /** The person's merge jobs, oldest first, as the queue holds them. */
  const jobsOf = async (referenceId: string) =>
    (await findJobs<PersonChangedJob>(service.ctx, MERGE_CHANGED_QUEUE, { data: { referenceId } }))
      .sort((a, b) => a.createdOn.getTime() - b.createdOn.getTime())
      .map((job) => ({
        id: job.id,
        state: job.state,
        retryCount: job.retryCount,
        startAfter: job.startAfter,
      }));
  const mergedEventsOf = (referenceId: string) =>
    receiver.received.filter(
      (entry) =>
        entry.body.includes('"type":"merged"') && entry.body.includes(`"reference_id":"${referenceId}"`),
    );

  before(async () => {
    service = await startTestService({ env: { MERGED_EVENT_DELAY_SECONDS: '0' } });
    developer = await createDeveloper(service.ctx);
    receiver = await startWebhookReceiver();
    await setUrl(service, developer, receiver.url);
    await service.ctx.merge.updateSettings(developer.devId, { merged_events: true });
  });
  after(async () => {
    await service?.close();
    await receiver?.close();
  });

  test('a change while the day’s earlier merge waits to be retried is merged at once, not at the retry', async () => {
    const merge = service.ctx.merge;
    const original = merge.personChanged;
    let failures = 1;
    merge.personChanged = async (job) => {
      if (job.referenceId === 'kim' && failures-- > 0) throw new Error('forced merge failure');
      return original(job);
    };
    try {
      const watch = await connection('GARMIN', 'kim');
      const ring = await connection('OURA', 'kim');
      await ingestDay(watch, 'watch');
      const [failed] = await until('the first merge to fail and wait for its retry', () => jobsOf('kim'), {
        done: (jobs) => jobs.some((job) => job.state === 'retry'),
        show: (jobs) => JSON.stringify(jobs),
        betweenReads: () => service.ctx.jobs.wake(MERGE_CHANGED_QUEUE),
      });
      // Its retry far off: only a job of the later change can send the event now.
      await deferJob(service.ctx, failed!.id, 3600);
      await ingestDay(ring, 'ring');
      await until('the merged event of the later change', async () => mergedEventsOf('kim'), {
        done: (events) => events.length > 0,
        show: async () => JSON.stringify(await jobsOf('kim')),
        betweenReads: () => service.ctx.jobs.wake(MERGE_CHANGED_QUEUE),
      });
      const states = await jobsOf('kim');
      assert.equal(states.find((job) => job.id === failed!.id)?.state, 'retry', JSON.stringify(states));
    } finally {
      merge.personChanged = original;
    }
  });

  test('a merge the database gave up once (a deadlock) is tried again at once, not after the queue’s retry delay', async () => {
    const webhooks = service.ctx.webhooks;
    const original = webhooks.emit;
    let deadlocks = 1;
    webhooks.emit = async (trx, developerId, envelope) => {
      if (envelope.type === 'merged' && deadlocks-- > 0)
        throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
      return original(trx, developerId, envelope);
    };
    try {
      await ingestDay(await connection('GARMIN', 'lee'), 'watch');
      const jobs = await until('the merge job to settle or wait for a retry', () => jobsOf('lee'), {
        done: (list) =>
          list.length > 0 &&
          list.every(
            (job) => job.state === 'retry' || (TERMINAL_JOB_STATES as readonly string[]).includes(job.state),
          ),
        show: (list) => JSON.stringify(list),
        betweenReads: () => service.ctx.jobs.wake(MERGE_CHANGED_QUEUE),
      });
      assert.deepEqual(
        jobs.map((job) => [job.state, job.retryCount]),
        [['completed', 0]],
        `the merge job's first run sends the event: ${JSON.stringify(jobs)}`,
      );
      await receiver.waitFor(
        (list) => list.some((entry) => entry.body.includes('"reference_id":"lee"')),
        'lee’s merged event',
      );
      assert.equal(deadlocks, -1, 'the deadlock was met');
    } finally {
      webhooks.emit = original;
    }
  });
});
