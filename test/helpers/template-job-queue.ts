import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/core/config.ts';
import { createLogger } from '../../src/core/log.ts';
import { createJobQueue } from '../../src/jobs/queue.ts';
import { jobSettings } from '../../src/jobs/settings.ts';
import { createContext } from '../../src/runtime/context.ts';
import { defineJobs } from '../../src/runtime/workers/index.ts';
import type { Store } from '../../src/store/db.ts';

/**
 * The job queue's own tables (pg-boss's schema) and the service's queues, made in the run's
 * template as a serving process's first start makes them, so that each copy finds them in place:
 * installing pg-boss and creating its ~30 queues (a partition table each) was most of what a test
 * service's start cost in a fresh copy (~0.2–0.3 s of wall, quiet). No job, schedule or row of
 * the service's own is written: a process that starts on a copy still registers its schedules
 * and checks every queue's options, as it does on any database that has served before.
 */
export async function installJobQueue(store: Store): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tributary-template-'));
  try {
    const config = loadConfig({
      DATA_DIR: dataDir,
      DATABASE_URL: store.postgres.connectionString,
      ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      LOG_LEVEL: 'silent',
      JOB_QUEUE_POOL_SIZE: '2',
    });
    const log = createLogger('silent');
    const jobs = createJobQueue(store, log, config.settings.get(jobSettings));
    defineJobs(createContext({ config, store, jobs, log }));
    await jobs.start({ work: false });
    await jobs.stop(5_000);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
