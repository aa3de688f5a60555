import {
  copyFileSync,
  existsSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  chmodSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Config } from '../../core/config.ts';
import { AppError } from '../../core/errors.ts';
import { createDevelopersService } from '../../features/developers/service.ts';
import { openStore } from '../../store/db.ts';
import { BadClusterCopy, unpackCluster } from '../../store/embedded/backup.ts';
import { embeddedPaths, setEmbeddedPassword } from '../../store/embedded/server.ts';
import { migrator } from '../../store/migrate.ts';
import { claimForCommand, DataDirInUse } from '../data-dir-ownership.ts';
import { type BackupManifest, keyFingerprint, readBackupManifest } from './backup-file.ts';
import { parseArgsProblem, print, printJson, UsageError } from './output.ts';

export const USAGE = `usage: tributary restore <file> [--replace] [--json]
  Restores a backup made by "tributary backup" into DATA_DIR, with no server running on it.
  DATA_DIR must not hold a database yet; --replace moves the one there aside
  (DATA_DIR/postgres.before-restore-<time>) instead.
  The store's secrets need the key they were encrypted with: the backup's own (--with-key), or
  ENCRYPTION_KEY / DATA_DIR/encryption.key holding the original key.`;

/** Where the key this process runs with comes from: its own file in DATA_DIR, or ENCRYPTION_KEY. */
function keySource(config: Config): 'file' | 'environment' {
  const file = join(config.dataDir, 'encryption.key');
  if (!existsSync(file)) return 'environment';
  return readFileSync(file, 'utf8').trim() === config.encryptionKey.toString('hex') ? 'file' : 'environment';
}

/**
 * Which key the restored store will run with, or why the restore must not happen. A backup
 * restored under another key would start, but every provider token and webhook signing secret in
 * it would fail to decrypt: that is refused before anything is touched.
 */
function decideKey(config: Config, manifest: BackupManifest): { writeKeyFile: Buffer | undefined } {
  const current = keyFingerprint(config.encryptionKey);
  const source = keySource(config);
  if (current === manifest.key_fingerprint) return { writeKeyFile: undefined };
  if (manifest.key && source === 'file') {
    // DATA_DIR's own key belongs to the database beside it (none, or the one --replace moves
    // aside with it): the restored store brings its key.
    return { writeKeyFile: Buffer.from(manifest.key, 'hex') };
  }
  const using =
    source === 'environment'
      ? 'ENCRYPTION_KEY'
      : `${join(config.dataDir, 'encryption.key')} (generated for this DATA_DIR)`;
  throw new AppError(
    'conflict',
    `the backup's secrets are encrypted with the key of fingerprint ${manifest.key_fingerprint}, but this ` +
      `process would run with ${using}, fingerprint ${current}. Nothing was restored. ` +
      (source === 'environment'
        ? 'Set ENCRYPTION_KEY to the key the backed-up server used.'
        : `Put the backed-up server's encryption.key into ${config.dataDir} (replacing the one generated ` +
          'there), or set ENCRYPTION_KEY to that key.'),
  );
}

type Moved = { from: string; to: string }[];

/** Moves an existing database (and what belongs to it) aside under one timestamp; returns what moved. */
function moveAside(dataDir: string, alsoKey: boolean): Moved {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const names = [
    'postgres',
    'postgres-password',
    'sandbox-credentials.json',
    ...(alsoKey ? ['encryption.key'] : []),
  ];
  const moved: Moved = [];
  for (const name of names) {
    const from = join(dataDir, name);
    if (!existsSync(from)) continue;
    const to = join(dataDir, `${name}.before-restore-${stamp}`);
    if (name === 'encryption.key') copyFileSync(from, to);
    else renameSync(from, to);
    moved.push({ from, to });
  }
  return moved;
}

function putBack(moved: Moved) {
  for (const { from, to } of moved) {
    if (from.endsWith('encryption.key')) continue; // copied, not moved: the original is still there
    rmSync(from, { recursive: true, force: true });
    renameSync(to, from);
  }
}

