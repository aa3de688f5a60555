// A restart with another ENCRYPTION_KEY used to serve as if nothing were wrong: every sealed secret
// (provider tokens, destination settings, signing secrets, lab report files) failed to open later,
// one job at a time, and deliveries sat pending with nothing logged. The first start records a
// fingerprint of its key; every later start (and every command that opens the store) compares.
import { createHmac } from 'node:crypto';
import { ConfigError } from '../core/settings.ts';
import type { Db } from './db.ts';
import './tables.ts';

/** An HMAC of a fixed label under the key: equal keys give equal fingerprints, and it tells nothing of the key. */
export const encryptionKeyFingerprint = (key: Buffer) =>
  createHmac('sha256', key).update('tributary encryption key fingerprint').digest('hex').slice(0, 32);

/** The one line a start with another key fails with. */
export function keyMismatchMessage(current: string, stored: string): string {
  return (
    `ENCRYPTION_KEY does not match the key this database's secrets are sealed with (fingerprint ` +
    `${current}, the database's ${stored}): start with the original key (ENCRYPTION_KEY, or ` +
    `DATA_DIR/encryption.key on embedded storage); Tributary has no key rotation, so secrets sealed ` +
    `under one key cannot be read with another`
  );
}

/**
 * Records the key's fingerprint if the database has none yet (a new database, or one from before
 * migration 0034), else compares: a different key is a ConfigError naming both fingerprints.
 */
export async function verifyEncryptionKey(db: Db, key: Buffer): Promise<'recorded' | 'matched'> {
  const fingerprint = encryptionKeyFingerprint(key);
  const inserted = await db
    .insertInto('encryption_key_fingerprint')
    .values({ singleton: true, fingerprint, recorded_at: new Date() })
    .onConflict((conflict) => conflict.column('singleton').doNothing())
    .returning('fingerprint')
    .executeTakeFirst();
  if (inserted) return 'recorded';
  const stored = await db
    .selectFrom('encryption_key_fingerprint')
    .select('fingerprint')
    .executeTakeFirstOrThrow();
  if (stored.fingerprint !== fingerprint)
    throw new ConfigError(keyMismatchMessage(fingerprint, stored.fingerprint));
  return 'matched';
}
