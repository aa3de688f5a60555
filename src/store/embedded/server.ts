import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  closeSync,
  existsSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { ensurePrivateDirectory } from '../../core/private-files.ts';
import type { Logger } from 'pino';
import { binariesReachable, EmbeddedPostgresUnavailable, postgresBinaries } from './binaries.ts';
import { handOver, type ServerUser, serverUserFor, unreachableFor } from './server-user.ts';
import { initialise, serverEnvironment } from './cluster-init.ts';
import { postmasterStatus, startGuard, stopLeftOverServer, stopProcess } from './postmaster.ts';

/**
 * Embedded storage: a real PostgreSQL server of the service's own, its cluster in
 * DATA_DIR/postgres, listening on a Unix socket in that directory (owner-only, mode 0700) and on
 * TCP only when asked (EMBEDDED_POSTGRES_PORT). It starts with the service and stops with it; a
 * server a killed service left behind is stopped by its guard (below) or, failing that, by the
 * next start, and a crash's stale `postmaster.pid` is PostgreSQL's own to clear (it recovers
 * from its WAL as after any crash).
 */
export type EmbeddedPostgres = {
  /** A node-postgres/pg-boss connection string for the socket. */
  connectionString: string;
  pgdata: string;
  /** Fast shutdown (open sessions are ended, committed work is kept); resolves once it exited. */
  stop(): Promise<void>;
};

export type EmbeddedPostgresOptions = {
  dataDir: string;
  /** Also listen on 127.0.0.1:<port> (password: DATA_DIR/postgres-password); undefined: socket only. */
  port?: number | undefined;
  log?: Pick<Logger, 'info' | 'warn'> | undefined;
  /** Start the server again when it exits unexpectedly (default); false leaves it down. */
  restart?: boolean | undefined;
};

export const EMBEDDED_DATABASE = 'tributary';
const SUPERUSER = 'postgres';
/** The socket's number when no TCP port is asked for: it only names the socket file. */
const SOCKET_PORT = 5432;
/** sun_path is 104 bytes on macOS, 108 on Linux. */
const MAX_SOCKET_PATH = 103;
const READY_TIMEOUT_MS = 10 * 60_000;
const LOG_ROTATE_BYTES = 10 * 1024 * 1024;
/** A server that died is started again after this, doubling per failed try up to the maximum. */
const RESTART_FIRST_DELAY_MS = 500;
const RESTART_MAX_DELAY_MS = 30_000;

export const embeddedPaths = (dataDir: string) => ({
  pgdata: join(dataDir, 'postgres'),
  log: join(dataDir, 'postgres.log'),
  password: join(dataDir, 'postgres-password'),
});

/** How a client reaches the embedded server of `dataDir` (its socket), as a connection string. */
export function embeddedConnectionString(
  dataDir: string,
  options: { port?: number | undefined; database?: string } = {},
) {
  const { pgdata } = embeddedPaths(dataDir);
  const database = options.database ?? EMBEDDED_DATABASE;
  return `postgresql://${SUPERUSER}@localhost:${options.port ?? SOCKET_PORT}/${database}?host=${encodeURIComponent(pgdata)}`;
}

/**
 * Settings given on every start (so a new release's choices apply to an old cluster). Sized for
 * one service on one machine: a small shared-buffer pool (the OS page cache still holds the data
 * files), no checkpoint chatter in the log, UTC like the service.
 */
