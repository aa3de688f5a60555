import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, testDatabaseUrl } from './database.ts';
import { freePort } from './ports.ts';
import { until } from './until.ts';

export { freePort };

/**
 * Tributary as a separate process, exactly as an operator runs it (`bin/tributary.js`), for
 * tests of the CLI, restarts and crashes: on the test PostgreSQL (test/helpers/database.ts), in an
 * empty database of its own (the child migrates it, as a first start does) and a schema of its
 * own there. `DATABASE_URL: ''` in `extra` gives it the default embedded storage in its data dir;
 * another DATABASE_URL in `extra` is used as given.
 */
const ROOT = new URL('../../', import.meta.url).pathname;
const NODE = join(ROOT, 'node_modules/.bin/node');
const BIN = join(ROOT, 'bin/tributary.js');

export type ChildEnvironment = {
  env: Record<string, string>;
  /** Removes the data dir and the database made for it. */
  cleanup(): Promise<void>;
};

export async function childEnvironment(extra: Record<string, string> = {}): Promise<ChildEnvironment> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tributary-child-'));
  const port = await freePort();
  const schema = `c_${randomBytes(5).toString('hex')}`;
  const embedded = extra.DATABASE_URL === '';
  const database = embedded || extra.DATABASE_URL ? undefined : await createTestDatabase('empty');
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
  // Embedded storage (no DATABASE_URL) starts PGlite in the process: slow on a loaded machine.
  readyTimeoutMs = env.DATABASE_URL ? 60_000 : 180_000,
  root = ROOT,
): Promise<RunningService> {
  const url = env.PUBLIC_URL ?? `http://127.0.0.1:${env.PORT}`;
  const bin = root === ROOT ? BIN : join(root, 'bin/tributary.js');
  const child = spawn(NODE, [bin, ...args], { env, cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
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
