// Poison work ends (issue 40, item 4): a job that kills its worker process every time it runs is
// not retried into the same crash for ever. Worker processes (test/helpers/poison-worker.ts, crash
// limit 2) run one queue on one store; two poison jobs kill them (-9), each is restarted as an
// operator's supervisor would. After two crashes each poison job is quarantined (an error log line
// names it), the other jobs of the queue are done, and the operator dashboard lists the quarantined
// jobs (queue, id, payload without its secret, reason) and releases or discards them.
// Each test works in a PostgreSQL database of its own (test/helpers/database.ts).
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { after, describe, it } from 'node:test';
import { createLogger } from '../../src/core/log.ts';
import { createJobQueue, type JobQueue } from '../../src/jobs/queue.ts';
import { openStore } from '../../src/store/db.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { startTestService, type TestService } from '../helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { DashboardClient, formTokenIn } from '../helpers/dashboard.ts';
import { until } from '../helpers/until.ts';
import { QUICK_SUPERVISION } from '../helpers/job-queue-settings.ts';

const WORKER = new URL('../helpers/poison-worker.ts', import.meta.url).pathname;
const OPERATOR_TOKEN = 'operator-token-for-the-quarantine-test-0123456789';
const GOOD = ['good-1', 'good-2', 'good-3'];
const POISON = ['poison-a', 'poison-b'];

let database: TestDatabase | undefined;
let service: TestService | undefined;
const workers: ChildProcess[] = [];
after(async () => {
  for (const worker of workers)
    if (worker.exitCode === null && worker.signalCode === null) worker.kill('SIGKILL');
  await service?.close();
  await database?.drop();
});

type Run = {
  output: () => string;
  exited: Promise<{ code: number | null; signal: string | null }>;
  child: ChildProcess;
};

function runWorker(args: string[]): Run {
  const child = spawn(process.execPath, [WORKER, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, DATABASE_URL: database!.url, WORKER_LOG_LEVEL: 'error' },
  });
  workers.push(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { output: () => output, exited, child };
}

