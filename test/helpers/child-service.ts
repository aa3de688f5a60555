import { type ChildProcess, execFile, spawn, type StdioOptions } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, testDatabaseUrl } from './database.ts';
import { freePort } from './ports.ts';
import { until } from './until.ts';
import { TEST_JOB_QUEUE_POOL_SIZE } from './job-queue-settings.ts';

export { freePort };

/**
 * Tributary as a separate process, exactly as an operator runs it (`bin/tributary.js`), for
 * tests of the CLI, restarts and crashes: on the test PostgreSQL (test/helpers/database.ts), in a
 * database of its own copied from the run's migrated template (schema `public`, as the in-process
 * test services have it), or, for a test of migrating (`{ database: 'empty' }`), in an empty
 * database and a schema of its own there, which the child migrates as a first start does.
 * `DATABASE_URL: ''` in `extra` gives it the default embedded storage in its data dir; another
 * DATABASE_URL in `extra` is used as given.
 */
const ROOT = new URL('../../', import.meta.url).pathname;
const NODE = join(ROOT, 'node_modules/.bin/node');
const BIN = join(ROOT, 'bin/tributary.js');

/**
 * Ports are handed to the child, never probed free and bound again: the environment's PORT is a
 * socket this process binds (port 0: the kernel picks) and holds, and the child serves on it as
 * its standard input (`serve --listen-stdin`: stdin survives the launcher's re-exec, a descriptor
 * of 3 or more would not). Nothing can take the port in between, so no machine-wide claim is
 * needed. Held sockets by port; each is handed over once (a restart on the same environment binds
 * the port again, here, and hands that over).
 */
const heldSockets = new Map<string, Server>();

function listening(host: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ host, port, exclusive: true }, () => {
      server.off('error', reject);
      // Held for a child: it must not keep this process alive, nor accept anything itself.
      server.unref();
      resolve(server);
    });
  });
}

/** A socket bound on 127.0.0.1 (the kernel's choice of port), held until a child is handed it. */
async function holdPort(): Promise<number> {
  const server = await listening('127.0.0.1', 0);
  const port = (server.address() as { port: number }).port;
  heldSockets.set(String(port), server);
  return port;
}

/** The held socket of `port`, or a new one bound to it (a restart), taken out of the map. */
async function socketFor(host: string, port: string): Promise<Server> {
  const held = heldSockets.get(port);
  heldSockets.delete(port);
  if (held) return held;
  try {
    return await listening(host, Number(port));
  } catch (error) {
    throw new Error(`could not bind ${host}:${port} to hand it to the service`, { cause: error });
  }
}

/** Lets go of a held socket (the child binds the port itself: a release that knows no --listen-stdin). */
function releasePort(port: string | undefined) {
  const held = port === undefined ? undefined : heldSockets.get(port);
  if (!held || port === undefined) return;
  heldSockets.delete(port);
  held.close();
}

/**
 * For a caller that starts the service its own way (binding env.PORT itself, not through
 * spawnServe): the held socket is let go, and the port is then only probed free, as before.
 */
export function releaseHeldPort(env: Record<string, string>) {
  releasePort(env.PORT);
}

/** The descriptor of a listening socket, to hand to a child (Node has no public accessor). */
const descriptorOf = (server: Server): number =>
  (server as unknown as { _handle: { fd: number } })._handle.fd;

/**
 * Spawns `tributary serve` from `root` with `env`. A serving role of this checkout is handed the
 * socket of env.PORT (see heldSockets); a worker binds nothing, and an earlier release's tree
 * (which knows no --listen-stdin) binds env.PORT itself. Its stdout and stderr are `stdio`'s.
 */
export async function spawnServe(
  env: Record<string, string>,
  args: string[] = ['serve'],
  options: { root?: string; stdio?: StdioOptions } = {},
): Promise<ChildProcess> {
  const root = options.root ?? ROOT;
  const bin = root === ROOT ? BIN : join(root, 'bin/tributary.js');
  const stdio = (options.stdio ?? ['ignore', 'pipe', 'pipe']) as unknown[];
  const role = args.includes('--role') ? args[args.indexOf('--role') + 1] : 'all';
  const handsOver = root === ROOT && role !== 'worker' && env.PORT !== undefined && env.PORT !== '0';
  if (!handsOver) {
    if (role !== 'worker') releasePort(env.PORT);
    return spawn(NODE, [bin, ...args], { env, cwd: root, stdio: stdio as StdioOptions });
  }
  const socket = await socketFor(env.HOST ?? '127.0.0.1', env.PORT!);
  try {
    return spawn(NODE, [bin, ...args, '--listen-stdin'], {
      env,
      cwd: root,
      stdio: [{ fd: descriptorOf(socket) }, ...stdio.slice(1, 3)] as StdioOptions,
    });
  } finally {
    // The child has its own copy now; ours would keep the port open after the child exits.
    socket.close();
  }
}

