import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Type } from 'typebox';
import type { LogFormat } from './log.ts';
import { ensurePrivateDirectory } from './private-files.ts';
import {
  type AnySettingsGroup,
  ConfigError,
  choiceSetting,
  createSettings,
  customSetting,
  defineSettings,
  numberSetting,
  type RawEnv,
  type Settings,
  textSetting,
  urlSetting,
} from './settings.ts';

export { ConfigError } from './settings.ts';

export type Config = {
  port: number;
  host: string;
  publicUrl: string;
  dataDir: string;
  /** PostgreSQL connection string; absent means embedded storage: a PostgreSQL of our own in `dataDir`. */
  databaseUrl: string | undefined;
  /**
   * Embedded storage's server: also on TCP 127.0.0.1:`port` when set (socket only otherwise);
   * `attach` when this process connects to the one a running service started rather than
   * starting it (CLI commands beside a server; set by the CLI, never by the environment).
   */
  embeddedPostgres: { port: number | undefined; attach: boolean };
  /** A PostgreSQL streaming replica of `databaseUrl` for reads of settled data; absent: the primary answers every read. */
  databaseReadUrl: string | undefined;
  /** PostgreSQL schema for Tributary's tables (its job queue uses `<schema>_jobs`, or `pgboss` for public). */
  databaseSchema: string;
  /** The longest one statement of the store may run before PostgreSQL cuts it (long jobs exempt themselves). */
  databaseStatementTimeoutSeconds: number;
  /** 32-byte key for AES-256-GCM encryption of secrets at rest. */
  encryptionKey: Buffer;
  logLevel: string;
  /** json, pretty (one readable line each), or auto: pretty when stdout is a terminal. */
  logFormat: LogFormat;
  /**
   * Which proxies' X-Forwarded-For to believe for the client address (per-address limits of
   * public pages): false (none: the socket's peer), true (any), or the proxies' addresses/CIDRs.
   */
  trustProxy: boolean | string;
  /** How long a body held in memory (JSON, a form) may take to arrive; past it a 408 (http/body-deadline.ts). */
  requestBodyTimeoutSeconds: number;
  /** The most connections the HTTP server holds at once; past it new ones are closed (http/connection-cap.ts). */
  httpMaxConnections: number;
  /** How long a streamed upload (an export, a lab report file) may go without a byte; past it a 408 (http/body-deadline.ts). */
  uploadIdleTimeoutSeconds: number;
  /** Every other module's settings, typed and parsed (`config.settings.get(webhookSettings)`). */
  settings: Settings;
};

/**
 * The store's statement deadline when nothing sets one: far above any request's statements (a
 * page of a read, a write of a batch), well below a hung request a client would still wait for.
 */
export const DEFAULT_STATEMENT_TIMEOUT_SECONDS = 30;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const LOG_FORMATS: readonly LogFormat[] = ['auto', 'json', 'pretty'];

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

const keyBytes = (raw: string): Buffer =>
  /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');

function keyProblem(raw: string, source: string): string | null {
  const length = keyBytes(raw).length;
  return length === 32
    ? null
    : `${source} must be 32 bytes, as 64 hex characters or base64 (got ${length} bytes)`;
}

function decodeKey(raw: string, source: string): Buffer {
  const problem = keyProblem(raw, source);
  if (problem) throw new ConfigError(problem);
  return keyBytes(raw);
}