function serverSettings(pgdata: string, port: number | undefined): string[] {
  const settings: Record<string, string> = {
    listen_addresses: port === undefined ? '' : '127.0.0.1',
    port: String(port ?? SOCKET_PORT),
    unix_socket_directories: pgdata,
    unix_socket_permissions: '0700',
    shared_buffers: '32MB',
    max_connections: '60',
    timezone: 'UTC',
    log_timezone: 'UTC',
    log_checkpoints: 'off',
    io_workers: '1',
    huge_pages: 'off',
  };
  return Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`]);
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const { dataDir, port, log } = options;
  ensurePrivateDirectory(dataDir);
  const user = serverUserFor(dataDir);
  const binaries = user
    ? binariesReachable(postgresBinaries(), (path) => unreachableFor(path, user) === undefined)
    : postgresBinaries();
  const paths = embeddedPaths(dataDir);
  const socket = join(paths.pgdata, `.s.PGSQL.${port ?? SOCKET_PORT}`);
  if (Buffer.byteLength(socket) > MAX_SOCKET_PATH)
    throw new EmbeddedPostgresUnavailable(
      `DATA_DIR ${dataDir} is too long a path for the embedded PostgreSQL's socket (${socket}); ` +
        'use a shorter DATA_DIR',
    );
  if (user) admitServerUser(dataDir, user);

  if (!existsSync(join(paths.pgdata, 'PG_VERSION')))
    await initialise(paths, binaries.initdb, SUPERUSER, user, log);
  // A cluster restored (or moved) by root is handed over whole; one already its user's is left be.
  else if (user && statSync(paths.pgdata).uid !== user.uid) handOver(paths.pgdata, user);
  chmodSync(paths.pgdata, 0o700);
  await stopLeftOverServer(paths.pgdata, log);

  const spawnServer = () => spawnPostgres(binaries.postgres, paths, port, user);
  let server = spawnServer();
  const guard = startGuard(binaries.pgCtl, paths.pgdata, user);

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      guard?.kill('SIGKILL');
      await stopProcess(server.child.pid, server.exited);
    })();
    return stopping;
  };
  // A server that dies under a running service (killed, out of memory) is started again, from
  // its WAL like after any crash: without this every request would answer 503 until someone
  // restarted the whole service, while /health kept saying ok. Orphaned backends of a killed
  // postmaster keep its shared memory for a moment, so a restart that fails is tried again later.
  const supervise = (watched: SpawnedPostgres) => {
    void watched.exited.then(async (code) => {
      for (let attempt = 1; stopping === undefined && options.restart !== false; attempt++) {
        log?.warn(
          { pgdata: paths.pgdata, code, attempt },
          'the embedded PostgreSQL exited unexpectedly; starting it again',
        );
        await sleep(Math.min(RESTART_MAX_DELAY_MS, RESTART_FIRST_DELAY_MS * 2 ** (attempt - 1)));
        if (stopping !== undefined) return;
        server = spawnServer();
        try {
          await waitUntilReady(dataDir, port, server.exited, paths.log);
          log?.info({ pgdata: paths.pgdata, attempt }, 'the embedded PostgreSQL is running again');
          supervise(server);
          return;
        } catch {
          // Exited while starting, or (after READY_TIMEOUT_MS) hung: either way it is ended here.
          await stopProcess(server.child.pid, server.exited);
          code = await server.exited;
        }
      }
    });
  };
  try {
    await waitUntilReady(dataDir, port, server.exited, paths.log);
  } catch (error) {
    await stop().catch(() => {});
    throw error;
  }
  supervise(server);
  return { connectionString: embeddedConnectionString(dataDir, { port }), pgdata: paths.pgdata, stop };
}

type SpawnedPostgres = { child: ChildProcess; exited: Promise<number | null> };

function spawnPostgres(
  postgres: string,
  paths: ReturnType<typeof embeddedPaths>,
  port: number | undefined,
  user: ServerUser,
): SpawnedPostgres {
  rotateLog(paths.log);
  const logFd = openSync(paths.log, 'a', 0o600);
  let child: ChildProcess;
  try {
    child = spawn(postgres, ['-D', paths.pgdata, ...serverSettings(paths.pgdata, port)], {
      // Its own process group: a Ctrl-C in the terminal reaches the service, which finishes its
      // requests and then stops the server, instead of both at once.
      detached: true,
      stdio: ['ignore', logFd, logFd],
      env: serverEnvironment(),
      ...(user ? { uid: user.uid, gid: user.gid } : {}),
    });
  } finally {
    closeSync(logFd);
  }
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.once('error', () => {}); // spawn failures surface through `exited` and the log
  child.unref();
  return { child, exited };
}

/** The server's user must reach its data and its binaries; DATA_DIR lets its group pass (0710). */
function admitServerUser(dataDir: string, user: NonNullable<ServerUser>) {
  if (statSync(dataDir).uid === 0) {
    chownSync(dataDir, 0, user.gid);
    chmodSync(dataDir, 0o710);
  }
  const path = join(dataDir, 'postgres');
  const blocked = unreachableFor(path, user);
  if (blocked)
    throw new EmbeddedPostgresUnavailable(
      `PostgreSQL does not run as root, so the embedded one runs as ${user.name}, who cannot enter ` +
        `${blocked} (on the way to ${path}): run tributary as an ordinary user, give DATA_DIR to one ` +
        `(chown), or let ${user.name} pass (chmod o+x ${blocked})`,
    );
}

