import { chownSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Who the embedded PostgreSQL runs as. PostgreSQL refuses to run as root (a compromised server
 * would own the machine), and containers and CI run everything as root: there the server runs as
 * the owner of DATA_DIR when that is an ordinary user (the operator chose it with `chown`), else
 * as `nobody`. Any other user runs it as itself.
 */
export type ServerUser = { uid: number; gid: number; name: string } | undefined;

const NOBODY = { uid: 65534, gid: 65534, name: 'nobody' };

function passwdEntry(match: (name: string, uid: number) => boolean) {
  try {
    for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
      const [name, , uid, gid] = line.split(':');
      if (name && uid && gid && match(name, Number(uid))) return { name, uid: Number(uid), gid: Number(gid) };
    }
  } catch {
    // no passwd database (a minimal image): the defaults below
  }
  return undefined;
}

export function serverUserFor(dataDir: string): ServerUser {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
  const { uid, gid } = statSync(dataDir);
  if (uid !== 0) return { uid, gid, name: passwdEntry((_, id) => id === uid)?.name ?? `uid ${uid}` };
  return passwdEntry((name) => name === 'nobody') ?? NOBODY;
}

/** Gives `path` and everything under it to the server's user (no-op when it runs as us). */
export function handOver(path: string, user: ServerUser) {
  if (!user) return;
  chownSync(path, user.uid, user.gid);
  if (!statSync(path).isDirectory()) return;
  for (const entry of readdirSync(path, { recursive: true, encoding: 'utf8' }))
    chownSync(join(path, entry), user.uid, user.gid);
}

/**
 * The first directory on the way to `path` that `user` cannot pass through, if any: started as
 * that user, PostgreSQL could not reach its data or its own binaries (a checkout under /root).
 */
export function unreachableFor(path: string, user: { uid: number; gid: number }): string | undefined {
  const ancestors: string[] = [];
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    ancestors.unshift(dir);
    if (dirname(dir) === dir) break;
  }
  for (const dir of ancestors) {
    const { mode, uid, gid } = statSync(dir);
    const bit = uid === user.uid ? 0o100 : gid === user.gid ? 0o010 : 0o001;
    if (!(mode & bit)) return dir;
  }
  return undefined;
}
