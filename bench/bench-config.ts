// The settings a bench's own runtime starts with: a fresh data dir, and on a DATABASE_URL a fresh
// schema and key of its own, so that a bench never reads or leaves behind another run's rows.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/core/config.ts';
import { withClient } from '../test/helpers/database.ts';

export function benchConfig(env: NodeJS.ProcessEnv = process.env) {
  const dataDir = mkdtempSync(join(tmpdir(), 'tributary-bench-'));
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const config = loadConfig({
    ...env,
    DATA_DIR: dataDir,
    LOG_LEVEL: env.LOG_LEVEL ?? 'warn',
    ...(env.DATABASE_URL ? { DATABASE_SCHEMA: schema, ENCRYPTION_KEY: randomBytes(32).toString('hex') } : {}),
  });
  return { config, dataDir, schema };
}

/** Removes what benchConfig made: on a DATABASE_URL the schema and its job queue's, and the data dir. */
export async function removeBenchConfig(
  { dataDir, schema }: { dataDir: string; schema: string },
  env: NodeJS.ProcessEnv = process.env,
) {
  if (env.DATABASE_URL)
    await withClient(env.DATABASE_URL, async (client) => {
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.query(`DROP SCHEMA IF EXISTS ${schema}_jobs CASCADE`);
    });
  rmSync(dataDir, { recursive: true, force: true });
}