function rotateLog(path: string) {
  try {
    if (statSync(path).size > LOG_ROTATE_BYTES) renameSync(path, `${path}.1`);
  } catch {
    // no log yet
  }
}

function logTail(path: string) {
  try {
    return readFileSync(path, 'utf8').trim().split('\n').slice(-5).join(' | ');
  } catch {
    return '(no log)';
  }
}

/** Until the server accepts connections (a crash's recovery may take a while), and the database exists. */
async function waitUntilReady(
  dataDir: string,
  port: number | undefined,
  exited: Promise<number | null>,
  logPath: string,
) {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let exitCode: number | null | undefined;
  void exited.then((code) => (exitCode = code));
  const admin = embeddedConnectionString(dataDir, { port, database: 'postgres' });
  const { pgdata } = embeddedPaths(dataDir);
  for (;;) {
    if (exitCode !== undefined)
      throw new EmbeddedPostgresUnavailable(
        `the embedded PostgreSQL exited during start-up (code ${exitCode}): ${logTail(logPath)}`,
      );
    // The postmaster writes "ready" into its lock file once it accepts connections; asking
    // before that only fills its log with "the database system is starting up".
    if (postmasterStatus(pgdata) !== 'ready' && Date.now() < deadline) {
      await sleep(25);
      continue;
    }
    const client = new pg.Client({ connectionString: admin, connectionTimeoutMillis: 2_000 });
    client.on('error', () => {});
    try {
      await client.connect();
      const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [
        EMBEDDED_DATABASE,
      ]);
      if (!rowCount) await client.query(`create database ${EMBEDDED_DATABASE}`);
      return;
    } catch (error) {
      if (Date.now() > deadline)
        throw new EmbeddedPostgresUnavailable(
          `the embedded PostgreSQL did not accept connections within ${READY_TIMEOUT_MS / 1000} s ` +
            `(${(error as Error).message}): ${logTail(logPath)}`,
        );
      await sleep(50);
    } finally {
      await client.end().catch(() => {});
    }
  }
}

/** Attaching beside a service that is still starting its server: how long to wait for it. */
const ATTACH_WAIT_MS = 60_000;

/**
 * For a client of a server another process runs (a CLI command beside a service): resolves once
 * that server answers on its socket; rejects, saying so, when it does not within a minute.
 */
export async function waitForEmbeddedPostgres(dataDir: string, port: number | undefined): Promise<void> {
  const deadline = Date.now() + ATTACH_WAIT_MS;
  const connectionString = embeddedConnectionString(dataDir, { port });
  for (;;) {
    const client = new pg.Client({ connectionString, connectionTimeoutMillis: 2_000 });
    client.on('error', () => {});
    try {
      await client.connect();
      return;
    } catch (error) {
      if (Date.now() > deadline)
        throw new EmbeddedPostgresUnavailable(
          `the running service's embedded PostgreSQL (${embeddedPaths(dataDir).pgdata}) does not answer ` +
            `(${(error as Error).message}); see ${embeddedPaths(dataDir).log}`,
        );
      await sleep(100);
    } finally {
      await client.end().catch(() => {});
    }
  }
}

/**
 * Gives the `postgres` role a new password, kept in DATA_DIR/postgres-password (TCP clients need
 * it; the socket does not): a restored cluster comes with the backed-up one's, which is not kept.
 */
export async function setEmbeddedPassword(dataDir: string, port: number | undefined): Promise<void> {
  const password = randomBytes(24).toString('hex');
  const client = new pg.Client({
    connectionString: embeddedConnectionString(dataDir, { port, database: 'postgres' }),
  });
  client.on('error', () => {});
  await client.connect();
  try {
    const { rows } = await client.query<{ statement: string }>(
      `select format('alter role ${SUPERUSER} password %L', $1::text) as statement`,
      [password],
    );
    await client.query(rows[0]!.statement);
  } finally {
    await client.end().catch(() => {});
  }
  const file = embeddedPaths(dataDir).password;
  writeFileSync(file, `${password}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}
