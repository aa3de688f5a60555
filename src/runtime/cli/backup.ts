import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import type { Config } from '../../core/config.ts';
import { version } from '../../core/version.ts';
import { copyRunningCluster } from '../../store/embedded/backup.ts';
import { embeddedConnectionString, embeddedPaths } from '../../store/embedded/server.ts';
import { migrator } from '../../store/migrate.ts';
import { type BackupManifest, keyFingerprint, writeBackupFile } from './backup-file.ts';
import { parseArgsProblem, print, printJson, UsageError } from './output.ts';
import { openContext } from './session.ts';

export const USAGE = `usage: tributary backup <file> [--with-key] [--json]
  Writes a consistent copy of embedded storage (DATA_DIR) to <file>, also while the server runs
  (PostgreSQL's hot base backup: the cluster's files and the WAL written meanwhile).
  --with-key  put the encryption key into the backup too (then the file alone restores every
              secret: keep it as safe as the key). Without it, restore needs the same key.
  With DATABASE_URL, back up PostgreSQL itself (pg_dump, or continuous archiving): docs/operating.md.`;

const OPTIONS = {
  'with-key': { type: 'boolean', default: false },
  json: { type: 'boolean', default: false },
} as const;

function parse(args: string[]) {
  try {
    const { values, positionals } = parseArgs({ args, options: OPTIONS, allowPositionals: true });
    if (positionals.length !== 1) throw new UsageError(USAGE);
    return { file: positionals[0]!, withKey: values['with-key'], json: values.json };
  } catch (error) {
    throw parseArgsProblem(error, USAGE) ?? error;
  }
}

const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

export async function backupCommand(config: Config, args: string[]) {
  const { file, withKey, json } = parse(args);
  if (config.databaseUrl)
    throw new UsageError(
      'tributary backup copies embedded storage; with DATABASE_URL, back up PostgreSQL with pg_dump ' +
        'or continuous WAL archiving (point-in-time recovery): see docs/operating.md',
    );
  const path = resolve(file);
  const { ctx, close } = await openContext(config);
  try {
    const embedded = ctx.store.embedded;
    if (!embedded) throw new Error('embedded storage without its data directory');
    const migrations = await migrator(ctx.db, undefined).getMigrations();
    const latest = migrations.filter((migration) => migration.executedAt).at(-1)?.name ?? null;
    const { rows } = await sql<{ server_version: string }>`SHOW server_version`.execute(ctx.db);
    const adminUrl = embeddedConnectionString(embedded.dataDir, {
      port: config.embeddedPostgres.port,
      database: 'postgres',
    });
    const manifest = await writeBackupFile(path, async (zip): Promise<BackupManifest> => {
      const files = await copyRunningCluster(zip, embeddedPaths(embedded.dataDir).pgdata, adminUrl);
      return {
        format: 2,
        storage: 'embedded-postgres',
        created_at: new Date().toISOString(),
        tributary_version: version,
        postgres_version: rows[0]?.server_version ?? 'unknown',
        latest_migration: latest,
        key_fingerprint: keyFingerprint(config.encryptionKey),
        ...(withKey ? { key: config.encryptionKey.toString('hex') } : {}),
        files,
      };
    });
    const bytes = statSync(path).size;
    if (json) {
      const { key: _key, files, ...shown } = manifest;
      printJson({ file: path, ...shown, files: files.length, bytes, includes_key: withKey });
      return;
    }
    print(
      [
        `backup written: ${path} (${megabytes(bytes)}, newest migration ${latest ?? '(none)'})`,
        withKey
          ? 'it includes the encryption key: anyone with the file can read every secret in it.'
          : `the encryption key is not in it (key fingerprint ${manifest.key_fingerprint}): keep ENCRYPTION_KEY ` +
            `or ${config.dataDir}/encryption.key safe on its own; restore needs the same key.`,
        '',
      ].join('\n'),
    );
  } finally {
    await close();
  }
}
