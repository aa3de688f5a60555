import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import type { Logger } from 'pino';
import { EmbeddedPostgresUnavailable } from './binaries.ts';
import { EMBEDDED_DATABASE, embeddedConnectionString, embeddedPaths } from './server.ts';

/**
 * Earlier releases kept embedded data in PGlite's data directory, DATA_DIR/pgdata. The first start
 * of this release on such a DATA_DIR copies it into the embedded PostgreSQL (PGlite's own pg_dump,
 * replayed into the new database; pglite-copy-child.ts), keeps the old directory aside as
 * DATA_DIR/pgdata.pglite-<time> and says so in one line. PGlite is no dependency of the service
 * any more: the tools are installed, pinned, into DATA_DIR/.pglite-tools with npm (which comes
 * with Node) for that one copy and removed after. A copy that fails leaves the old directory
 * where it was, and the next start tries again from an empty database.
 */
const OLD_PGDATA = 'pgdata';

// PGlite 0.5.16 made the directories of the releases before this one (its package-lock); the
// tools' pg_dump is built for PGlite 0.5 (its peer dependency names 0.5.8).
const TOOLS = ['@electric-sql/pglite@0.5.16', '@electric-sql/pglite-tools@0.4.8'];
const INSTALL_TIMEOUT_MS = 10 * 60_000;
const COPY_TIMEOUT_MS = 60 * 60_000;

export const holdsPgliteData = (dataDir: string) => existsSync(join(dataDir, OLD_PGDATA, 'PG_VERSION'));

function run(command: string, args: string[], timeoutMs: number, cwd?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: timeoutMs,
      killSignal: 'SIGKILL',
      ...(cwd ? { cwd } : {}),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    child.once('error', reject);
    child.once('close', (code, signal) =>
      code === 0
        ? resolve(stdout)
        : reject(
            new Error(
              `${command} ${args[0]} failed (${signal ?? `exit ${code}`}): ${stderr.trim().split('\n').slice(-3).join(' | ')}`,
            ),
          ),
    );
  });
}

/** Installs PGlite and its tools into `toolsDir` (kept when already there). */
export async function installPgliteTools(toolsDir: string) {
  if (
    TOOLS.every((spec) =>
      existsSync(join(toolsDir, 'node_modules', spec.slice(0, spec.lastIndexOf('@')), 'package.json')),
    )
  )
    return;
  mkdirSync(toolsDir, { recursive: true, mode: 0o700 });
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  await run(
    npm,
    [
      'install',
      '--prefix',
      toolsDir,
      '--no-save',
      '--no-audit',
      '--no-fund',
      '--ignore-scripts',
      '--legacy-peer-deps',
      ...TOOLS,
    ],
    INSTALL_TIMEOUT_MS,
  ).catch((error: Error) => {
    throw new EmbeddedPostgresUnavailable(
      `DATA_DIR holds data of an earlier release (PGlite); moving it over needs PGlite's tools from the npm ` +
        `registry, which could not be installed (${error.message}). Start again with the registry reachable, ` +
        'or start the earlier release and back its data up another way.',
    );
  });
}

/** An empty `tributary` database in the running server (a failed earlier attempt's is dropped). */
async function emptyDatabase(dataDir: string, port: number | undefined) {
  const client = new pg.Client({
    connectionString: embeddedConnectionString(dataDir, { port, database: 'postgres' }),
  });
  client.on('error', () => {});
  await client.connect();
  try {
    await client.query(`drop database if exists ${EMBEDDED_DATABASE} with (force)`);
    await client.query(`create database ${EMBEDDED_DATABASE}`);
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Copies DATA_DIR/pgdata into the running embedded server, when it is there; returns whether it
 * did. Runs before the store opens its pools (nothing else is using the new database yet).
 */
export async function moveOverFromPglite(
  dataDir: string,
  port: number | undefined,
  log: Pick<Logger, 'warn'> | undefined,
): Promise<boolean> {
  if (!holdsPgliteData(dataDir)) return false;
  const old = join(dataDir, OLD_PGDATA);
  const toolsDir = join(dataDir, '.pglite-tools');
  await installPgliteTools(toolsDir);
  await emptyDatabase(dataDir, port);
  const child = new URL('./pglite-copy-child.ts', import.meta.url).pathname;
  const output = await run(
    process.execPath,
    [child, toolsDir, old, embeddedConnectionString(dataDir, { port })],
    COPY_TIMEOUT_MS,
  ).catch((error: Error) => {
    throw new EmbeddedPostgresUnavailable(
      `moving the earlier release's data (PGlite, ${old}) into the embedded PostgreSQL failed: ${error.message}; ` +
        'nothing was removed, and the next start tries again',
    );
  });
  const { statements } = JSON.parse(output.trim().split('\n').at(-1) ?? '{}') as { statements?: number };
  const aside = `${old}.pglite-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  renameSync(old, aside);
  rmSync(toolsDir, { recursive: true, force: true });
  log?.warn(
    { statements, movedAside: aside, postgres: embeddedPaths(dataDir).pgdata },
    `moved the earlier release's embedded data (PGlite) into the embedded PostgreSQL; the old directory is kept at ${aside}`,
  );
  return true;
}
