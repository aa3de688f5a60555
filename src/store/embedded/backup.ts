import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { PassThrough, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import type { ZipFile } from 'yazl';
import yauzl from 'yauzl';

/**
 * Hot backups of embedded storage's PostgreSQL cluster, made while it serves, with PostgreSQL's
 * low-level base backup API (https://www.postgresql.org/docs/current/continuous-archiving.html,
 * "Making a Base Backup Using the Low Level API"): the files are copied between
 * `pg_backup_start` and `pg_backup_stop`, and the WAL written meanwhile (kept by a temporary
 * replication slot) is copied after. Restored, the cluster replays that WAL from the backup's
 * checkpoint to the backup's end, as after a crash: consistent as of the end of the backup. The
 * packages that ship the server binaries ship no pg_dump/pg_basebackup, hence this; a restore
 * needs the same PostgreSQL major version (manifest `postgres_version`).
 */

/** Every file of the copy, as read (restore checks each against it). */
export type ClusterFile = { path: string; bytes: number; sha256: string };

/** Under this folder of the archive. */
export const CLUSTER_FOLDER = 'cluster';

// Not copied (the documentation's list): the server's own runtime files and what a restored
// server makes again; the folders themselves are kept (empty) where PostgreSQL needs them.
const SKIPPED_FILES = new Set(['postmaster.pid', 'postmaster.opts', 'backup_label', 'tablespace_map']);
const EMPTIED_FOLDERS = new Set([
  'pg_wal',
  'pg_replslot',
  'pg_dynshmem',
  'pg_notify',
  'pg_serial',
  'pg_snapshots',
  'pg_stat_tmp',
  'pg_subtrans',
]);
const skippedName = (name: string) =>
  SKIPPED_FILES.has(name) || name.startsWith('.s.PGSQL.') || name.startsWith('pgsql_tmp');

/** Files and folders under `root` as relative paths, depth first; folders end with '/'. */
function walk(root: string, from = root, out: string[] = []): string[] {
  let names: string[];
  try {
    names = readdirSync(from).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return out; // dropped meanwhile
    throw error;
  }
  for (const name of names) {
    if (skippedName(name)) continue;
    const path = join(from, name);
    const rel = relative(root, path).split(sep).join('/');
    let isDirectory: boolean;
    try {
      isDirectory = statSync(path).isDirectory();
    } catch {
      continue; // a file removed while we walk (a dropped table, a finished temporary file)
    }
    if (!isDirectory) {
      out.push(rel);
      continue;
    }
    out.push(`${rel}/`);
    if (!EMPTIED_FOLDERS.has(rel)) walk(root, path, out);
  }
  return out;
}

function hashing(onDone: (bytes: number, sha256: string) => void) {
  const hash = createHash('sha256');
  let bytes = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      bytes += chunk.length;
      callback(null, chunk);
    },
    flush(callback) {
      onDone(bytes, hash.digest('hex'));
      callback();
    },
  });
}

/**
 * Adds `path` to the zip and resolves once it has been read whole (entries go one at a time:
 * memory stays at a stream's buffers). A file gone before it could be opened resolves undefined.
 */
async function addFile(zip: ZipFile, path: string, name: string): Promise<ClusterFile | undefined> {
  const source = createReadStream(path);
  const opened = await new Promise<boolean>((resolve, reject) => {
    source.once('open', () => resolve(true));
    source.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ENOENT' ? resolve(false) : reject(error),
    );
  });
  if (!opened) return undefined;
  let file: ClusterFile | undefined;
  const through = new PassThrough();
  zip.addReadStream(through, `${CLUSTER_FOLDER}/${name}`, { mode: 0o100600 });
  await pipeline(
    source,
    hashing((bytes, sha256) => (file = { path: name, bytes, sha256 })),
    through,
  );
  return file;
}

/**
 * Copies the running cluster in `pgdata` into `zip` (under `cluster/`). `adminUrl` reaches the
 * server as a superuser. Resolves with what was copied once every file has been added.
 */
