import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ensurePrivateDirectory } from './private-files.ts';

export type Config = {
  port: number;
  host: string;
  publicUrl: string;
  dataDir: string;
  /** PostgreSQL connection string; absent means embedded PGlite in `dataDir`. */
  databaseUrl: string | undefined;
  /** PostgreSQL schema for Tributary's tables (its job queue uses `<schema>_jobs`, or `pgboss` for public). */
  databaseSchema: string;
  /** 32-byte key for AES-256-GCM encryption of secrets at rest. */
  encryptionKey: Buffer;
  logLevel: string;
  /**
   * Which proxies' X-Forwarded-For to believe for the client address (per-address limits of
   * public pages): false (none: the socket's peer), true (any), or the proxies' addresses/CIDRs.
   */
  trustProxy: boolean | string;
  /** Extra per-provider settings (`<PROVIDER>_CLIENT_ID`, …) are read by the provider registry. */
  env: Readonly<Record<string, string | undefined>>;
};

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function parsePort(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 8080;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`PORT must be an integer between 0 and 65535, got "${raw}"`);
  }
  return port;
}

function parsePublicUrl(raw: string | undefined, host: string, port: number): string {
  const value = raw && raw !== '' ? raw : `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`PUBLIC_URL must be an absolute http(s) URL, got "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`PUBLIC_URL must use http or https, got "${value}"`);
  }
  return value.replace(/\/+$/, '');
}

function decodeKey(raw: string, source: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.length !== 32) {
    throw new ConfigError(
      `${source} must be 32 bytes, as 64 hex characters or base64 (got ${key.length} bytes)`,
    );
  }
  return key;
}

/**
 * Embedded mode keeps its own key beside its data so a laptop demo needs no setup; with an
 * external database the operator must supply it, because a key generated on one API process
 * would not decrypt what another wrote.
 */
function loadEncryptionKey(
  raw: string | undefined,
  databaseUrl: string | undefined,
  dataDir: string,
): Buffer {
  if (raw && raw !== '') return decodeKey(raw, 'ENCRYPTION_KEY');
  if (databaseUrl) {
    throw new ConfigError(
      'ENCRYPTION_KEY is required when DATABASE_URL is set (generate one with: openssl rand -hex 32)',
    );
  }
  const keyFile = join(dataDir, 'encryption.key');
  if (existsSync(keyFile)) return decodeKey(readFileSync(keyFile, 'utf8').trim(), keyFile);
  ensurePrivateDirectory(dataDir);
  const key = randomBytes(32);
  writeFileSync(keyFile, `${key.toString('hex')}\n`, { mode: 0o600 });
  chmodSync(keyFile, 0o600);
  return key;
}

function parseTrustProxy(raw: string | undefined): boolean | string {
  const value = raw?.trim() ?? '';
  if (value === '' || value === 'false') return false;
  if (value === 'true') return true;
  if (/^[0-9A-Fa-f.:/]+(\s*,\s*[0-9A-Fa-f.:/]+)*$/.test(value)) return value;
  throw new ConfigError(`TRUST_PROXY must be true, false or comma-separated addresses/CIDRs, got "${value}"`);
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const port = parsePort(env.PORT);
  const host = env.HOST && env.HOST !== '' ? env.HOST : '127.0.0.1';
  const dataDir = resolve(env.DATA_DIR && env.DATA_DIR !== '' ? env.DATA_DIR : './data');
  const databaseUrl = env.DATABASE_URL && env.DATABASE_URL !== '' ? env.DATABASE_URL : undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// or postgresql:// connection string');
  }
  const databaseSchema = env.DATABASE_SCHEMA && env.DATABASE_SCHEMA !== '' ? env.DATABASE_SCHEMA : 'public';
  if (!/^[a-z_][a-z0-9_]{0,50}$/.test(databaseSchema)) {
    throw new ConfigError(
      'DATABASE_SCHEMA must be a lower-case SQL identifier (letters, digits, underscores)',
    );
  }
  const logLevel = env.LOG_LEVEL && env.LOG_LEVEL !== '' ? env.LOG_LEVEL : 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }
  return {
    port,
    host,
    publicUrl: parsePublicUrl(env.PUBLIC_URL, host, port),
    dataDir,
    databaseUrl,
    databaseSchema,
    encryptionKey: loadEncryptionKey(env.ENCRYPTION_KEY, databaseUrl, dataDir),
    logLevel,
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    env: { ...env },
  };
}
