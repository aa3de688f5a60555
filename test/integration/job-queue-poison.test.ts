import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { createLogger } from '../../src/core/log.ts';
import { createJobQueue, type JobQueue } from '../../src/jobs/queue.ts';
import { openStore, type Store } from '../../src/store/db.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { until } from '../helpers/until.ts';
import { QUICK_SUPERVISION } from '../helpers/job-queue-settings.ts';

// The queues only this test uses, typed like the service's own (see src/jobs/queues.ts).
declare module '../../src/jobs/queues.ts' {
  interface QueuePayloads {
    'test-poison': { word: string };
    'test-crash': { word: string };
    'test-fair': { tenant: string; index: number };
  }
}

/**
 * Poison jobs end (issue 24): a job whose handler fails on every attempt is given up once, and the
 * owner's `givenUp` hears of it with the payload and the last error; a job whose worker died (no
 * more heartbeats) is retried by another worker within seconds, not after the queue's expiry;
 * jobs grouped by tenant with `localGroupConcurrency` leave workers for the other tenants.
 */
const log = createLogger('silent');
const WORKER = new URL('../helpers/crashing-worker.ts', import.meta.url).pathname;

describe('job queue: poison jobs and fairness', () => {
  let database: TestDatabase;
  let store: Store;
  const queues: JobQueue[] = [];

  before(async () => {
    database = await createTestDatabase();
    store = await openStore({ databaseUrl: database.url, dataDir: undefined });
  });
  after(async () => {
    for (const queue of queues) await queue.stop(1000).catch(() => undefined);
    await store?.close();
    await database?.drop();
  });

  const newQueue = () => {
    const queue = createJobQueue(store, log, QUICK_SUPERVISION);
    queues.push(queue);
    return queue;
  };

  test('a job failing on every attempt is given up once, with its payload, attempts and last error', async () => {
    const queue = newQueue();
    let attempts = 0;
    const givenUp: { data: { word: string }; reason: string; attempts: number }[] = [];
    queue.define({
      name: 'test-poison',
      options: { retryLimit: 2, retryDelay: 0 },
      handler: async ([job]) => {
        attempts++;
        throw new Error(`cannot read ${job!.data.word}`);
      },
      givenUp: async (job) => {
        givenUp.push(job);
      },
    });
    await queue.start({ work: true });
    await queue.send('test-poison', { word: 'poison' });
    await until('the given-up handler', () => givenUp.length > 0);
    assert.equal(attempts, 3, 'the first attempt and two retries');
    assert.deepEqual(givenUp, [{ data: { word: 'poison' }, reason: 'cannot read poison', attempts: 3 }]);
    // Once only: the dead-letter job completed.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal(givenUp.length, 1);
    await queue.stop(1000);
  });

  test('a job whose worker process was killed (-9) is retried by another within seconds (heartbeats), not after its expiry', async () => {
    // An hour of expiry: only the missed heartbeats can bring the job back within the wait below.
    const options = { retryLimit: 2, retryDelay: 0, expireInSeconds: 3600, heartbeatSeconds: 10 };
    const worker = spawn(process.execPath, [WORKER, database.url], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    worker.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await until('the worker process to start', () => output.includes('started'));
    const sender = newQueue();
    sender.define({ name: 'test-crash', options, handler: async () => undefined });
    await sender.start({ work: false });
    await sender.send('test-crash', { word: 'survivor' });
    await until('the worker process to claim the job', () => output.includes('claimed'));
    worker.kill('SIGKILL');
    await once(worker, 'exit');

    const survivor = newQueue();
    const handled: { word: string; retryCount: number }[] = [];
    survivor.define({
      name: 'test-crash',
      options,
      handler: async ([job]) => {
        handled.push({ word: job!.data.word, retryCount: job!.retryCount });
      },
    });
    await survivor.start({ work: true });
    // Heartbeat 10 s, each queue checked every second: well inside 90 s on a loaded machine.
    await until('the retry on the surviving worker', () => handled.length === 1, { timeoutMs: 90_000 });
    assert.deepEqual(handled, [{ word: 'survivor', retryCount: 1 }]);
  });

  test("one tenant's backlog leaves a worker for another (group concurrency per tenant)", async () => {
    const queue = newQueue();
    const running: string[] = [];
    const release: (() => void)[] = [];
    queue.define({
      name: 'test-fair',
      options: { retryLimit: 0 },
      work: { batchSize: 1, localConcurrency: 2, localGroupConcurrency: 1 },
      handler: async ([job]) => {
        running.push(`${job!.data.tenant}${job!.data.index}`);
        await new Promise<void>((resolve) => release.push(resolve));
      },
    });
    await queue.start({ work: true });
    // The backlog of tenant a is queued first; tenant b's one job comes last.
    for (let index = 0; index < 4; index++)
      await queue.send('test-fair', { tenant: 'a', index }, { group: { id: 'a' } });
    await queue.send('test-fair', { tenant: 'b', index: 0 }, { group: { id: 'b' } });
    await until('two jobs running', () => running.length === 2);
    // One job of each tenant. Which of a's jobs runs is not fixed: two workers fetch at once, and
    // the one whose fetch is handled second has its job of a put back (the group is at its limit).
    assert.deepEqual(running.map((job) => job[0]).sort(), ['a', 'b'], `running: ${running.join(', ')}`);
    assert.ok(running.includes('b0'));
    release.splice(0).forEach((resolve) => resolve());
    await until('the next job of tenant a', () => running.length === 3);
    release.splice(0).forEach((resolve) => resolve());
    await queue.stop(1000);
  });
});