export async function copyRunningCluster(
  zip: ZipFile,
  pgdata: string,
  adminUrl: string,
): Promise<ClusterFile[]> {
  const client = new pg.Client({ connectionString: adminUrl });
  client.on('error', () => {});
  await client.connect();
  const files: ClusterFile[] = [];
  try {
    // The slot holds every WAL segment from here on until the session ends (temporary).
    const slot = `tributary_backup_${process.pid}`;
    await client.query('select pg_create_physical_replication_slot($1, true, true)', [slot]);
    await client.query('select pg_backup_start($1, true)', [`tributary backup ${new Date().toISOString()}`]);
    let stopped = false;
    try {
      for (const entry of walk(pgdata)) {
        if (entry.endsWith('/')) zip.addEmptyDirectory(`${CLUSTER_FOLDER}/${entry}`, { mode: 0o40700 });
        else {
          const copied = await addFile(zip, join(pgdata, entry), entry);
          if (copied) files.push(copied);
        }
      }
      const { rows } = await client.query<{ labelfile: string; spcmapfile: string | null }>(
        'select labelfile, spcmapfile from pg_backup_stop(false)',
      );
      stopped = true;
      const label = Buffer.from(rows[0]!.labelfile);
      zip.addBuffer(label, `${CLUSTER_FOLDER}/backup_label`, { mode: 0o100600 });
      files.push({
        path: 'backup_label',
        bytes: label.length,
        sha256: createHash('sha256').update(label).digest('hex'),
      });
      if (rows[0]!.spcmapfile) {
        const map = Buffer.from(rows[0]!.spcmapfile);
        zip.addBuffer(map, `${CLUSTER_FOLDER}/tablespace_map`, { mode: 0o100600 });
        files.push({
          path: 'tablespace_map',
          bytes: map.length,
          sha256: createHash('sha256').update(map).digest('hex'),
        });
      }
      // The WAL from the backup's start to its end, still held by the slot.
      for (const name of readdirSync(join(pgdata, 'pg_wal')).sort()) {
        const path = join(pgdata, 'pg_wal', name);
        if (!/^[0-9A-F]{24}$/.test(name) && !name.endsWith('.history')) continue;
        const copied = await addFile(zip, path, `pg_wal/${name}`);
        if (copied) files.push(copied);
      }
      zip.addEmptyDirectory(`${CLUSTER_FOLDER}/pg_wal/archive_status/`, { mode: 0o40700 });
    } finally {
      if (!stopped) await client.query('select pg_backup_stop(false)').catch(() => {});
      await client.query('select pg_drop_replication_slot($1)', [slot]).catch(() => {});
    }
  } finally {
    await client.end().catch(() => {});
  }
  return files;
}

/** A damaged or foreign archive: what is wrong with it. */
export class BadClusterCopy extends Error {
  override name = 'BadClusterCopy';
}

/**
 * Unpacks the cluster of a backup (`cluster/` of the zip at `path`) into `target`, which must not
 * exist yet, checking every file against `files` (zip's own CRC is not checked by the reader).
 */
export async function unpackCluster(path: string, target: string, files: ClusterFile[]): Promise<void> {
  const expected = new Map(files.map((file) => [file.path, file]));
  const seen = new Set<string>();
  mkdirSync(target, { mode: 0o700 });
  const zip = await yauzl.openPromise(path, { lazyEntries: true, autoClose: true });
  try {
    for (;;) {
      const entry = await new Promise<yauzl.Entry | undefined>((resolve, reject) => {
        zip.once('entry', resolve);
        zip.once('end', () => resolve(undefined));
        zip.once('error', reject);
        zip.readEntry();
      });
      zip.removeAllListeners('entry').removeAllListeners('end').removeAllListeners('error');
      if (!entry) break;
      if (!entry.fileName.startsWith(`${CLUSTER_FOLDER}/`)) continue;
      const name = entry.fileName.slice(CLUSTER_FOLDER.length + 1);
      if (name === '' || name.split('/').includes('..')) continue;
      const destination = join(target, ...name.split('/'));
      if (name.endsWith('/')) {
        mkdirSync(destination, { recursive: true, mode: 0o700 });
        continue;
      }
      const want = expected.get(name);
      if (!want) throw new BadClusterCopy(`it holds a file its manifest does not list (${name})`);
      mkdirSync(dirname(destination), { recursive: true, mode: 0o700 });
      let got: { bytes: number; sha256: string } | undefined;
      try {
        await pipeline(
          await zip.openReadStreamPromise(entry),
          hashing((bytes, sha256) => (got = { bytes, sha256 })),
          createWriteStream(destination, { mode: 0o600 }),
        );
      } catch (error) {
        // A file system's error is ours (a full disk); anything else is the archive's.
        if ((error as NodeJS.ErrnoException).syscall) throw error;
        throw new BadClusterCopy(`its copy of ${name} cannot be read (${(error as Error).message})`);
      }
      if (got?.sha256 !== want.sha256 || got.bytes !== want.bytes)
        throw new BadClusterCopy(`its copy of ${name} does not match its checksum (the file is damaged)`);
      seen.add(name);
    }
  } finally {
    zip.close();
  }
  const missing = files.filter((file) => !seen.has(file.path));
  if (missing.length > 0)
    throw new BadClusterCopy(
      `it lacks ${missing.length} file(s) its manifest lists (${missing[0]!.path}, …)`,
    );
  if (!existsSync(join(target, 'PG_VERSION'))) throw new BadClusterCopy('it holds no PostgreSQL cluster');
}
