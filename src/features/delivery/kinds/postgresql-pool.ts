// The connection of a PostgreSQL destination: its pool, opened on first use with the host
// resolved, checked and pinned (destination-policy.ts `dialAddress`) and the service's own
// databases refused (own-database.ts), pg given a config object (never the URL string) and the
// sslmode's TLS options; every socket tracked, so a deadline can tear them down (pg has no
// abort); transactions on it, and which errors mean the event itself is refused. Separate from
// the statements: this part knows nothing of what is written.
import { Socket } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import pg from 'pg';
import { DestinationBlockedError, dialAddress } from '../destination-policy.ts';
import { ownDatabaseReason } from '../own-database.ts';
import { describeFailure, type KindConnectOptions, type KindResult } from './kind.ts';
import type { PostgresqlSettings } from './postgresql-settings.ts';
import { parsePostgresqlUrl, type PostgresqlTarget } from './postgresql-url.ts';

/** SQLSTATE classes that mean this event can never be stored as it is: data exceptions, integrity. */
const REJECTING_CLASSES = new Set(['22', '23']);

export function classifyPgError(error: unknown): KindResult['outcome'] {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && REJECTING_CLASSES.has(code.slice(0, 2)))
    return 'rejected';
  // Connection refused or reset, a terminated backend (57P01), a database renamed or gone (3D000),
  // connect revoked (42501), authentication failed (28xxx), a statement timeout: the developer's
  // side may recover or be fixed, so the retry schedule applies (and then failing / disabled).
  return 'retry';
}

/**
 * pg's TLS options for the sslmode (libpq's meanings): `require` encrypts without checking the
 * server (unless a CA is given, as libpq does with a root certificate), `verify-ca` checks the
 * chain, `verify-full` the chain and the host name. The host is dialled by address, so the name
 * to check goes as `servername`.
 */
function sslOptions(settings: PostgresqlSettings, target: PostgresqlTarget): false | ConnectionOptions {
  const mode = target.sslmode ?? (settings.tls_ca ? 'verify-full' : 'disable');
  if (mode === 'disable') return false;
  const material: ConnectionOptions = {
    ...(settings.tls_ca ? { ca: settings.tls_ca } : {}),
    ...(settings.tls_cert && settings.tls_key ? { cert: settings.tls_cert, key: settings.tls_key } : {}),
    servername: target.host,
  };
  if (mode === 'require' && !settings.tls_ca) return { ...material, rejectUnauthorized: false };
  if (mode === 'verify-full') return { ...material, rejectUnauthorized: true };
  // verify-ca (or require with a CA): the chain, not the name.
  return { ...material, rejectUnauthorized: true, checkServerIdentity: () => undefined };
}

/** Reads stored settings again with today's rules (a row saved before them may carry a refused URL). */
function targetOf(settings: PostgresqlSettings): PostgresqlTarget {
  try {
    return parsePostgresqlUrl(settings.url);
  } catch (error) {
    throw new DestinationBlockedError(
      `the stored settings are refused (${(error as Error).message}); change them with PATCH /v2/destinations/{id}`,
    );
  }
}

export function createPostgresqlPool(settings: PostgresqlSettings, options: KindConnectOptions) {
  const { log } = options;
  /** Every socket this connection's pool opened, so a deadline can tear them down (pg has no abort). */
  const sockets = new Set<Socket>();
  let pool: pg.Pool | null = null;
  let opening: Promise<pg.Pool> | null = null;

  async function makePool(): Promise<pg.Pool> {
    const target = targetOf(settings);
    const pinned = await dialAddress(target.host, options.environment, options.resolve);
    const own = await ownDatabaseReason(
      { addresses: [pinned], ...target },
      options.ownDatabases,
      options.resolve,
    );
    if (own) throw new DestinationBlockedError(own);
    const made = new pg.Pool({
      host: pinned.address,
      port: target.port,
      database: target.database,
      user: target.user,
      // A function, so pg never falls back to PGPASSWORD or a ~/.pgpass file of this server.
      password: async () => target.password ?? '',
      ssl: sslOptions(settings, target),
      stream: () => {
        const socket = new Socket();
        sockets.add(socket);
        socket.once('close', () => sockets.delete(socket));
        return socket;
      },
      max: 4,
      connectionTimeoutMillis: Math.min(
        options.connectTimeoutMs,
        (target.connectTimeout ?? Number.POSITIVE_INFINITY) * 1000,
      ),
      idleTimeoutMillis: 30_000,
      statement_timeout: 30_000,
      application_name: target.applicationName ?? 'tributary-destination',
    });
    // A client the server drops while idle (restart, pg_terminate_backend) errors on the pool;
    // it is discarded and the next send connects again.
    made.on('error', (error) =>
      log.warn({ err: describeFailure(error) }, 'destination database connection lost'),
    );
    pool = made;
    return made;
  }

  function openPool(): Promise<pg.Pool> {
    opening ??= makePool().catch((error: unknown) => {
      opening = null;
      throw error;
    });
    return opening;
  }

  /** One transaction on a pooled client; a client whose connection failed is destroyed, not returned. */
  async function inTransaction(body: (client: pg.PoolClient) => Promise<void>): Promise<void> {
    const client = await (await openPool()).connect();
    let broken: unknown = undefined;
    try {
      await client.query('BEGIN');
      await body(client);
      await client.query('COMMIT');
    } catch (error) {
      broken = error;
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release(
        broken !== undefined && classifyPgError(broken) === 'retry' ? (broken as Error) : undefined,
      );
    }
  }

  /** Tears down every socket at once: the deadline passed, or the connection is being closed. */
  // (Every send of this connection loses its socket then: the engine closes the connection after
  // a deadline anyway, and they all wait on the same unanswering server.)
  function destroySockets() {
    for (const socket of sockets) socket.destroy();
    sockets.clear();
  }

  /** Ends the pool and tears down its sockets: the connection is being closed. */
  async function close() {
    const current = pool;
    pool = null;
    opening = null;
    destroySockets();
    await current?.end().catch(() => undefined);
  }

  return { openPool, inTransaction, destroySockets, close };
}
