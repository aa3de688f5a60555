import { createHmac } from 'node:crypto';
import { closeSync, createWriteStream, fsyncSync, openSync, readSync, renameSync, rmSync } from 'node:fs';
import { finished } from 'node:stream/promises';
import { ZipFile } from 'yazl';
import yauzl from 'yauzl';
import { AppError } from '../../core/errors.ts';
import type { ClusterFile } from '../../store/embedded/backup.ts';

/**
 * A Tributary backup file: a zip holding embedded storage's PostgreSQL cluster as copied while it
 * ran (`cluster/`, store/embedded/backup.ts) and, last, `tributary-backup.json`, the manifest
 * (what made it, the key's fingerprint, every file's size and SHA-256). `unzip -l FILE` lists it.
 */
export const MANIFEST_ENTRY = 'tributary-backup.json';
/** The first line of the backups earlier releases made of PGlite's data directory. */
const PGLITE_BACKUP_MAGIC = 'TRIBUTARY-BACKUP 1';
/** The manifest lists every file; far below this even for a large cluster. */
const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;

export type BackupManifest = {
  format: 2;
  created_at: string;
  tributary_version: string;
  storage: 'embedded-postgres';
  postgres_version: string;
  /** The newest migration the backed-up store had applied (a newer release migrates it on start). */
  latest_migration: string | null;
  /**
   * Names the encryption key the store's secrets (provider tokens, webhook signing secrets) are
   * encrypted with, without revealing it: restore checks the key it will run with against it.
   */
  key_fingerprint: string;
  /** The key itself, hex, only when the backup was made with --with-key. */
  key?: string;
  files: ClusterFile[];
};

/** An HMAC of a fixed label under the key: equal keys give equal fingerprints, and it tells nothing of the key. */
export const keyFingerprint = (key: Buffer) =>
  createHmac('sha256', key).update('tributary backup key fingerprint').digest('hex').slice(0, 16);

/**
 * Writes a backup beside its final name and renames it into place once complete and synced: a
 * crash or a full disk never leaves a truncated file under the name. Owner-only (0600): it holds
 * health data, and the key when asked to. `fill` adds the cluster and returns the manifest.
 */
export async function writeBackupFile(path: string, fill: (zip: ZipFile) => Promise<BackupManifest>) {
  const partial = `${path}.partial-${process.pid}`;
  const zip = new ZipFile();
  const out = createWriteStream(partial, { mode: 0o600 });
  const written = finished(out);
  zip.outputStream.pipe(out);
  try {
    const manifest = await fill(zip);
    zip.addBuffer(Buffer.from(`${JSON.stringify(manifest)}\n`), MANIFEST_ENTRY, { mode: 0o100600 });
    zip.end();
    await written;
    const fd = openSync(partial, 'r+');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(partial, path);
    return manifest;
  } catch (error) {
    out.destroy();
    rmSync(partial, { force: true });
    throw error;
  }
}

const notABackup = (path: string, why: string) =>
  new AppError('unprocessable', `${path} is not a usable Tributary backup: ${why}`);

function startsWithPgliteMagic(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(PGLITE_BACKUP_MAGIC.length);
    readSync(fd, head, 0, head.length, 0);
    return head.toString('utf8') === PGLITE_BACKUP_MAGIC;
  } finally {
    closeSync(fd);
  }
}

/** The manifest of the backup at `path`, or a 4xx-class AppError naming what is wrong. */
export async function readBackupManifest(path: string): Promise<BackupManifest> {
  try {
    closeSync(openSync(path, 'r'));
  } catch (error) {
    throw new AppError('not_found', `cannot read ${path}: ${(error as Error).message}`);
  }
  if (startsWithPgliteMagic(path))
    throw notABackup(
      path,
      'it was made by an earlier release, on PGlite: restore it with that release, then start this ' +
        'release on its DATA_DIR (the data is moved over on the first start)',
    );
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.openPromise(path, { lazyEntries: true, autoClose: false });
  } catch (error) {
    throw notABackup(path, `it is not a zip archive (${(error as Error).message}; truncated or damaged?)`);
  }
  try {
    for (;;) {
      const entry = await new Promise<yauzl.Entry | undefined>((resolve, reject) => {
        zip.once('entry', resolve);
        zip.once('end', () => resolve(undefined));
        zip.once('error', reject);
        zip.readEntry();
      });
      zip.removeAllListeners('entry').removeAllListeners('end').removeAllListeners('error');
      if (!entry) throw notABackup(path, `it has no ${MANIFEST_ENTRY}`);
      if (entry.fileName !== MANIFEST_ENTRY) continue;
      if (entry.uncompressedSize > MAX_MANIFEST_BYTES) throw notABackup(path, 'its manifest is too large');
      const chunks: Buffer[] = [];
      for await (const chunk of await zip.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
      let manifest: BackupManifest;
      try {
        manifest = JSON.parse(Buffer.concat(chunks).toString('utf8')) as BackupManifest;
      } catch {
        throw notABackup(path, 'its manifest is not JSON');
      }
      if (
        manifest.format !== 2 ||
        manifest.storage !== 'embedded-postgres' ||
        typeof manifest.key_fingerprint !== 'string' ||
        !Array.isArray(manifest.files)
      )
        throw notABackup(path, 'its manifest is not a format-2 embedded-storage manifest');
      return manifest;
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw notABackup(path, `it cannot be read (${(error as Error).message}; truncated or damaged?)`);
  } finally {
    zip.close();
  }
}