export type ChildEnvironment = {
  env: Record<string, string>;
  /** Removes the data dir and the database made for it. */
  cleanup(): Promise<void>;
};

export type ChildDatabase = {
  /**
   * `migrated` (the default): a copy of the run's template, as every test service gets; a first
   * start there only finds its migrations done (a migration from scratch cost each child ~0.85 s
   * of CPU and seconds of wall on a loaded machine). `empty`: for tests of migrating itself.
   */
  database?: 'migrated' | 'empty';
};

/** The job queue's schema for a child's env (as src/jobs/queue.ts names it from DATABASE_SCHEMA). */
export function jobsSchemaOf(env: Record<string, string>): string {
  const schema = env.DATABASE_SCHEMA ?? 'public';
  return schema === 'public' ? 'pgboss' : `${schema}_jobs`;
}

export async function childEnvironment(
  extra: Record<string, string> = {},
  options: ChildDatabase = {},
): Promise<ChildEnvironment> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tributary-child-'));
  const port = await holdPort();
  const kind = options.database ?? 'migrated';
  const embedded = extra.DATABASE_URL === '';
  const database = embedded || extra.DATABASE_URL ? undefined : await createTestDatabase(kind);
  // A template copy is migrated in `public`; an empty database (or another DATABASE_URL) gets a
  // schema of its own, which the child's migrations make, as on a server shared with other
  // applications.
  const schema = database && kind === 'migrated' ? 'public' : `c_${randomBytes(5).toString('hex')}`;
  const databaseUrl = extra.DATABASE_URL || database?.url || (embedded ? '' : await testDatabaseUrl());
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    // The test run's compile cache (scripts/test.ts), so that each child does not compile anew.
    ...(process.env.NODE_COMPILE_CACHE ? { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE } : {}),
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: 'warn',
    // Several services run at once on one PostgreSQL (scripts/test.ts): each holds few connections.
    JOB_QUEUE_POOL_SIZE: String(TEST_JOB_QUEUE_POOL_SIZE),
    ...(databaseUrl
      ? {
          DATABASE_URL: databaseUrl,
          DATABASE_SCHEMA: schema,
          ENCRYPTION_KEY: randomBytes(32).toString('hex'),
        }
      : {}),
    ...extra,
  };
  if (embedded) delete env.DATABASE_URL;
  return {
    env,
    async cleanup() {
      releasePort(String(port));
      rmSync(dataDir, { recursive: true, force: true });
      await database?.drop();
    },
  };
}

/** `root`: another checkout of Tributary to run (an earlier release's tree), else this one. */
export async function runCli(
  args: string[],
  env: Record<string, string>,
  root = ROOT,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const bin = join(root, 'bin/tributary.js');
    // A bound against a hang, not a speed claim: on a loaded machine a command that opens embedded
    // storage itself takes a while.
    execFile(NODE, [bin, ...args], { env, cwd: root, timeout: 180_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

export type RunningService = {
  url: string;
  process: ChildProcess;
  output(): string;
  /** Sends the signal and waits for the process to exit (bounded). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
};

export async function startService(
  env: Record<string, string>,
  args: string[] = ['serve'],
  // Embedded storage (no DATABASE_URL) starts a PostgreSQL of its own: slower on a loaded machine.
  readyTimeoutMs = env.DATABASE_URL ? 60_000 : 180_000,
  root = ROOT,
): Promise<RunningService> {
  const url = env.PUBLIC_URL ?? `http://127.0.0.1:${env.PORT}`;
  const child = await spawnServe(env, args, { root });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  try {
    await until(
      'the service to be ready',
      async () => {
        if (child.exitCode !== null)
          throw new Error(`service exited with ${child.exitCode} before ready:\n${output}`);
        return fetch(`${url}/ready`).then(
          (response) => response.ok,
          () => false,
        );
      },
      { timeoutMs: readyTimeoutMs, intervalMs: 100, show: () => `not ready; its output:\n${output}` },
    );
  } catch (error) {
    if (child.exitCode === null) child.kill('SIGKILL');
    throw error;
  }

  return {
    url,
    process: child,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null) return child.exitCode;
      child.kill(signal);
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), 30_000);
      });
      // The timer is cleared once the race is decided, or it would keep the test process alive.
      const result = await Promise.race([exited, timeout]).finally(() => clearTimeout(timer));
      if (result === 'timeout') {
        child.kill('SIGKILL');
        throw new Error(`service did not exit within 30 s of ${signal}:\n${output}`);
      }
      return result;
    },
  };
}
