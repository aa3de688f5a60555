// How many test files scripts/test.ts runs at once on a PostgreSQL with few connections to spare.
// Each file's services hold connections (a test service: its store's pool of 5, pg-boss's 3 and
// two listeners; a child service more), and a server out of connections answers every new one
// with "too many clients": tests fail in confusing ways, or wait. So the runner reads what the
// server allows before it starts and runs fewer files at once when it must, saying so.
import pg from 'pg';
import { TEST_JOB_QUEUE_POOL_SIZE } from './job-queue-settings.ts';

/**
 * Connections one file of the parallel lane may hold at its peak: one test service (store pool 5,
 * pg-boss's pool, its LISTEN and the change feed's) and as many again for a second service, a
 * child process or a scratch client.
 */
export const CONNECTIONS_PER_FILE = 2 * (5 + TEST_JOB_QUEUE_POOL_SIZE + 2);
/** Connections the serial lane's file may hold: up to four service processes (scale-out). */
export const CONNECTIONS_FOR_SERIAL_LANE = 40;

export type ServerConnections = {
  maxConnections: number;
  /** superuser_reserved_connections (and reserved_connections where the server has it). */
  reserved: number;
  /** Connections open when the run starts (other users of the server, this runner's own). */
  inUse: number;
};

/** The concurrency that fits, and the one line to print when it is lower than asked. */
export function fitConcurrency(
  server: ServerConnections,
  requested: number,
  serialLane: boolean,
): { concurrency: number; note?: string } {
  const spare = server.maxConnections - server.reserved - server.inUse;
  const forParallel = spare - (serialLane ? CONNECTIONS_FOR_SERIAL_LANE : 0);
  const fits = Math.max(1, Math.floor(forParallel / CONNECTIONS_PER_FILE));
  if (fits >= requested) return { concurrency: requested };
  const short = forParallel < CONNECTIONS_PER_FILE ? '; even one file at a time may run out' : '';
  return {
    concurrency: fits,
    note:
      `== PostgreSQL has ${spare} connections to spare (max_connections ${server.maxConnections}, ` +
      `${server.reserved} reserved, ${server.inUse} in use): ${fits} test file(s) at once instead of ` +
      `${requested} (each may take ${CONNECTIONS_PER_FILE}${serialLane ? `, the serial lane ${CONNECTIONS_FOR_SERIAL_LANE}` : ''})${short} ==`,
  };
}

/** What the server at `url` allows; undefined (with why) if it cannot say within a few seconds. */
export async function readServerConnections(url: string): Promise<ServerConnections | { unknown: string }> {
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: 3_000,
    statement_timeout: 3_000,
    query_timeout: 5_000,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    const { rows } = await client.query<{ max: string; reserved: string; in_use: string }>(`
      SELECT current_setting('max_connections') AS max,
             current_setting('superuser_reserved_connections')::int
               + coalesce(current_setting('reserved_connections', true), '0')::int AS reserved,
             (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend') AS in_use`);
    const row = rows[0]!;
    return { maxConnections: Number(row.max), reserved: Number(row.reserved), inUse: Number(row.in_use) };
  } catch (error) {
    return { unknown: (error as Error).message };
  } finally {
    await client.end().catch(() => {});
  }
}
