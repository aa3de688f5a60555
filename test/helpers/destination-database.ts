import { withClient } from './database.ts';

/**
 * A database for a PostgreSQL destination on a test server, owned by a role of its own: a
 * destination may not connect as the service's own role on the service's server (issue 40), and
 * the tests' service runs as the server's superuser when DATABASE_URL is set.
 */
export const DESTINATION_ROLE = 'tributary_destination';

/** The server destination tests and benches create their databases on. */
export const DESTINATION_SERVER =
  process.env.DESTINATION_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Why there is no server to create destination databases on, or `false` when there is. */
export async function destinationServerSkipReason(): Promise<string | false> {
  try {
    await withClient(DESTINATION_SERVER, (client) => client.query('SELECT 1'), 3_000);
    return false;
  } catch (error) {
    return `needs a PostgreSQL server for destination databases at ${DESTINATION_SERVER} (${(error as Error).message})`;
  }
}

/** Creates `database` owned by DESTINATION_ROLE; returns its URL as that role. */
export async function createDestinationDatabase(serverUrl: string, database: string): Promise<URL> {
  await withClient(serverUrl, async (client) => {
    // Test files run at once: another may be creating the role right now.
    await client.query(`CREATE ROLE ${DESTINATION_ROLE} LOGIN`).catch((error: { code?: string }) => {
      if (error.code !== '42710' && error.code !== '23505') throw error;
    });
    await client.query(`CREATE DATABASE ${database} OWNER ${DESTINATION_ROLE}`);
  });
  const url = new URL(serverUrl);
  url.username = DESTINATION_ROLE;
  url.password = '';
  url.pathname = `/${database}`;
  return url;
}

/** Drops `database` (made by createDestinationDatabase), whoever is still connected to it. */
export async function dropDestinationDatabase(serverUrl: string, database: string): Promise<void> {
  await withClient(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
}
