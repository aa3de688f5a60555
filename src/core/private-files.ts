import { chmodSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * The data directory holds health data, API-key hashes and the encryption key: nobody but the
 * service's own user may read or change any of it, whatever umask the service was started with.
 */
const GROUP_AND_OTHERS = 0o077;

/**
 * Creates the directory 0700 when missing (mkdir's mode is filtered by umask, so it is set again).
 * Missing parents get the ordinary mode: they hold nothing private, and 0700 parents would stop the
 * unprivileged user embedded storage's PostgreSQL runs as (under root) on its way in.
 */
export function ensurePrivateDirectory(path: string): { created: boolean } {
  if (existsSync(path)) return { created: false };
  mkdirSync(dirname(path), { recursive: true });
  mkdirSync(path, { mode: 0o700 });
  chmodSync(path, 0o700);
  return { created: true };
}

/**
 * The directory's permission bits when group or others have any access to it, else undefined.
 * Its group may pass through without reading or writing (0710): run as root, embedded storage
 * lets the unprivileged user its PostgreSQL runs as reach its own directory that way.
 */
export function exposedMode(path: string): string | undefined {
  const mode = statSync(path).mode & 0o777;
  return mode & (GROUP_AND_OTHERS & ~0o010) ? mode.toString(8).padStart(4, '0') : undefined;
}

/** From now on, files and directories this process creates are its user's alone. */
export function restrictNewFilesToOwner() {
  const previous = process.umask(GROUP_AND_OTHERS);
  process.umask(previous | GROUP_AND_OTHERS);
}
