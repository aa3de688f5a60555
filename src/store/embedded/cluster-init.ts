// A new embedded cluster (initdb, as the server's user) and the environment every PostgreSQL
// program of it runs with.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { handOver, type ServerUser } from './server-user.ts';

/**
 * None of the caller's environment (PGDATA, PGPORT…) reaches the server, initdb or pg_ctl; each
 * finds the others beside itself, and every path given to them is absolute.
 *
 * glibc's malloc thresholds are fixed: by default each free of a large block raises them, after
 * which a backend keeps the memory of its largest statement (an import batch's parameters,
 * megabytes) in its heap for as long as it lives; fixed, such blocks are mapped and unmapped and go
 * back to the system (issue 44: an import's database side). Fixed at 1 MiB, not glibc's starting
 * 128 KiB: a 30-day read's page of summaries (~100 KB of text, aggregated, copied and sent) then
 * came from fresh mappings on every statement, ~40-110 page faults each and a third of the
 * backend's CPU for it (issue 44: 1.4-1.9 ms against 0.9-1.4 ms a statement, no faults, at 1 MiB).
 */
export function serverEnvironment(): NodeJS.ProcessEnv {
  return {
    LC_ALL: 'C',
    TZ: 'UTC',
    GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=1048576:glibc.malloc.trim_threshold=1048576',
  };
}

/** initdb into a directory beside the final one, renamed into place once whole. */
export async function initialise(
  paths: { pgdata: string; password: string },
  initdb: string,
  superuser: string,
  user: ServerUser,
  log: Pick<Logger, 'info'> | undefined,
) {
  const started = Date.now();
  const building = `${paths.pgdata}.initdb-${process.pid}`;
  const secrets = `${paths.pgdata}.pwfile-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  rmSync(secrets, { recursive: true, force: true });
  mkdirSync(building, { mode: 0o700 });
  mkdirSync(secrets, { mode: 0o700 });
  const password = randomBytes(24).toString('hex');
  writeFileSync(join(secrets, 'pw'), `${password}\n`, { mode: 0o600 });
  handOver(building, user);
  handOver(secrets, user);
  try {
    const { code, output } = await run(
      initdb,
      [
        '-D',
        building,
        '-U',
        superuser,
        '-E',
        'UTF8',
        '--no-locale',
        '--auth-local=trust',
        '--auth-host=scram-sha-256',
        `--pwfile=${join(secrets, 'pw')}`,
        '--no-instructions',
        // One syncfs of the file system instead of an fsync per file: seconds less on a first start.
        ...(process.platform === 'linux' ? ['--sync-method=syncfs'] : []),
      ],
      user,
    );
    if (code !== 0)
      throw new Error(`initdb failed (exit ${code}): ${output.trim().split('\n').slice(-5).join(' | ')}`);
    renameSync(building, paths.pgdata);
  } finally {
    rmSync(secrets, { recursive: true, force: true });
    rmSync(building, { recursive: true, force: true });
  }
  // For clients over TCP (EMBEDDED_POSTGRES_PORT); the socket needs no password.
  writeFileSync(paths.password, `${password}\n`, { mode: 0o600 });
  chmodSync(paths.password, 0o600);
  log?.info(
    { pgdata: paths.pgdata, tookMs: Date.now() - started },
    'created the embedded PostgreSQL cluster',
  );
}

function run(
  command: string,
  args: string[],
  user: ServerUser,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: serverEnvironment(),
      ...(user ? { uid: user.uid, gid: user.gid } : {}),
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}
