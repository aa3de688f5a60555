// Once per test run (node --test --test-global-setup=test/global-setup.ts, as scripts/test.ts
// runs it): finds the PostgreSQL the tests use, drops what killed runs left there, and makes this
// run's migrated template, which each test service copies (test/helpers/database.ts). The names
// reach every test file through the environment; the teardown drops the run's databases.
import {
  createTemplate,
  databaseSkipReason,
  dropRunDatabases,
  dropStaleDatabases,
  newRunId,
  TEST_RUN_ENV,
  testDatabaseUrl,
} from './helpers/database.ts';

let made: { serverUrl: string; runId: string } | undefined;

export async function globalSetup(): Promise<void> {
  const skip = await databaseSkipReason();
  if (skip) {
    console.warn(`test setup: ${skip}; tests that need the store fail with this reason`);
    return;
  }
  // Also DATABASE_URL from now on, for every test file (see testDatabaseUrl).
  const serverUrl = await testDatabaseUrl();
  const stale = await dropStaleDatabases(serverUrl);
  if (stale.length) console.log(`test setup: dropped ${stale.length} database(s) left by killed runs`);
  const runId = process.env[TEST_RUN_ENV.run] ?? newRunId();
  const template = `${runId}_template`;
  await createTemplate(serverUrl, template);
  process.env[TEST_RUN_ENV.run] = runId;
  process.env[TEST_RUN_ENV.template] = template;
  made = { serverUrl, runId };
}

export async function globalTeardown(): Promise<void> {
  if (made) await dropRunDatabases(made.serverUrl, made.runId);
}
