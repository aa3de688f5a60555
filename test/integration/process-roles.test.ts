// Split roles as an operator runs them: `serve --role api` answers HTTP and runs no jobs;
// `serve --role worker` has no HTTP and is what registers and runs the recurring jobs.
// Needs PostgreSQL (embedded storage belongs to one process).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import pg from 'pg';
import { loadConfig } from '../../src/core/config.ts';
import { recurringJobs } from '../../src/runtime/workers/index.ts';
import { childEnvironment, jobsSchemaOf, startService } from '../helpers/child-service.ts';
import { databaseSkipReason } from '../helpers/database.ts';
import { untilDefined } from '../helpers/until.ts';

const skip = await databaseSkipReason();
/** The processes' database (each environment has one of its own). */
let databaseUrl: string | undefined;
const ROOT = new URL('../../', import.meta.url).pathname;

async function query<T extends object>(text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

describe('process roles', { skip }, () => {
  it('an API-only process registers no recurring job; a worker-only process registers and runs them', async () => {
    const environment = await childEnvironment({ SANDBOX_ARRIVAL_MINUTES: '1' });
    databaseUrl = environment.env.DATABASE_URL;
    const jobsSchema = jobsSchemaOf(environment.env);
    /** The recurring jobs registered so far (none while the queue's tables do not exist yet). */
    const schedules = async (): Promise<string[]> => {
      const [exists] = await query<{ present: boolean }>(
        `SELECT to_regclass('${jobsSchema}.schedule') IS NOT NULL AS present`,
      );
      if (!exists?.present) return [];
      const rows = await query<{ name: string }>(`SELECT name FROM ${jobsSchema}.schedule`);
      return rows.map((row) => row.name).sort();
    };
    const api = await startService(environment.env, ['serve', '--role', 'api']);
    try {
      assert.deepEqual(await schedules(), [], 'the API role must not schedule recurring jobs');

      const worker = spawn(
        join(ROOT, 'node_modules/.bin/node'),
        [join(ROOT, 'bin/tributary.js'), 'serve', '--role', 'worker'],
        {
          env: { ...environment.env, PORT: '0' },
          cwd: ROOT,
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let output = '';
      worker.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      worker.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const exited = new Promise((resolve) => worker.once('exit', resolve));
      try {
        // Every recurring job this deployment declares (store.maintenance is retired: autovacuum
        // runs on every store now, and its old schedule is removed).
        const expected = recurringJobs({ config: loadConfig(environment.env) })
          .filter((job) => job.schedule !== null)
          .map((job) => job.queue)
          .sort();
        assert.ok(expected.includes('connectors.maintenance') && !expected.includes('store.maintenance'));
        const registered = await untilDefined(
          'schedules registered by the worker',
          async () => {
            const names = await schedules();
            return expected.every((name) => names.includes(name)) ? names : undefined;
          },
          { intervalMs: 250 },
        );
        assert.deepEqual(registered, expected);
        // pg-boss turns a due schedule into a job within its cron interval; the worker runs it.
        await untilDefined(
          'a recurring job completed by the worker',
          async () => {
            const rows = await query<{ state: string }>(
              `SELECT state FROM ${jobsSchema}.job WHERE name = 'data.provider-arrivals' AND state = 'completed'`,
            );
            return rows.length > 0 ? true : undefined;
          },
          { intervalMs: 250, timeoutMs: 150_000 },
        ).catch((error: unknown) => {
          throw new Error(`${(error as Error).message}\nworker output:\n${output}`);
        });
      } finally {
        worker.kill('SIGTERM');
        await exited;
      }
    } finally {
      await api.stop();
      await environment.cleanup();
    }
  });
});
