// A worker process for test/integration/job-queue-poison.test.ts: it claims one `test-crash` job on
// the PostgreSQL database it is given, says so on stdout, and holds it until the test kills it (-9).
import { createLogger } from '../../src/core/log.ts';
import { createJobQueue } from '../../src/jobs/queue.ts';
import { openStore } from '../../src/store/db.ts';
import { QUICK_SUPERVISION } from './job-queue-settings.ts';

const [databaseUrl] = process.argv.slice(2);
const store = await openStore({ databaseUrl: databaseUrl!, dataDir: undefined });
const queue = createJobQueue(store, createLogger('silent'), QUICK_SUPERVISION);
queue.define({
  name: 'test-crash',
  options: { retryLimit: 2, retryDelay: 0, expireInSeconds: 3600, heartbeatSeconds: 10 },
  handler: async () => {
    process.stdout.write('claimed\n');
    await new Promise(() => undefined);
  },
});
await queue.start({ work: true });
process.stdout.write('started\n');
