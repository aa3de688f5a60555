// A worker process for test/integration/job-quarantine.test.ts: it runs the `test-poison-crash`
// queue on the database DATABASE_URL names (a test database of its own) with a crash limit
// of 2. A job whose word starts with `poison` kills the process (-9) every time it runs; any other
// job is done and said so (`done <word>`). With `send` it first queues the jobs named after it.
// `quarantined <n>` is printed whenever the quarantine holds n jobs; SIGTERM stops it cleanly.
import pino from 'pino';
import { createLogger } from '../../src/core/log.ts';
import { createJobQueue } from '../../src/jobs/queue.ts';
import { openStore } from '../../src/store/db.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { QUICK_SUPERVISION } from './job-queue-settings.ts';

declare module '../../src/jobs/queues.ts' {
  interface QueuePayloads {
    'test-poison-crash': { word: string; api_token?: string };
  }
}

const args = process.argv.slice(2);
const send = args[0] === 'send' ? args.slice(1) : [];
const store = await openStore({ databaseUrl: process.env.DATABASE_URL, dataDir: undefined });
await migrateToLatest(store.db, store.postgres?.schema);
// Written synchronously: this process is killed by its own poison jobs, and a line still queued
// for the pipe when that happens (the quarantine's, written just before the next poison job runs)
// would be lost, and the test that counts them fail (seen at load 12).
const log = createLogger(process.env.WORKER_LOG_LEVEL ?? 'error', pino.destination({ dest: 1, sync: true }));
const queue = createJobQueue(store, log, {
  crashLimit: 2,
  ...QUICK_SUPERVISION,
});
queue.define({
  name: 'test-poison-crash',
  // Heartbeats bring a dead process's job back within seconds; retries enough for the crash limit.
  options: { retryLimit: 5, retryDelay: 0, expireInSeconds: 3600, heartbeatSeconds: 10 },
  work: { batchSize: 4 },
  handler: async (jobs) => {
    for (const job of jobs) {
      if (job.data.word.startsWith('poison')) {
        process.stdout.write(`crashing on ${job.data.word}\n`);
        process.kill(process.pid, 'SIGKILL');
        await new Promise(() => undefined);
      }
    }
    for (const job of jobs) process.stdout.write(`done ${job.data.word}\n`);
  },
});
await queue.start({ work: false });
for (const word of send)
  await queue.send('test-poison-crash', {
    word,
    ...(word.startsWith('poison') ? { api_token: 'tok-secret-123' } : {}),
  });
await queue.work();
process.stdout.write('started\n');

let seen = -1;
const watch = setInterval(() => {
  void queue.quarantine.list().then((jobs) => {
    if (jobs.length !== seen) process.stdout.write(`quarantined ${jobs.length}\n`);
    seen = jobs.length;
  });
}, 500);
process.on('SIGTERM', () => {
  clearInterval(watch);
  void queue
    .stop(2000)
    .then(() => store.close())
    .then(() => process.exit(0));
});
