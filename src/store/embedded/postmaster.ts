import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { processExists } from '../../core/process-exists.ts';
import { serverEnvironment } from './cluster-init.ts';
import type { ServerUser } from './server-user.ts';

/**
 * The embedded PostgreSQL's postmaster as a process: reading its lock file, stopping it (its own
 * or one an earlier run left behind) and the guard that stops it when the service dies.
 */

/** How long a fast shutdown may take before an immediate one. */
const STOP_TIMEOUT_MS = 60_000;

/** The postmaster's pid from its lock file, if the file is there. */
function postmasterPid(pgdata: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(pgdata, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** The postmaster's status line (`starting`, `ready`, `stopping`…), once it has written one. */
export function postmasterStatus(pgdata: string): string | undefined {
  try {
    return readFileSync(join(pgdata, 'postmaster.pid'), 'utf8').split('\n')[7]?.trim();
  } catch {
    return undefined;
  }
}

/** Whether `pid` is a PostgreSQL process (where /proc says; elsewhere the lock file is believed). */
function isPostgres(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('postgres');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOENT' || !existsSync('/proc/self');
  }
}

/**
 * Only the process that owns DATA_DIR starts its server (the caller holds the data-dir lock), so
 * a server already running on the cluster was left by an owner that died without stopping it
 * (killed, and its guard killed too): it is stopped before this one starts. A `postmaster.pid`
 * naming a dead process, or a pid since reused by something else, is a crash's leftover:
 * PostgreSQL clears the former itself; the latter is removed here, or the server would refuse.
 */
export async function stopLeftOverServer(pgdata: string, log: Pick<Logger, 'warn'> | undefined) {
  const pid = postmasterPid(pgdata);
  if (pid === undefined || !processExists(pid)) return;
  if (!isPostgres(pid)) {
    rmSync(join(pgdata, 'postmaster.pid'), { force: true });
    return;
  }
  log?.warn({ pid }, 'stopping an embedded PostgreSQL that an earlier run left running');
  await stopProcess(pid, undefined);
}

/** SIGINT (fast shutdown); after a minute SIGQUIT (immediate: crash recovery on the next start). */
export async function stopProcess(pid: number | undefined, exited: Promise<unknown> | undefined) {
  if (pid === undefined) return;
  const gone = async (deadline: number) => {
    while (Date.now() < deadline) {
      if (!processExists(pid)) return true;
      if (exited && (await Promise.race([exited.then(() => true), sleep(50).then(() => false)]))) return true;
      if (!exited) await sleep(50);
    }
    return false;
  };
  for (const signal of ['SIGINT', 'SIGQUIT', 'SIGKILL'] as const) {
    try {
      process.kill(pid, signal);
    } catch {
      return; // already gone
    }
    if (await gone(Date.now() + (signal === 'SIGKILL' ? 10_000 : STOP_TIMEOUT_MS))) return;
  }
}

/**
 * A small shell that outlives nothing: it waits on a pipe from the service, and when the service
 * dies in any way (even SIGKILL) the pipe closes and it stops the server with pg_ctl. The service
 * kills it before its own orderly stop. (Not on Windows: there the next start stops a leftover.)
 */
export function startGuard(pgCtl: string, pgdata: string, user: ServerUser): ChildProcess | undefined {
  if (process.platform === 'win32' || !existsSync('/bin/sh')) return undefined;
  const guard = spawn('/bin/sh', ['-c', 'read -r _ ; exec "$0" stop -D "$1" -m fast -s', pgCtl, pgdata], {
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
    env: serverEnvironment(),
    ...(user ? { uid: user.uid, gid: user.gid } : {}),
  });
  guard.once('error', () => {});
  guard.unref();
  (guard.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  return guard;
}
