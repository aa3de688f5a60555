import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { sql } from 'kysely';
import { createJobQueue, type JobQueue } from '../../src/jobs/queue.ts';
import { createLogger } from '../../src/core/log.ts';
import { openStore, type Store } from '../../src/store/db.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { until } from '../helpers/until.ts';

// The queues only this test uses, typed like the service's own (see src/jobs/queues.ts).
declare module '../../src/jobs/queues.ts' {
  interface QueuePayloads {
    'test-durable': { word: string };
    'test-retry': { word: string };
    'test-backlog': { word: string };
  }
}

/**
 * The queue itself, below any feature: jobs survive a restart, retry with backoff, and
 * commit or roll back with the transaction that sent them. In a test database of its own, which
 * a restart opens again.
 */
const log = createLogger('silent');
let database: TestDatabase | undefined;

async function open(): Promise<Store> {
  database ??= await createTestDatabase();
  return openStore({ databaseUrl: database.url, dataDir: undefined });
}

describe('job queue', () => {
  after(async () => {
    await database?.drop();
  });

  test('a job sent before a restart runs after it', async () => {
    const received: string[] = [];
    const define = (jobs: JobQueue) =>
      jobs.define({
        name: 'test-durable',
        options: { retryLimit: 0 },
        handler: async (batch) => {
          for (const job of batch) received.push(job.data.word);
        },
      });

    let store = await open();
    let jobs = createJobQueue(store, log);
    define(jobs);
    await jobs.start({ work: false });
    await jobs.send('test-durable', { word: 'survived' });
    await jobs.stop();
    await store.close();
    assert.deepEqual(received, []);

    store = await open();
    jobs = createJobQueue(store, log);
    define(jobs);
    await jobs.start({ work: true });
    await until('the job sent before the restart', () => received.length === 1);
    assert.deepEqual(received, ['survived']);
    await jobs.stop();
    await store.close();
  });

  test('a failing job is retried after its delay, and a job sent in a rolled-back transaction never exists', async () => {
    const store = await open();
    const jobs = createJobQueue(store, log);
    const attempts: string[] = [];
    jobs.define({
      name: 'test-retry',
      options: { retryLimit: 2, retryDelay: 1, retryBackoff: false },
      work: { pollingIntervalSeconds: 0.5, notifyPollingIntervalSeconds: 0.5 },
      handler: async (batch) => {
        for (const job of batch) {
          attempts.push(job.data.word);
          if (job.data.word === 'flaky' && attempts.filter((word) => word === 'flaky').length === 1) {
            throw new Error('first attempt fails');
          }
        }
      },
    });
    await jobs.start({ work: true });

    await assert.rejects(
      store.db.transaction().execute(async (trx) => {
        await jobs.send('test-retry', { word: 'rolled-back' }, { trx });
        throw new Error('abort the transaction');
      }),
      { message: 'abort the transaction' },
    );
    const flakyId = await store.db.transaction().execute(async (trx) => {
      await sql`select 1`.execute(trx);
      return jobs.send('test-retry', { word: 'flaky' }, { trx });
    });
    assert.ok(flakyId);

    await until('the retried job', () => attempts.filter((word) => word === 'flaky').length === 2);
    // The queue's own record: completed on its second try, after the declared delay.
    const flaky = await until(
      'the retried job to complete',
      () => jobs.boss().findJobs<{ word: string }>('test-retry', { id: flakyId }),
      { done: (found) => found[0]?.state === 'completed' },
    );
    assert.equal(flaky[0]?.retryCount, 1);
    assert.equal(flaky[0]?.retryDelay, 1);
    // The rolled-back send left no job behind: nothing to wait for, nothing that could still run.
    assert.deepEqual(await jobs.boss().findJobs('test-retry', { data: { word: 'rolled-back' } }), []);
    assert.deepEqual(
      attempts.filter((word) => word === 'rolled-back'),
      [],
    );
    await jobs.stop();
    await store.close();
  });

  test('a worker that got a job fetches again at once: a backlog drains without a poll between its jobs', async () => {
    const store = await open();
    const jobs = createJobQueue(store, log);
    const handled: string[] = [];
    jobs.define({
      name: 'test-backlog',
      options: { retryLimit: 0 },
      // A poll no test outlives: every job after the first is run only if the worker fetches again
      // by itself once it has settled the one before.
      work: { batchSize: 1, pollingIntervalSeconds: 3_600 },
      handler: async (batch) => {
        for (const job of batch) handled.push(job.data.word);
      },
    });
    await jobs.start({ work: false });
    // Queued before the worker starts, as a backlog is: no NOTIFY reaches it, its first fetch (at
    // start) finds the first job.
    await jobs.sendMany(
      'test-backlog',
      ['first', 'second', 'third'].map((word) => ({ data: { word } })),
    );
    await jobs.work();
    await until('the backlog handled', () => handled.length === 3);
    assert.deepEqual(handled.toSorted(), ['first', 'second', 'third']);
    await jobs.stop();
    await store.close();
  });
});
