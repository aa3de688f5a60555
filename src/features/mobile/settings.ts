import { ConfigError } from '../../core/config.ts';

/** Limits of the mobile feature, from the environment (documented in .env.example). */
export type MobileSettings = {
  /** MOBILE_UPLOAD_MAX_BYTES: largest SDK upload body (default 5 MiB). */
  uploadMaxBytes: number;
  /** MOBILE_IMPORT_MAX_BYTES: largest export file accepted (default 8 GiB). */
  importMaxBytes: number;
};

function bytes(env: Readonly<Record<string, string | undefined>>, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1024)
    throw new ConfigError(`${name} must be a whole number of bytes ≥ 1024, got "${raw}"`);
  return value;
}

export function loadMobileSettings(env: Readonly<Record<string, string | undefined>>): MobileSettings {
  return {
    uploadMaxBytes: bytes(env, 'MOBILE_UPLOAD_MAX_BYTES', 5 * 1024 * 1024),
    importMaxBytes: bytes(env, 'MOBILE_IMPORT_MAX_BYTES', 8 * 1024 * 1024 * 1024),
  };
}
