import { randomBytes } from 'node:crypto';
import { databaseSkipReason, withClient } from './database.ts';

/**
 * A PostgreSQL database of a test's own, for fault tests that terminate every backend of "the
 * server's database": on a database nobody else uses, that query hits only the service under
 * test (the shared test database has other test files' connections on it).
 */
export type ScratchDatabase = {
  name: string;
  /** DATABASE_URL for the scratch database, optionally through another host and port. */
  url(via?: { host: string; port: number }): string;
  /** Every backend of the database but the caller's own, terminated; returns how many. */
  terminateBackends(): Promise<number>;
  drop(): Promise<void>;
};

/** Why a PostgreSQL test cannot run here, or `false` when it can (see test/helpers/database.ts). */
export const postgresSkipReason = databaseSkipReason;

export async function createScratchDatabase(baseUrl: string, prefix = 'tributary'): Promise<ScratchDatabase> {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  await withClient(baseUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  const url = (via?: { host: string; port: number }) => {
    const parsed = new URL(baseUrl);
    parsed.pathname = `/${name}`;
    if (via) {
      parsed.hostname = via.host;
      parsed.port = String(via.port);
    }
    return parsed.toString();
  };
  return {
    name,
    url,
    terminateBackends: () =>
      withClient(url(), async (client) => {
        const result = await client.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid()`,
        );
        return result.rowCount ?? 0;
      }),
    drop: () =>
      withClient(baseUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(
        () => {},
      ),
  };
}
