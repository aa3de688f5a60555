import pg from 'pg';

/**
 * A database for a PostgreSQL destination on a test server, owned by a role of its own: a
 * destination may not connect as the service's own role on the service's server (issue 40), and
 * the tests' service runs as the server's superuser when DATABASE_URL is set.
 */
export const DESTINATION_ROLE = 'tributary_destination';

async function onServer<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  client.on('error', () => {});
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/** Creates `database` owned by DESTINATION_ROLE; returns its URL as that role. */
export async function createDestinationDatabase(serverUrl: string, database: string): Promise<URL> {
  await onServer(serverUrl, async (client) => {
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
