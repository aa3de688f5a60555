import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM for secrets at rest (provider tokens, webhook signing secrets).
 * Stored form: `v1.<iv b64url>.<tag b64url>.<ciphertext b64url>`; the version prefix
 * leaves room for key rotation without guessing at the format.
 *
 * Bytes (stored files, in `bytea`) are sealed without any text encoding: one version byte (1),
 * the 12-byte iv, the 16-byte tag, then the ciphertext — the plaintext's length plus
 * SEALED_BYTES_OVERHEAD.
 */
export type SecretBox = {
  seal(plaintext: string): string;
  open(sealed: string): string;
  sealBytes(plaintext: Uint8Array): Buffer;
  openBytes(sealed: Uint8Array): Buffer;
};

const BYTES_VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const SEALED_BYTES_OVERHEAD = 1 + IV_BYTES + TAG_BYTES;

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('secret box key must be 32 bytes');
  return {
    seal(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [
        'v1',
        iv.toString('base64url'),
        cipher.getAuthTag().toString('base64url'),
        body.toString('base64url'),
      ].join('.');
    },
    open(sealed) {
      const [version, iv, tag, body] = sealed.split('.');
      if (version !== 'v1' || !iv || !tag || body === undefined)
        throw new Error('unrecognised sealed secret');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString(
        'utf8',
      );
    },
    sealBytes(plaintext) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = [cipher.update(plaintext), cipher.final()];
      return Buffer.concat([Buffer.of(BYTES_VERSION), iv, cipher.getAuthTag(), ...body]);
    },
    openBytes(sealed) {
      const bytes = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
      if (bytes.length < SEALED_BYTES_OVERHEAD || bytes[0] !== BYTES_VERSION)
        throw new Error('unrecognised sealed bytes');
      const iv = bytes.subarray(1, 1 + IV_BYTES);
      const tag = bytes.subarray(1 + IV_BYTES, SEALED_BYTES_OVERHEAD);
      const decipher = createDecipheriv('aes-256-gcm', key, iv);
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(bytes.subarray(SEALED_BYTES_OVERHEAD)), decipher.final()]);
    },
  };
}
