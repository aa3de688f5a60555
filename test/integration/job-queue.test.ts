import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { createJobQueue, type JobQueue } from '../../src/jobs/queue.ts';
import { createLogger } from '../../src/core/log.ts';
import { openStore, type Store } from '../../src/store/db.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';

/**
 * The queue itself, below any feature: jobs survive a restart, retry with backoff, and
 * commit or roll back with the transaction that sent them. Runs on embedded PGlite (with a
 * data directory, so a restart is real) or, with DATABASE_URL, on PostgreSQL.
 */
const log = createLogger('silent');
const dataDir = mkdtempSync(join(tmpdir(), 'tributary-queue-'));
const schema = `q_${randomBytes(5).toString('hex')}`;

async function open(): Promise<Store> {
  const store = await openStore({ databaseUrl: process.env.DATABASE_URL, dataDir, schema });
  await migrateToLatest(store.db, store.postgres?.schema);
  return store;
}

async function until(condition: () => boolean, what: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('job queue', () => {
  after(async () => {
    rmSync(dataDir, { recursive: true, force: true });
    if (process.env.DATABASE_URL) {
      const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.query(`DROP SCHEMA IF EXISTS ${schema}_jobs CASCADE`);
      await client.end();
    }
  });

  test('a job sent before a restart runs after it', async () => {
    const received: string[] = [];
    const define = (jobs: JobQueue) =>
      jobs.define<{ word: string }>({
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
    await until(() => received.length === 1, 'the job sent before the restart');
    assert.deepEqual(received, ['survived']);
    await jobs.stop();
    await store.close();
  });

  test('a failing job is retried with backoff, and a job sent in a rolled-back transaction never exists', async () => {
    const store = await open();
    const jobs = createJobQueue(store, log);
    const attempts: { word: string; at: number }[] = [];
    jobs.define<{ word: string }>({
      name: 'test-retry',
      options: { retryLimit: 2, retryDelay: 1, retryBackoff: false },
      work: { pollingIntervalSeconds: 0.5, notifyPollingIntervalSeconds: 0.5 },
      handler: async (batch) => {
        for (const job of batch) {
          attempts.push({ word: job.data.word, at: Date.now() });
          if (job.data.word === 'flaky' && attempts.filter((a) => a.word === 'flaky').length === 1) {
            throw new Error('first attempt fails');
          }
        }
      },
    });
    await jobs.start({ work: true });

    await store.db
      .transaction()
      .execute(async (trx) => {
        await jobs.send('test-retry', { word: 'rolled-back' }, { trx });
        throw new Error('abort the transaction');
      })
      .catch(() => {});
    await store.db.transaction().execute(async (trx) => {
      await sql`select 1`.execute(trx);
      await jobs.send('test-retry', { word: 'flaky' }, { trx });
    });

    await until(() => attempts.filter((a) => a.word === 'flaky').length === 2, 'the retried job');
    const [first, second] = attempts.filter((a) => a.word === 'flaky');
    assert.ok(
      second!.at - first!.at >= 900,
      `retry came after ${second!.at - first!.at} ms, expected >= 1 s`,
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    assert.equal(attempts.filter((a) => a.word === 'rolled-back').length, 0);
    await jobs.stop();
    await store.close();
  });
});
