// The service's own databases (DATABASE_URL and its replica DATABASE_READ_URL), which no
// PostgreSQL destination may be, in the sandbox too: a destination there would create its tables
// in the service's schema and write them as the service's role. A destination is refused when it
// dials the same server (an address the service's database resolves to, or any address of this
// machine when the service's database is local: a socket path, a loopback name or address) on the
// same port, and names the same database or the same role. The embedded store listens on no
// socket, so there is nothing to refuse then.
import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { networkInterfaces, userInfo } from 'node:os';
import type { ResolveHost } from './destination-policy.ts';

export type OwnDatabase = {
  /** A host name or address, or null for a local socket. */
  host: string | null;
  port: number;
  database: string;
  user: string;
};

/** What a destination will dial: the addresses it resolves to (at save) or the pinned one (at connect). */
export type DialedDatabase = {
  addresses: readonly LookupAddress[];
  port: number;
  database: string;
  user: string;
};

const DEFAULT_PORT = 5432;

function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return '';
  }
}

/**
 * The operator's connection strings read the way libpq reads them (`host` and `port` may be query
 * parameters; a host starting with `/` is a socket directory). These are trusted settings:
 * nothing here reads a file.
 */
export function ownDatabasesOf(urls: readonly (string | undefined)[]): OwnDatabase[] {
  const own: OwnDatabase[] = [];
  for (const raw of urls) {
    if (!raw) continue;
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      continue;
    }
    const queryHost = url.searchParams.get('host');
    const host = queryHost ?? decodeURIComponent(url.hostname);
    const user = decodeURIComponent(url.username) || url.searchParams.get('user') || osUser();
    own.push({
      host: host === '' || host.startsWith('/') ? null : host.replace(/^\[|\]$/g, '').toLowerCase(),
      port: Number(url.searchParams.get('port') || url.port || DEFAULT_PORT),
      database: decodeURIComponent(url.pathname.replace(/^\//, '')) || url.searchParams.get('dbname') || user,
      user,
    });
  }
  return own;
}

/** `::ffff:127.0.0.1` is 127.0.0.1. */
function plain(address: string): string {
  const lower = address.toLowerCase();
  return lower.startsWith('::ffff:') && isIP(lower.slice(7)) === 4 ? lower.slice(7) : lower;
}

/** Whether dialling `address` reaches this machine (0.0.0.0 and :: do, on Linux). */
function isThisMachine(address: string): boolean {
  const a = plain(address);
  if (a.startsWith('127.') || a === '::1' || a === '0.0.0.0' || a === '::') return true;
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) if (plain(entry.address) === a) return true;
  }
  return false;
}

async function ownAddresses(
  own: OwnDatabase,
  resolve: ResolveHost,
): Promise<{ local: boolean; addresses: Set<string> }> {
  if (own.host === null || own.host === 'localhost') return { local: true, addresses: new Set() };
  let addresses: readonly LookupAddress[];
  try {
    addresses =
      isIP(own.host) !== 0 ? [{ address: own.host, family: isIP(own.host) }] : await resolve(own.host);
  } catch {
    addresses = [];
  }
  const set = new Set(addresses.map(({ address }) => plain(address)));
  return { local: [...set].some(isThisMachine), addresses: set };
}

/**
 * Why `dialed` is the service's own database (a sentence naming no host, database or role), or
 * null when it is not.
 */
export async function ownDatabaseReason(
  dialed: DialedDatabase,
  own: readonly OwnDatabase[],
  resolve: ResolveHost,
): Promise<string | null> {
  for (const database of own) {
    if (database.port !== dialed.port) continue;
    const ours = await ownAddresses(database, resolve);
    const sameServer = dialed.addresses.some(
      ({ address }) => ours.addresses.has(plain(address)) || (ours.local && isThisMachine(address)),
    );
    if (!sameServer) continue;
    if (database.database === dialed.database) return "is the service's own database";
    if (database.user === dialed.user) return "connects as the service's own database role";
  }
  return null;
}