/** A replica is a replica of the PostgreSQL primary: embedded storage has none. */
function readUrlOf(readUrl: string | undefined, databaseUrl: string | undefined): string | undefined {
  if (!readUrl) return undefined;
  if (!databaseUrl)
    throw new ConfigError('DATABASE_READ_URL needs DATABASE_URL: it names a replica of that primary');
  return readUrl;
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

/** The settings of the process itself: listener, storage, encryption key, logging, proxies. */
export const coreSettings = defineSettings({
  id: 'core',
  owner: 'core/config.ts',
  intro: [
    'Tributary configuration. Every variable is optional on a laptop: with none set, the',
    'service runs on embedded PostgreSQL in ./data and generates its own encryption key there.',
  ],
  settings: {
    PORT: numberSetting({
      description: 'HTTP listener port.',
      default: 8080,
      integer: true,
      minimum: 0,
      maximum: 65535,
      problem: 'must be an integer between 0 and 65535',
      active: true,
    }),
    HOST: textSetting({ description: 'HTTP listener address.', default: '127.0.0.1', active: true }),
    PUBLIC_URL: urlSetting({
      description:
        'Base URL of the links Tributary hands out (auth links, widget URLs, OAuth redirect URIs): the public address behind your load balancer. Default: http://HOST:PORT',
      default: undefined,
      example: 'https://health.example.com',
    }),
    DATA_DIR: textSetting({
      description:
        'Where embedded storage (its PostgreSQL cluster, socket and log), the generated encryption key and the sandbox credentials live.',
      default: './data',
      active: true,
    }),
    DATABASE_URL: textSetting({
      description:
        'PostgreSQL for production (several API and worker processes share it); unset: embedded storage, a PostgreSQL server the service starts and stops itself in DATA_DIR.',
      default: undefined,
      example: 'postgres://tributary:secret@db.internal:5432/tributary',
      check: (value) =>
        /^postgres(ql)?:\/\//.test(value)
          ? null
          : 'DATABASE_URL must be a postgres:// or postgresql:// connection string',
    }),
    EMBEDDED_POSTGRES_PORT: numberSetting({
      description:
        "Embedded storage only: also let the embedded PostgreSQL listen on 127.0.0.1 at this port (user postgres, password in DATA_DIR/postgres-password), for psql or a GUI. Unset: only its Unix socket in DATA_DIR/postgres, reachable by the service's own user.",
      default: undefined,
      integer: true,
      minimum: 1,
      maximum: 65535,
      problem: 'must be an integer between 1 and 65535',
      example: '5433',
    }),
    DATABASE_READ_URL: textSetting({
      description:
        'A PostgreSQL streaming replica of DATABASE_URL (hot standby) that answers data reads of settled days (before yesterday) once it shows them synced; every other read and every write stays on DATABASE_URL. Unset: DATABASE_URL answers everything.',
      default: undefined,
      example: 'postgres://tributary:secret@replica.internal:5432/tributary',
      check: (value) =>
        /^postgres(ql)?:\/\//.test(value)
          ? null
          : 'DATABASE_READ_URL must be a postgres:// or postgresql:// connection string',
    }),
    DATABASE_SCHEMA: textSetting({
      description:
        'Schema for Tributary\'s tables; the job queue uses "<schema>_jobs" (or "pgboss" for public).',
      default: 'public',
      check: (value) =>
        /^[a-z_][a-z0-9_]{0,50}$/.test(value)
          ? null
          : 'DATABASE_SCHEMA must be a lower-case SQL identifier (letters, digits, underscores)',
    }),
    DATABASE_STATEMENT_TIMEOUT_SECONDS: numberSetting({
      description:
        "Seconds one statement of the service's own database work may run before PostgreSQL cancels it (statement_timeout); a request whose statement was cut answers 503 with Retry-After. Reads and exports run page by page, each page a statement well within it; migrations, the rebuild of uploaded and imported days, partition maintenance and a connection's deletion (its records go with it) lift it for their own work.",
      default: DEFAULT_STATEMENT_TIMEOUT_SECONDS,
      integer: true,
      minimum: 1,
      maximum: 3600,
      problem: 'must be a whole number of seconds from 1 to 3600',
    }),
    ENCRYPTION_KEY: textSetting({
      description:
        '32 bytes (64 hex characters or base64) for AES-256-GCM encryption of provider tokens and webhook secrets at rest; required with DATABASE_URL, shared by every process (generate: openssl rand -hex 32).',
      default: undefined,
      check: (value) => keyProblem(value, 'ENCRYPTION_KEY'),
    }),
    HTTP_MAX_CONNECTIONS: numberSetting({
      description:
        'The most connections the HTTP server holds at once (idle keep-alive ones included); past it each new connection is closed as soon as it is accepted, without an answer, and a warning is logged (at most once a minute), so a flood of held connections cannot run the process out of file descriptors. Connections already held are served as before. Keep it below the open-file limit (ulimit -n) less the database pool.',
      default: 1000,
      integer: true,
      minimum: 1,
      maximum: 1_000_000,
      problem: 'must be a whole number from 1 to 1000000',
    }),
    LOG_LEVEL: choiceSetting({
      description: 'Log level: fatal | error | warn | info | debug | trace | silent.',
      choices: LOG_LEVELS,
      default: 'info',
      active: true,
    }),
    LOG_FORMAT: choiceSetting({
      description:
        'Log lines: json (one JSON object per line, for collectors), pretty (one readable line each), or auto: pretty when stdout is a terminal, JSON otherwise. At info every request logs one line, "GET /v2/activity 200 12ms" (health probes and metrics at debug).',
      choices: LOG_FORMATS,
      default: 'auto',
    }),
    REQUEST_BODY_TIMEOUT_SECONDS: numberSetting({
      description:
        'Seconds a request body read into memory (JSON, forms, SDK uploads: a few MB at most) may take to arrive after its headers; past it the client gets a 408 problem and the connection is closed, so a client trickling bodies cannot hold connections and their bytes forever. Streamed uploads (Apple Health exports, lab report files) are not bounded by it: UPLOAD_IDLE_TIMEOUT_SECONDS bounds them.',
      default: 60,
      integer: true,
      minimum: 1,
      maximum: 3600,
      problem: 'must be a whole number of seconds from 1 to 3600',
    }),
    UPLOAD_IDLE_TIMEOUT_SECONDS: numberSetting({
      description:
        'Seconds a streamed upload (an Apple Health export import, a lab report file, any multipart body) may go without a byte arriving; past it the client gets a 408 problem naming the stall, the connection is closed and the partly spooled file removed. A slow upload of any size that keeps sending is never cut. The server holding the client back (a slow disk) does not count.',
      default: 60,
      integer: true,
      minimum: 1,
      maximum: 3600,
      problem: 'must be a whole number of seconds from 1 to 3600',
    }),
    TRUST_PROXY: customSetting({
      description:
        "Behind a load balancer: which X-Forwarded-For (client address, counted by the per-address limits) and X-Forwarded-Proto to believe: true, false (default: the socket's peer), or the proxies' addresses/CIDRs, comma-separated. Answers to requests that came over HTTPS (directly, or per a trusted proxy) carry Strict-Transport-Security.",
      schema: Type.Union(
        [Type.Boolean(), Type.String({ pattern: '^[0-9A-Fa-f.:/]+(\\s*,\\s*[0-9A-Fa-f.:/]+)*$' })],
        {
          default: false,
        },
      ),
      example: '10.0.0.0/8',
      parse: (raw) => parseTrustProxy(raw),
    }),
  },
  build: (v) => {
    const dataDir = resolve(v.DATA_DIR);
    return {
      port: v.PORT,
      host: v.HOST,
      publicUrl: parsePublicUrl(v.PUBLIC_URL, v.HOST, v.PORT),
      dataDir,
      databaseUrl: v.DATABASE_URL,
      embeddedPostgres: { port: v.EMBEDDED_POSTGRES_PORT, attach: false },
      databaseReadUrl: readUrlOf(v.DATABASE_READ_URL, v.DATABASE_URL),
      databaseSchema: v.DATABASE_SCHEMA,
      databaseStatementTimeoutSeconds: v.DATABASE_STATEMENT_TIMEOUT_SECONDS,
      encryptionKey: loadEncryptionKey(v.ENCRYPTION_KEY, v.DATABASE_URL, dataDir),
      logLevel: v.LOG_LEVEL as string,
      logFormat: v.LOG_FORMAT as LogFormat,
      trustProxy: v.TRUST_PROXY,
      requestBodyTimeoutSeconds: v.REQUEST_BODY_TIMEOUT_SECONDS,
      httpMaxConnections: v.HTTP_MAX_CONNECTIONS,
      uploadIdleTimeoutSeconds: v.UPLOAD_IDLE_TIMEOUT_SECONDS,
    };
  },
});

/**
 * The configuration of this process. With `declared` (the composition root passes every
 * module's settings and the provider ids), the whole environment is checked in one pass and every
 * bad value is reported in one ConfigError; without, other modules' groups are parsed when first
 * used.
 */
export function loadConfig(
  env: RawEnv,
  declared?: { groups: readonly AnySettingsGroup[]; providerIds: readonly string[] },
): Config {
  const settings = createSettings(env);
  const problems = settings.problems(
    [coreSettings, ...(declared?.groups ?? [])],
    declared?.providerIds ?? [],
  );
  if (problems.length > 0) throw new ConfigError(problems);
  return { ...settings.get(coreSettings), settings };
}
