// Where webhooks may be sent. Sandbox destinations may be anything (a developer's laptop, a tunnel).
// Production destinations must be https and must not reach loopback, private, link-local, metadata
// or reserved addresses. The check runs twice: when the URL is saved (clear error for the developer)
// and at connect time through `checkedLookup`, because DNS can change between the two (rebinding).
import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { blockedAddressReason } from './address-ranges.ts';

export type WebhookEnvironment = 'sandbox' | 'production';

/** Resolves a host name to every address it has; injectable so tests need no DNS. */
export type ResolveHost = (hostname: string) => Promise<readonly LookupAddress[]>;

export const systemResolver: ResolveHost = (hostname) =>
  dnsLookup(hostname, { all: true, order: 'verbatim' });

export type DestinationCheck =
  { allowed: true; url: URL; addresses: readonly LookupAddress[] } | { allowed: false; reason: string };

export const DESTINATION_BLOCKED_CODE = 'ERR_WEBHOOK_DESTINATION_BLOCKED';

/** Raised from `checkedLookup`; its code lets the retry policy reject instead of retrying. */
export class DestinationBlockedError extends Error {
  readonly code = DESTINATION_BLOCKED_CODE;

  constructor(reason: string) {
    super(reason);
    this.name = 'DestinationBlockedError';
  }
}

/** URL hostnames keep IPv6 brackets and may end in the root dot; neither is part of the name. */
function bareHost(url: URL): string {
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

const isLocalhostName = (host: string): boolean => host === 'localhost' || host.endsWith('.localhost');

/**
 * Resolves `host` and returns its addresses when every one is allowed; otherwise the reason.
 * Every address must pass, not just one: the client may connect to any of them, and a rebinding
 * attacker controls which.
 */
async function allowedAddresses(
  host: string,
  resolve: ResolveHost,
): Promise<{ addresses: readonly LookupAddress[] } | { reason: string }> {
  const family = isIP(host);
  if (family !== 0) {
    const reason = blockedAddressReason(host);
    return reason ? { reason: `${host} is a ${reason}` } : { addresses: [{ address: host, family }] };
  }
  // RFC 6761: *.localhost always means this machine, whatever a resolver says.
  if (isLocalhostName(host)) return { reason: `${host} is a loopback name` };
  let addresses: readonly LookupAddress[];
  try {
    addresses = await resolve(host);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return { reason: `${host} could not be resolved${typeof code === 'string' ? ` (${code})` : ''}` };
  }
  if (addresses.length === 0) return { reason: `${host} has no addresses` };
  for (const { address } of addresses) {
    const reason = blockedAddressReason(address);
    if (reason) return { reason: `${host} resolves to ${address}, a ${reason}` };
  }
  return { addresses };
}

/**
 * Whether a host that a destination of another kind (a database, object storage, a broker)
 * connects to is allowed: anything in the sandbox; in production only hosts whose every address
 * is public, as for webhook URLs. Checked when the settings are saved, for a clear answer; the
 * kind's client checks again when it connects, through `dialAddress`.
 */
export async function checkHostAllowed(
  host: string,
  environment: WebhookEnvironment,
  resolve: ResolveHost = systemResolver,
): Promise<string | null> {
  if (environment === 'sandbox') return null;
  const result = await allowedAddresses(normalHost(host), resolve);
  return 'reason' in result ? result.reason : null;
}

const normalHost = (host: string): string =>
  host
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');

/** Every address `host` has now (itself for an address; none when it does not resolve). */
export async function addressesOf(
  host: string,
  resolve: ResolveHost = systemResolver,
): Promise<readonly LookupAddress[]> {
  const name = normalHost(host);
  const family = isIP(name);
  if (family !== 0) return [{ address: name, family }];
  return resolve(name).catch(() => []);
}

/**
 * The address a kind's client dials for `host`, resolved and checked now (at connect time) and
 * then pinned: the client is given this address, never the name, so a DNS answer that changes
 * afterwards (rebinding) cannot send it elsewhere. In production every address of the name must
 * be allowed (as at save time); a refused one throws a DestinationBlockedError.
 */
export async function dialAddress(
  host: string,
  environment: WebhookEnvironment,
  resolve: ResolveHost = systemResolver,
): Promise<LookupAddress> {
  const name = normalHost(host);
  if (environment === 'production') {
    const result = await allowedAddresses(name, resolve);
    if ('reason' in result) throw new DestinationBlockedError(result.reason);
    return result.addresses[0]!;
  }
  const family = isIP(name);
  if (family !== 0) return { address: name, family };
  const addresses = await resolve(name);
  if (addresses.length === 0)
    throw Object.assign(new Error(`${name} has no addresses`), { code: 'ENOTFOUND' });
  return addresses[0]!;
}

/**
 * Validates a webhook destination for an environment. Call it when the URL is saved and again
 * before each delivery: Node connects to IP-literal hosts without calling `lookup`, so
 * `checkedLookup` alone does not cover them.
 */
export async function validateDestinationUrl(
  rawUrl: string,
  environment: WebhookEnvironment,
  resolve: ResolveHost = systemResolver,
): Promise<DestinationCheck> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return { allowed: false, reason: 'not a valid absolute URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { allowed: false, reason: `unsupported scheme ${url.protocol.replace(/:$/, '')}: use https` };
  }
  if (environment === 'sandbox') return { allowed: true, url, addresses: [] };
  if (url.protocol !== 'https:') return { allowed: false, reason: 'production destinations must use https' };
  const result = await allowedAddresses(bareHost(url), resolve);
  if ('reason' in result) return { allowed: false, reason: result.reason };
  return { allowed: true, url, addresses: result.addresses };
}

function wantedFamily(family: number | 'IPv4' | 'IPv6' | undefined): 0 | 4 | 6 {
  if (family === 4 || family === 'IPv4') return 4;
  if (family === 6 || family === 'IPv6') return 6;
  return 0;
}

/**
 * A `lookup` for `http.request` / `https.request` (and `net.connect`) that resolves the host and,
 * in production, refuses with a DestinationBlockedError when any address is forbidden. Because the
 * check happens on the very addresses the socket then connects to, a DNS answer that changed since
 * the URL was validated cannot smuggle a request to an internal address.
 * Supports `all: true`, which Node uses when it races IPv4 and IPv6 (autoSelectFamily).
 */
export function checkedLookup(
  environment: WebhookEnvironment,
  resolve: ResolveHost = systemResolver,
): LookupFunction {
  return (hostname, options, callback) => {
    const family = wantedFamily(options.family);
    const lookupOnce = async (): Promise<LookupAddress[]> => {
      const host = hostname.toLowerCase().replace(/\.$/, '');
      let addresses: readonly LookupAddress[];
      if (environment === 'production') {
        const result = await allowedAddresses(host, resolve);
        if ('reason' in result) throw new DestinationBlockedError(result.reason);
        addresses = result.addresses;
      } else {
        addresses = await resolve(host);
      }
      const matching = addresses.filter((entry) => family === 0 || entry.family === family);
      if (matching.length === 0) {
        throw Object.assign(new Error(`no IPv${family} address for ${hostname}`), { code: 'ENOTFOUND' });
      }
      return matching;
    };
    lookupOnce().then(
      (addresses) => {
        const first = addresses[0]!;
        if (options.all) callback(null, addresses);
        else callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, options.all ? [] : ''),
    );
  };
}
