// Uploaded files at rest: sealed as bytes with the secret box (AES-256-GCM under the service key),
// so a stored file takes its own size plus SEALED_BYTES_OVERHEAD. Rows stored before migration 0023
// sealed the file's base64 text; they open through one more decode.
import type { SecretBox } from '../../core/secret-box.ts';
import type { Db } from '../../store/db.ts';
import * as repo from './repo.ts';
import type { StoredFile } from './repo.ts';

/** Files re-sealed per transaction: each may be 20 MB, so a batch stays a few hundred MB at most. */
const RESEAL_BATCH = 8;

export function sealFile(secretBox: SecretBox, bytes: Uint8Array): Uint8Array {
  return secretBox.sealBytes(bytes);
}

/** The uploaded file, byte for byte. */
export function openFile(secretBox: SecretBox, stored: StoredFile): Buffer {
  const bytes = secretBox.openBytes(stored.sealed);
  return stored.legacyBase64 ? Buffer.from(bytes.toString('utf8'), 'base64') : bytes;
}

/**
 * Re-seals every file still in the pre-0023 form (sealed base64 text, which the migration could not
 * re-encrypt without the key) as bytes, a few per transaction; returns how many. Safe beside
 * another pass (locked rows are skipped) and beside reads (a row is replaced whole).
 */
export async function resealLegacyFiles(deps: { db: Db; secretBox: SecretBox }): Promise<number> {
  let done = 0;
  for (;;) {
    const batch = await deps.db.transaction().execute(async (trx) => {
      const rows = await repo.lockLegacyFiles(trx, RESEAL_BATCH);
      for (const row of rows) {
        const bytes = openFile(deps.secretBox, { sealed: row.sealed, legacyBase64: true });
        await repo.replaceFile(trx, row.sessionId, sealFile(deps.secretBox, bytes));
      }
      return rows.length;
    });
    done += batch;
    if (batch < RESEAL_BATCH) return done;
  }
}
