// A worker process for test/integration/fhir-export-crash.test.ts: the whole service's queues on
// the PostgreSQL database it is given (no HTTP). With `slow`, each page of records the export reads
// is announced on stdout (`page N`) and held a moment, so the test can kill it (-9) mid-export.
import { loadConfig } from '../../src/core/config.ts';
import { createLogger } from '../../src/core/log.ts';
import { createJobQueue } from '../../src/jobs/queue.ts';
import { createContext } from '../../src/runtime/context.ts';
import { defineJobs } from '../../src/runtime/workers/index.ts';
import { openStore } from '../../src/store/db.ts';
import { QUICK_SUPERVISION } from './job-queue-settings.ts';

const [databaseUrl, mode, encryptionKey, dataDir] = process.argv.slice(2);
const config = loadConfig({
  DATA_DIR: dataDir!,
  ENCRYPTION_KEY: encryptionKey!,
  LOG_LEVEL: 'silent',
  PUBLIC_URL: 'http://127.0.0.1:8080',
  DATABASE_URL: databaseUrl!,
  SANDBOX_ARRIVAL_MINUTES: 'off',
});
const store = await openStore({
  databaseUrl: config.databaseUrl,
  dataDir: undefined,
  poolSize: 3,
});
const log = createLogger('silent');
const jobs = createJobQueue(store, log, QUICK_SUPERVISION);
const ctx = createContext({ config, store, jobs, log });
if (mode === 'slow') {
  // The export reads through the data service's recordPage; the same object is the fhir feature's.
  const read = ctx.data.recordPage;
  let pages = 0;
  ctx.data.recordPage = async (...args) => {
    const page = await read(...args);
    pages += 1;
    process.stdout.write(`page ${pages}\n`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    return page;
  };
}
defineJobs(ctx);
await jobs.start({ work: true });
process.stdout.write('started\n');
