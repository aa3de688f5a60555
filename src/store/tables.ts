/**
 * The fingerprint of the encryption key this database's secrets are sealed with (migration 0034):
 * one row, written at the first start. Never the key: an HMAC of a fixed label under it.
 */
export interface EncryptionKeyFingerprintTable {
  singleton: boolean;
  fingerprint: string;
  recorded_at: Date;
}

// The store owns this table: it adds it to the store's `Database` (see store/schema.ts).
declare module './schema.ts' {
  interface Database {
    encryption_key_fingerprint: EncryptionKeyFingerprintTable;
  }
}
