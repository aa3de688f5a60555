import { createHash, randomBytes } from 'node:crypto';
import type { ProviderRuntime, TokenSet } from '../../provider-kit/types.ts';

/**
 * The sandbox's authorization codes are self-contained: the grant (account, scopes, PKCE
 * challenge, redirect URI, expiry, a random id) sealed with the service key, so a code cannot be
 * forged or altered without the key. A code is good for one exchange (RFC 6749 4.1.2): the ids of
 * redeemed codes are remembered until the codes expire. That memory is this process's; the
 * sandbox is a development provider, and a code is redeemed by the process that serves the
 * callback a moment after issuing it.
 */
type Grant = { acct: string; scope: string; cc: string | null; ru: string; exp: number; jti: string };

const CODE_PREFIX = 'sbxc_';
const CODE_LIFETIME_MS = 10 * 60_000;
const ACCESS_LIFETIME_S = 24 * 3600;

export class SandboxGrantError extends Error {
  override name = 'SandboxGrantError';
}

export function issueCode(
  runtime: ProviderRuntime,
  grant: { account: string; scope: string; codeChallenge: string | null; redirectUri: string },
): string {
  const sealed: Grant = {
    acct: grant.account,
    scope: grant.scope,
    cc: grant.codeChallenge,
    ru: grant.redirectUri,
    exp: runtime.clock.now().getTime() + CODE_LIFETIME_MS,
    jti: randomBytes(12).toString('base64url'),
  };
  return `${CODE_PREFIX}${runtime.secretBox.seal(JSON.stringify(sealed))}`;
}

const s256 = (verifier: string) => createHash('sha256').update(verifier, 'ascii').digest('base64url');

/** Ids of redeemed codes, with the expiry of each: past it the code is refused as expired anyway. */
const redeemed = new Map<string, number>();

function redeemOnce(grant: Grant, now: number): void {
  for (const [id, expiresAt] of redeemed) if (expiresAt < now) redeemed.delete(id);
  if (redeemed.has(grant.jti)) throw new SandboxGrantError('code was already used');
  redeemed.set(grant.jti, grant.exp);
}

export async function exchangeCode(
  input: { code: string; codeVerifier: string | null; redirectUri: string },
  runtime: ProviderRuntime,
): Promise<TokenSet & { accountId: string | null }> {
  if (!input.code.startsWith(CODE_PREFIX)) throw new SandboxGrantError('malformed code');
  let grant: Grant;
  try {
    grant = JSON.parse(runtime.secretBox.open(input.code.slice(CODE_PREFIX.length))) as Grant;
  } catch {
    throw new SandboxGrantError('code was not issued by this sandbox');
  }
  const now = runtime.clock.now().getTime();
  if (grant.exp < now) throw new SandboxGrantError('code expired');
  if (grant.ru !== input.redirectUri)
    throw new SandboxGrantError('redirect_uri does not match the authorization');
  if (grant.cc !== null && (input.codeVerifier === null || s256(input.codeVerifier) !== grant.cc)) {
    throw new SandboxGrantError('code_verifier does not match the code_challenge');
  }
  // Only a request that would otherwise succeed uses the code up.
  redeemOnce(grant, now);
  // The simulated provider's own tokens (what a real provider would issue), not Tributary ids.
  const raw = {
    // eslint-disable-next-line ids/mint-through-core -- see above
    access_token: `sbx_at_${randomBytes(24).toString('base64url')}`,
    // eslint-disable-next-line ids/mint-through-core -- see above
    refresh_token: `sbx_rt_${randomBytes(24).toString('base64url')}`,
    token_type: 'Bearer',
    expires_in: ACCESS_LIFETIME_S,
    scope: grant.scope,
    account_id: grant.acct,
  };
  return {
    accessToken: raw.access_token,
    refreshToken: raw.refresh_token,
    expiresAt: new Date(now + ACCESS_LIFETIME_S * 1000),
    scopes: grant.scope.split(' ').filter(Boolean),
    raw,
    accountId: grant.acct,
  };
}
