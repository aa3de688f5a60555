// Uploaded files at rest: sealed as bytes with the secret box (AES-256-GCM under the service key),
// so a stored file takes its own size plus SEALED_BYTES_OVERHEAD. Rows stored before migration 0023
// sealed the file's base64 text; they open through one more decode.
import type { SecretBox } from '../../core/secret-box.ts';
import type { StoredFile } from './repo.ts';

export function sealFile(secretBox: SecretBox, bytes: Uint8Array): Uint8Array {
  return secretBox.sealBytes(bytes);
}

/** The uploaded file, byte for byte. */
export function openFile(secretBox: SecretBox, stored: StoredFile): Buffer {
  const bytes = secretBox.openBytes(stored.sealed);
  return stored.legacyBase64 ? Buffer.from(bytes.toString('utf8'), 'base64') : bytes;
}
