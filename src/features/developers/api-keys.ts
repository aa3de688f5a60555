import { createHash, timingSafeEqual } from 'node:crypto';
import type { Environment } from './tables.ts';
import { newId, newToken, type TokenKind } from '../../core/ids.ts';

/**
 * API keys are 32 random bytes behind an environment prefix, so a leaked key says where it
 * works. Only a SHA-256 hash is stored: the key is high-entropy, so a slow hash adds nothing.
 */
const PREFIX: Record<Environment, string> = { sandbox: 'sk_test_', production: 'sk_live_' };
const TOKEN_KIND: Record<Environment, TokenKind> = {
  sandbox: 'sandboxApiKey',
  production: 'productionApiKey',
};

export type NewApiKey = { id: string; plaintext: string; hash: string; displayPrefix: string };

export function hashApiKey(plaintext: string): string {
  return createHash('sha256').update(plaintext, 'utf8').digest('hex');
}

export function generateApiKey(environment: Environment): NewApiKey {
  const plaintext = newToken(TOKEN_KIND[environment], 32);
  return {
    id: newId('apiKey', 8),
    plaintext,
    hash: hashApiKey(plaintext),
    displayPrefix: `${plaintext.slice(0, PREFIX[environment].length + 6)}…`,
  };
}

/** Compares against every candidate without stopping early, so timing reveals nothing. */
export function matchesAnyKey(plaintext: string, storedHashes: readonly string[]): boolean {
  return (
    matchingKey(
      plaintext,
      storedHashes.map((hash, index) => ({ id: String(index), hash })),
    ) !== undefined
  );
}

/** The id of the key `plaintext` is (the dashboard ties a session to it), checking every candidate. */
export function matchingKey(
  plaintext: string,
  candidates: readonly { id: string; hash: string }[],
): string | undefined {
  const presented = Buffer.from(hashApiKey(plaintext), 'hex');
  let matched: string | undefined;
  for (const stored of candidates) {
    const candidate = Buffer.from(stored.hash, 'hex');
    if (candidate.length === presented.length && timingSafeEqual(candidate, presented)) matched = stored.id;
  }
  return matched;
}