describe('a job that crashes its process every time is quarantined', () => {
  it(
    'after two crashes each, both poison jobs are quarantined, the other jobs are done, the operator sees and settles them',
    { timeout: 600_000 },
    async () => {
      database = await createTestDatabase();
      const outputs: string[] = [];
      let crashes = 0;
      let last: Run | undefined;
      // A supervisor's loop: start a worker, and start another whenever one dies.
      for (let start = 0; start < 8; start++) {
        const run = runWorker(start === 0 ? ['send', ...POISON, ...GOOD] : []);
        last = run;
        const settled = await Promise.race([
          run.exited.then((exit) => ({ kind: 'exited' as const, exit })),
          until(
            'the poison jobs quarantined and the others done',
            () =>
              run.output().includes('quarantined 2') &&
              GOOD.every((word) => [...outputs, run.output()].join('').includes(`done ${word}`)),
            { timeoutMs: 240_000, intervalMs: 200, show: () => [...outputs, run.output()].join('\n---\n') },
          ).then(() => ({ kind: 'settled' as const })),
        ]);
        if (settled.kind === 'settled') break;
        assert.equal(settled.exit.signal, 'SIGKILL', `a worker ended otherwise:\n${run.output()}`);
        outputs.push(run.output());
        crashes++;
      }
      const all = [...outputs, last!.output()].join('\n---\n');
      assert.ok(last!.output().includes('quarantined 2'), all);
      // Two crashes per poison job at most (the first one may take both down at once), never more.
      assert.ok(crashes >= 2 && crashes <= 4, `${crashes} crashes:\n${all}`);
      for (const word of POISON) {
        const ran = all.split('\n').filter((line) => line === `crashing on ${word}`).length;
        assert.ok(ran <= 2, `${word} ran ${ran} times:\n${all}`);
      }
      const quarantineLines = all.split('\n').filter((line) => line.includes('job quarantined'));
      assert.equal(quarantineLines.length, 2, all);
      for (const line of quarantineLines) {
        assert.equal((JSON.parse(line) as { level: number }).level, 50, 'logged at error level');
        assert.match(line, /crashed the process 2 times/);
        assert.doesNotMatch(line, /tok-secret-123/);
      }
      last!.child.kill('SIGTERM');
      assert.equal((await last!.exited).code, 0, last!.output());

      // The operator's page, on the same store.
      service = await startTestService({
        work: false,
        database,
        env: { OPERATOR_TOKEN },
      });
      const browser = new DashboardClient(service.app);
      const signIn = await browser.get('/dashboard');
      assert.equal(
        (
          await browser.post('/dashboard/operator/sign-in', {
            csrf: formTokenIn(signIn.body),
            operator_token: OPERATOR_TOKEN,
          })
        ).statusCode,
        303,
      );
      const page = await browser.get('/dashboard/operator/jobs');
      assert.equal(page.statusCode, 200);
      const quarantined = await service.ctx.jobs.quarantine.list();
      assert.deepEqual(quarantined.map((job) => (job.payload as { word: string }).word).sort(), POISON);
      for (const job of quarantined) {
        assert.ok(page.body.includes(job.jobId), 'the job id is listed');
        assert.equal(job.queue, 'test-poison-crash');
        assert.equal(job.crashes, 2);
      }
      assert.ok(page.body.includes('test-poison-crash'));
      assert.ok(page.body.includes('crashed the process 2 times'));
      assert.ok(page.body.includes('api_token: …'), 'the secret field is named, its value elided');
      assert.ok(!page.body.includes('tok-secret-123'), 'no secret on the page');

      const [first, second] = quarantined;
      const released = await browser.submit('/dashboard/operator/jobs', '/dashboard/operator/jobs/release', {
        job_id: first!.jobId,
      });
      assert.equal(released.statusCode, 303);
      const discarded = await browser.submit('/dashboard/operator/jobs', '/dashboard/operator/jobs/discard', {
        job_id: second!.jobId,
      });
      assert.equal(discarded.statusCode, 303);
      assert.deepEqual(await service.ctx.jobs.quarantine.list(), []);
      // The released payload waits in its queue again, as a new job.
      const waiting = await service.ctx.jobs
        .boss()
        .findJobs('test-poison-crash', { data: { word: (first!.payload as { word: string }).word } });
      assert.ok(
        waiting.some((job) => job.state === 'created' && job.id !== first!.jobId),
        JSON.stringify(waiting),
      );
      const audit = await service.ctx.dashboard.auditLog({}, 10);
      assert.deepEqual(
        audit
          .map((entry) => entry.action)
          .filter((action) => action.startsWith('job.'))
          .sort(),
        ['job.discard', 'job.release'],
      );
    },
  );
});

declare module '../../src/jobs/queues.ts' {
  interface QueuePayloads {
    'test-stopped-mid-job': { word: string };
  }
}

describe('a graceful stop in the middle of a job is no crash', () => {
  it(
    'the job runs again on the next worker, not quarantined, even at a crash limit of 1',
    { timeout: 240_000 },
    async () => {
      const stopDatabase = await createTestDatabase();
      const store = await openStore({ databaseUrl: stopDatabase.url, dataDir: undefined });
      const queues: JobQueue[] = [];
      try {
        await migrateToLatest(store.db, store.postgres?.schema);
        const options = { retryLimit: 3, retryDelay: 0, expireInSeconds: 3600, heartbeatSeconds: 10 };
        const first = createJobQueue(store, createLogger('silent'), { crashLimit: 1, ...QUICK_SUPERVISION });
        queues.push(first);
        let started = false;
        first.define({
          name: 'test-stopped-mid-job',
          options,
          handler: async () => {
            started = true;
            await new Promise(() => undefined);
          },
        });
        await first.start({ work: true });
        await first.send('test-stopped-mid-job', { word: 'long' });
        await until('the first worker to start the job', () => started);
        await first.stop(200);

        const second = createJobQueue(store, createLogger('silent'), { crashLimit: 1, ...QUICK_SUPERVISION });
        queues.push(second);
        const ran: string[] = [];
        second.define({
          name: 'test-stopped-mid-job',
          options,
          handler: async ([job]) => {
            ran.push(job!.data.word);
          },
        });
        await second.start({ work: true });
        // Heartbeat 10 s, each queue checked every second.
        await until('the job to run again', () => ran.length === 1, { timeoutMs: 120_000 });
        assert.deepEqual(await second.quarantine.list(), []);
        await second.stop(1000);
      } finally {
        for (const queue of queues) await queue.stop(200).catch(() => undefined);
        await store.close();
        await stopDatabase.drop();
      }
    },
  );
});