export async function restoreCommand(config: Config, args: string[]): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: { replace: { type: 'boolean', default: false }, json: { type: 'boolean', default: false } },
      allowPositionals: true,
    });
  } catch (error) {
    throw parseArgsProblem(error, USAGE) ?? error;
  }
  const [file] = parsed.positionals;
  if (parsed.positionals.length !== 1 || !file) throw new UsageError(USAGE);
  if (config.databaseUrl)
    throw new UsageError(
      'tributary restore is for embedded storage; with DATABASE_URL, restore PostgreSQL with pg_restore ' +
        'or point-in-time recovery: see docs/operating.md',
    );

  const ownership = await claimForCommand(config.dataDir, 'restore');
  if (ownership.kind === 'server')
    throw new DataDirInUse(
      `DATA_DIR ${config.dataDir} belongs to a running tributary server (pid ${ownership.pid}): stop it ` +
        'before restoring into it (a backup, by contrast, can be made while it runs). Nothing was restored.',
    );
  try {
    const path = resolve(file);
    const manifest = await readBackupManifest(path);
    const { pgdata } = embeddedPaths(config.dataDir);
    const holdsDatabase = existsSync(join(pgdata, 'PG_VERSION'));
    if (holdsDatabase && !parsed.values.replace)
      throw new AppError(
        'conflict',
        `${config.dataDir} already holds a database; restore into an empty DATA_DIR, or pass --replace to ` +
          'move the current one aside. Nothing was restored.',
      );
    // Unpacked beside the cluster's place and checked file by file before anything is decided.
    const unpacking = `${pgdata}.restore-${process.pid}`;
    let writeKeyFile: Buffer | undefined;
    try {
      await unpackCluster(path, unpacking, manifest.files);
      ({ writeKeyFile } = decideKey(config, manifest));
    } catch (error) {
      rmSync(unpacking, { recursive: true, force: true });
      if (error instanceof BadClusterCopy)
        throw new AppError('unprocessable', `${path} is not a usable Tributary backup: ${error.message}`);
      throw error;
    }
    const moved = holdsDatabase ? moveAside(config.dataDir, writeKeyFile !== undefined) : [];
    let developers: number;
    let latest: string | null;
    try {
      renameSync(unpacking, pgdata);
      // The restored cluster replays the backup's WAL to its end as it starts (crash recovery).
      const store = await openStore({
        databaseUrl: undefined,
        dataDir: config.dataDir,
        embedded: { mode: 'start', port: config.embeddedPostgres.port },
      });
      try {
        // The TCP password is this DATA_DIR's, not the backed-up one's (which is not in the backup).
        await setEmbeddedPassword(config.dataDir, config.embeddedPostgres.port);
        // Read through its owner: the restored store answers, and this is what it holds.
        developers = await createDevelopersService({
          db: store.db,
          setUp: () => Promise.reject(new Error('a restore creates no developer')),
        }).count();
        const migrations = await migrator(store.db, undefined).getMigrations();
        latest = migrations.filter((migration) => migration.executedAt).at(-1)?.name ?? null;
      } finally {
        await store.close();
      }
    } catch (error) {
      // Nothing half-restored is left behind: the directory is as it was.
      rmSync(pgdata, { recursive: true, force: true });
      rmSync(embeddedPaths(config.dataDir).password, { force: true });
      putBack(moved);
      throw error;
    }
    if (writeKeyFile) {
      const keyFile = join(config.dataDir, 'encryption.key');
      writeFileSync(keyFile, `${writeKeyFile.toString('hex')}\n`, { mode: 0o600 });
      chmodSync(keyFile, 0o600);
    }

    const summary = {
      file: path,
      data_dir: config.dataDir,
      backup_created_at: manifest.created_at,
      backup_tributary_version: manifest.tributary_version,
      latest_migration: latest,
      developers,
      key_fingerprint: manifest.key_fingerprint,
      key_restored_from_backup: writeKeyFile !== undefined,
      moved_aside: moved.map((entry) => entry.to),
    };
    if (parsed.values.json) return printJson(summary);
    print(
      [
        `restored ${path} (made ${manifest.created_at} by tributary ${manifest.tributary_version}) into ${config.dataDir}`,
        `  ${developers} developer(s); newest migration ${latest ?? '(none)'}: a newer release applies its own on start`,
        writeKeyFile
          ? `  encryption key: taken from the backup into ${config.dataDir}/encryption.key`
          : `  encryption key: the one in use already matches (fingerprint ${manifest.key_fingerprint})`,
        ...moved.map((entry) => `  moved aside: ${entry.to}`),
        '',
      ].join('\n'),
    );
  } finally {
    ownership.lock.release();
  }
}
