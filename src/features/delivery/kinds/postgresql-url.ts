// A PostgreSQL destination's URL read as data: host, port, database, user, password and a short
// allow-list of options, nothing else. The URL is never handed to a driver: libpq-style query
// parameters would replace the checked host (`host`, `hostaddr`), read files on this server
// (`sslrootcert`, `sslkey`, `sslcert`, `passfile`, `service`) or smuggle settings (`options`), so
// every parameter that is not on the list is refused, naming it. TLS material comes as PEM text in
// the settings (kinds/kind.ts `pemSetting`). The stored settings keep the URL this module writes
// back (`canonicalUrl`), and the connection reads it again with the same rules.
import { isIP } from 'node:net';
import { invalidParameter } from '../../../core/errors.ts';

export const SSL_MODES = ['disable', 'require', 'verify-ca', 'verify-full'] as const;
export type SslMode = (typeof SSL_MODES)[number];

/** The query parameters a destination URL may carry (libpq's names). */
export const ALLOWED_OPTIONS = ['sslmode', 'application_name', 'connect_timeout'] as const;

export type PostgresqlTarget = {
  /** A DNS name or an IP address (no brackets). */
  host: string;
  port: number;
  database: string;
  user: string;
  password: string | null;
  sslmode: SslMode | null;
  applicationName: string | null;
  /** Seconds (libpq's unit). */
  connectTimeout: number | null;
};

const DEFAULT_PORT = 5432;
const LABEL = '[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?';
const HOST_NAME = new RegExp(`^${LABEL}(?:\\.${LABEL})*\\.?$`, 'i');
/** What inet_aton would read as an address (`0x7f.1`, `2130706433`): only dotted quads are taken. */
const NUMERIC_HOST = /^[0-9.]+$|(^|\.)0x[0-9a-f]*(\.|$)/i;
const APPLICATION_NAME = /^[\x20-\x7e]{1,63}$/;
const MAX_IDENTIFIER_BYTES = 63;

/** A name from the URL, safe to quote in a problem (bounded, printable). */
function shown(value: string): string {
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
}

function decoded(value: string, what: string, field: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw invalidParameter(field, `its ${what} is not valid percent-encoding`);
  }
}

/** The URL's host as it will be dialled: a DNS name or an IP literal, one of them. */
function hostOf(url: URL, field: string): string {
  const raw = url.hostname;
  if (raw === '')
    throw invalidParameter(field, 'names no host (postgres://user:password@host:5432/database)');
  if (raw.startsWith('[') && raw.endsWith(']')) {
    const inner = raw.slice(1, -1);
    if (isIP(inner) === 6) return inner.toLowerCase();
    throw invalidParameter(field, 'its host is not a valid IPv6 address');
  }
  if (isIP(raw) === 4) return raw;
  if (!HOST_NAME.test(raw) || NUMERIC_HOST.test(raw))
    throw invalidParameter(
      field,
      'its host must be one DNS name or IP address (no socket path, no list of hosts, no encoded characters)',
    );
  return raw.toLowerCase().replace(/\.$/, '');
}

function optionValue(name: (typeof ALLOWED_OPTIONS)[number], value: string, field: string) {
  switch (name) {
    case 'sslmode':
      if (!(SSL_MODES as readonly string[]).includes(value))
        throw invalidParameter(
          field,
          `sslmode ${shown(value)} is not supported: expected ${SSL_MODES.join(', ')} (prefer and allow cannot be honoured)`,
        );
      return value as SslMode;
    case 'application_name':
      if (!APPLICATION_NAME.test(value))
        throw invalidParameter(field, 'application_name must be 1 to 63 printable ASCII characters');
      return value;
    case 'connect_timeout': {
      const seconds = Number(value);
      if (!/^\d+$/.test(value) || seconds < 1 || seconds > 300)
        throw invalidParameter(field, 'connect_timeout must be whole seconds from 1 to 300');
      return seconds;
    }
  }
}

/** Reads a destination URL (see the module comment); a problem names `field` and what is wrong. */
export function parsePostgresqlUrl(raw: string, field = 'settings.url'): PostgresqlTarget {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalidParameter(field, 'not a valid absolute URL');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')
    throw invalidParameter(
      field,
      `unsupported scheme ${url.protocol.replace(/:$/, '').slice(0, 20)}: expected postgres`,
    );
  if (url.hash || raw.includes('#')) throw invalidParameter(field, 'takes no fragment');
  const options: Partial<Record<(typeof ALLOWED_OPTIONS)[number], string | number>> = {};
  const seen = new Set<string>();
  for (const [name, value] of url.searchParams) {
    if (!(ALLOWED_OPTIONS as readonly string[]).includes(name))
      throw invalidParameter(
        field,
        `query parameter ${shown(name)} is not allowed: a destination URL takes only ${ALLOWED_OPTIONS.join(', ')} (TLS material goes in tls_ca, tls_cert and tls_key as PEM text)`,
      );
    if (seen.has(name)) throw invalidParameter(field, `query parameter ${shown(name)} is given twice`);
    seen.add(name);
    options[name as (typeof ALLOWED_OPTIONS)[number]] = optionValue(
      name as (typeof ALLOWED_OPTIONS)[number],
      value,
      field,
    );
  }
  const host = hostOf(url, field);
  const port = url.port === '' ? DEFAULT_PORT : Number(url.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw invalidParameter(field, 'its port is not valid');
  const path = url.pathname.replace(/^\//, '');
  if (path === '')
    throw invalidParameter(field, 'names no database (postgres://user:password@host:5432/database)');
  if (path.includes('/')) throw invalidParameter(field, 'must name one database, without a further path');
  const database = decoded(path, 'database', field);
  const user = decoded(url.username, 'user', field);
  if (user === '')
    throw invalidParameter(field, 'names no user (postgres://user:password@host:5432/database)');
  for (const [what, value] of [
    ['database', database],
    ['user', user],
  ] as const) {
    if (
      Buffer.byteLength(value) > MAX_IDENTIFIER_BYTES ||
      [...value].some((char) => char.charCodeAt(0) < 0x20)
    )
      throw invalidParameter(field, `its ${what} is not a valid PostgreSQL name`);
  }
  const password = url.password === '' ? null : decoded(url.password, 'password', field);
  return {
    host,
    port,
    database,
    user,
    password,
    sslmode: (options.sslmode as SslMode | undefined) ?? null,
    applicationName: (options.application_name as string | undefined) ?? null,
    connectTimeout: (options.connect_timeout as number | undefined) ?? null,
  };
}

/**
 * The URL written back from what was read: only the allowed options, in a fixed order. Without
 * `password` it is what the API and the attempt log show (`***` where a password is set).
 */
export function canonicalUrl(target: PostgresqlTarget, password: 'include' | 'mask'): string {
  const host = isIP(target.host) === 6 ? `[${target.host}]` : target.host;
  const secret =
    target.password === null
      ? ''
      : `:${password === 'include' ? encodeURIComponent(target.password) : '***'}`;
  const query = new URLSearchParams();
  if (target.sslmode) query.set('sslmode', target.sslmode);
  if (target.applicationName) query.set('application_name', target.applicationName);
  if (target.connectTimeout) query.set('connect_timeout', String(target.connectTimeout));
  const search = query.size > 0 ? `?${query.toString()}` : '';
  return `postgres://${encodeURIComponent(target.user)}${secret}@${host}:${target.port}/${encodeURIComponent(target.database)}${search}`;
}
