import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import type { Config } from '../../core/config.ts';
import { version } from '../../core/version.ts';
import { snapshotEmbeddedStore } from '../../store/embedded-backup.ts';
import { migrator } from '../../store/migrate.ts';
import { backupManifest, writeBackupFile } from './backup-file.ts';
import { parseArgsProblem, print, printJson, UsageError } from './output.ts';
import { openContext } from './session.ts';

export const USAGE = `usage: tributary backup <file> [--with-key] [--json]
  Writes a consistent copy of embedded storage (DATA_DIR) to <file>, also while the server runs.
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

/**
 * The command's arguments as the running server must see them: it writes the file itself and
 * its working directory is not the caller's, so a relative path is resolved here first.
 */
export function backupArgumentsForServer(args: string[]): string[] {
  try {
    const { positionals } = parseArgs({ args, options: OPTIONS, allowPositionals: true });
    const [file] = positionals;
    if (positionals.length !== 1 || !file) return args;
    return args.map((arg) => (arg === file ? resolve(file) : arg));
  } catch {
    return args; // the command reports the usage error itself
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
    const pglite = ctx.store.pglite;
    if (!pglite) throw new Error('embedded storage without its PGlite instance');
    const migrations = await migrator(ctx.db, undefined).getMigrations();
    const latest = migrations.filter((migration) => migration.executedAt).at(-1)?.name ?? null;
    const { rows } = await sql<{ server_version: string }>`SHOW server_version`.execute(ctx.db);
    const snapshot = await snapshotEmbeddedStore(pglite);
    const manifest = backupManifest(
      {
        created_at: new Date().toISOString(),
        tributary_version: version,
        postgres_version: rows[0]?.server_version ?? 'unknown',
        latest_migration: latest,
      },
      config.encryptionKey,
      snapshot,
      withKey,
    );
    writeBackupFile(path, manifest, snapshot);
    if (json) {
      const { key: _key, ...shown } = manifest;
      printJson({ file: path, ...shown, includes_key: withKey });
      return;
    }
    print(
      [
        `backup written: ${path} (${megabytes(snapshot.byteLength)}, newest migration ${latest ?? '(none)'})`,
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
