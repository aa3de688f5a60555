import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type DataDirLock, LOCK_FILE, type LockRecord, tryLockDataDir } from '../store/data-dir-lock.ts';

/**
 * Who runs embedded storage's PostgreSQL, decided before anything starts it. One process owns
 * the data directory and runs the server for as long as it holds it: a service, or a command run
 * while no service is. A command finding a service there connects to that service's server like
 * any client; a second service refuses to start.
 */
export class DataDirInUse extends Error {
  override name = 'DataDirInUse';
}

export type Ownership = { kind: 'owned'; lock: DataDirLock } | { kind: 'server'; pid: number };

/** How long to wait for another command to finish with the directory. */
const WAIT_MS = 15_000;
const POLL_MS = 100;

const describe = (owner: LockRecord) =>
  owner.command === 'serve'
    ? `a running tributary server (pid ${owner.pid}, started ${owner.startedAt})`
    : `another tributary command (pid ${owner.pid}: ${owner.command})`;

export const staleHint = (dataDir: string) =>
  `If no tributary process is running, remove ${join(dataDir, LOCK_FILE)}`;

/** For `serve`: the directory, or a clear refusal when a server already has it. */
export async function claimForServer(dataDir: string): Promise<DataDirLock> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const attempt = tryLockDataDir(dataDir, { command: 'serve' });
    if (attempt.acquired) return attempt.lock;
    const { owner } = attempt;
    if (owner.command === 'serve' || Date.now() > deadline) {
      throw new DataDirInUse(
        `DATA_DIR ${dataDir} is in use by ${describe(owner)}. Embedded storage belongs to one server: ` +
          'stop that one first, or start this one with another DATA_DIR (commands such as ' +
          `"tributary developers list" work beside a running server). ${staleHint(dataDir)}.`,
      );
    }
    await sleep(POLL_MS);
  }
}

/**
 * For a command: the directory to itself (it then runs the server for its own duration), or the
 * running service whose server it connects to. Waits (bounded) while another command holds it.
 */
export async function claimForCommand(dataDir: string, command: string): Promise<Ownership> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const attempt = tryLockDataDir(dataDir, { command });
    if (attempt.acquired) return { kind: 'owned', lock: attempt.lock };
    const { owner } = attempt;
    if (owner.command === 'serve') return { kind: 'server', pid: owner.pid };
    if (Date.now() > deadline) {
      throw new DataDirInUse(
        `DATA_DIR ${dataDir} is in use by ${describe(owner)}; nothing was changed. Try again in a ` +
          `moment. ${staleHint(dataDir)}.`,
      );
    }
    await sleep(POLL_MS);
  }
}
