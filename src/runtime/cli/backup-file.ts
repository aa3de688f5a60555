import { createHash, createHmac } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { AppError } from '../../core/errors.ts';

/**
 * A Tributary backup file: one line naming the format, one line of JSON (the manifest), then
 * the embedded store's snapshot (PGlite's data directory as a gzipped tar). Readable by hand too:
 * `tail -n +3 FILE | tar -tz` lists the data directory.
 */
const MAGIC = 'TRIBUTARY-BACKUP 1';

export type BackupManifest = {
  format: 1;
  created_at: string;
  tributary_version: string;
  storage: 'embedded';
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
  snapshot: { bytes: number; sha256: string };
};

/** An HMAC of a fixed label under the key: equal keys give equal fingerprints, and it tells nothing of the key. */
export const keyFingerprint = (key: Buffer) =>
  createHmac('sha256', key).update('tributary backup key fingerprint').digest('hex').slice(0, 16);

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

export function backupManifest(
  fields: Omit<BackupManifest, 'format' | 'storage' | 'snapshot' | 'key_fingerprint' | 'key'>,
  key: Buffer,
  snapshot: Uint8Array,
  withKey: boolean,
): BackupManifest {
  return {
    format: 1,
    storage: 'embedded',
    ...fields,
    key_fingerprint: keyFingerprint(key),
    ...(withKey ? { key: key.toString('hex') } : {}),
    snapshot: { bytes: snapshot.byteLength, sha256: sha256(snapshot) },
  };
}

/**
 * Writes the backup beside its final name and renames it into place once complete and synced: a
 * crash or a full disk never leaves a truncated file under the name. Owner-only (0600): it holds
 * health data, and the key when asked to.
 */
export function writeBackupFile(path: string, manifest: BackupManifest, snapshot: Uint8Array) {
  const partial = `${path}.partial-${process.pid}`;
  const fd = openSync(partial, 'w', 0o600);
  try {
    writeSync(fd, `${MAGIC}\n${JSON.stringify(manifest)}\n`);
    writeSync(fd, snapshot);
    fsyncSync(fd);
    closeSync(fd);
    renameSync(partial, path);
  } catch (error) {
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
    rmSync(partial, { force: true });
    throw error;
  }
}

const notABackup = (path: string, why: string) =>
  new AppError('unprocessable', `${path} is not a usable Tributary backup: ${why}`);

export function readBackupFile(path: string): { manifest: BackupManifest; snapshot: Uint8Array } {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new AppError('not_found', `cannot read ${path}: ${(error as Error).message}`);
  }
  const firstLine = bytes.indexOf(0x0a);
  const secondLine = firstLine < 0 ? -1 : bytes.indexOf(0x0a, firstLine + 1);
  if (firstLine < 0 || bytes.subarray(0, firstLine).toString('utf8') !== MAGIC || secondLine < 0)
    throw notABackup(path, `it does not start with "${MAGIC}"`);
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(bytes.subarray(firstLine + 1, secondLine).toString('utf8')) as BackupManifest;
  } catch {
    throw notABackup(path, 'its manifest line is not JSON');
  }
  if (
    manifest.format !== 1 ||
    manifest.storage !== 'embedded' ||
    typeof manifest.key_fingerprint !== 'string'
  )
    throw notABackup(path, 'its manifest is not a format-1 embedded-storage manifest');
  const snapshot = bytes.subarray(secondLine + 1);
  if (snapshot.byteLength !== manifest.snapshot.bytes)
    throw notABackup(
      path,
      `it is truncated (${snapshot.byteLength} of ${manifest.snapshot.bytes} snapshot bytes)`,
    );
  if (sha256(snapshot) !== manifest.snapshot.sha256)
    throw notABackup(path, 'its snapshot does not match its checksum (the file is damaged)');
  return { manifest, snapshot };
}
