import {
  closeSync,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { processExists } from '../core/process-exists.ts';

/**
 * Embedded storage's PostgreSQL is run by one process at a time, the one that owns the data
 * directory (a service, or a command while no service runs); the others connect to it. The owner
 * holds `tributary.lock` in the data directory: created exclusively, mode 0600, holding its pid
 * and what it is. A lock whose pid is gone is stale and is taken over (and the server its owner
 * may have left running is stopped by the next one to start it: store/embedded/server.ts).
 */
export const LOCK_FILE = 'tributary.lock';

export type LockRecord = {
  pid: number;
  /** What holds the directory: `serve`, or a one-off command such as `developers`. */
  command: string;
  startedAt: string;
};

export type DataDirLock = {
  path: string;
  release(): void;
};

export type LockAttempt = { acquired: true; lock: DataDirLock } | { acquired: false; owner: LockRecord };

// A lock naming this process before it took the lock is a predecessor's (a reused pid).
const isAlive = (pid: number) => pid !== process.pid && processExists(pid);

function readRecord(path: string): LockRecord | undefined {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as LockRecord;
    return typeof parsed.pid === 'number' ? parsed : undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    // Unreadable (locks are only ever linked or renamed in whole): nobody can own it.
    return { pid: -1, command: 'unknown', startedAt: '' };
  }
}

function writeFileAtomically(path: string, record: LockRecord, place: (written: string) => void) {
  const temporary = `${path}.${process.pid}.tmp`;
  const fd = openSync(temporary, 'w', 0o600);
  try {
    writeSync(fd, `${JSON.stringify(record)}\n`);
  } finally {
    closeSync(fd);
  }
  try {
    place(temporary);
  } finally {
    rmSync(temporary, { force: true });
  }
}

/** Creates the lock only if there is none; written beside it and linked in, so it is never seen half-written. */
function writeNew(path: string, record: LockRecord): boolean {
  try {
    writeFileAtomically(path, record, (written) => linkSync(written, path));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/**
 * Moves a stale lock out of the way. Two processes may both find the same stale lock; only one
 * rename of it succeeds, and if what was renamed turns out to be a live owner's fresh lock (the
 * other process won in between), it is put back.
 */
function removeStale(path: string) {
  const aside = `${path}.stale-${process.pid}`;
  try {
    renameSync(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const moved = readRecord(aside);
  if (moved && isAlive(moved.pid)) {
    try {
      linkSync(aside, path);
    } catch {
      // Someone else holds it now; the live owner's record is theirs to keep.
    }
  }
  unlinkSync(aside);
}

export function tryLockDataDir(dataDir: string, record: Omit<LockRecord, 'pid' | 'startedAt'>): LockAttempt {
  const path = join(dataDir, LOCK_FILE);
  const full: LockRecord = { ...record, pid: process.pid, startedAt: new Date().toISOString() };
  for (let attempt = 0; attempt < 5; attempt++) {
    if (writeNew(path, full)) {
      let released = false;
      return {
        acquired: true,
        lock: {
          path,
          release() {
            if (released) return;
            released = true;
            if (readRecord(path)?.pid === process.pid) unlinkSync(path);
          },
        },
      };
    }
    const owner = readRecord(path);
    if (owner && isAlive(owner.pid)) return { acquired: false, owner };
    removeStale(path);
  }
  throw new Error(`could not take over the stale lock ${path}; remove it if no tributary process is running`);
}
