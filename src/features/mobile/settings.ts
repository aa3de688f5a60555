import { ConfigError } from '../../core/config.ts';
import { parseWindowRule } from '../limits/settings.ts';
import type { WindowRule } from '../limits/windows.ts';

/** Limits of the mobile feature, from the environment (documented in .env.example). */
export type MobileSettings = {
  /** MOBILE_UPLOAD_MAX_BYTES: largest SDK upload body (default 5 MiB). */
  uploadMaxBytes: number;
  /** MOBILE_IMPORT_MAX_BYTES: largest export file accepted (default 8 GiB). */
  importMaxBytes: number;
  /**
   * MOBILE_UPLOAD_RATE: SDK uploads per connection, `<count>/<seconds>` (default 60/60). The
   * upload token lives on the user's phone: whoever holds it is held to this.
   */
  uploadRate: WindowRule;
  /** MOBILE_UPLOAD_PENDING_MAX: uploads of one connection waiting for normalization (default 20). */
  uploadPendingMax: number;
  /** MOBILE_IMPORT_RATE: export imports one developer may start, `<count>/<seconds>` (default 30/60):
   *  past it 429, before the export is read. */
  importRate: WindowRule;
};

function bytes(env: Readonly<Record<string, string | undefined>>, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1024)
    throw new ConfigError(`${name} must be a whole number of bytes ≥ 1024, got "${raw}"`);
  return value;
}

function count(env: Readonly<Record<string, string | undefined>>, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1)
    throw new ConfigError(`${name} must be a whole number ≥ 1, got "${raw}"`);
  return value;
}

export function loadMobileSettings(env: Readonly<Record<string, string | undefined>>): MobileSettings {
  return {
    uploadMaxBytes: bytes(env, 'MOBILE_UPLOAD_MAX_BYTES', 5 * 1024 * 1024),
    importMaxBytes: bytes(env, 'MOBILE_IMPORT_MAX_BYTES', 8 * 1024 * 1024 * 1024),
    uploadRate: parseWindowRule(env, 'MOBILE_UPLOAD_RATE', { limit: 60, windowSeconds: 60 }),
    uploadPendingMax: count(env, 'MOBILE_UPLOAD_PENDING_MAX', 20),
    importRate: parseWindowRule(env, 'MOBILE_IMPORT_RATE', { limit: 30, windowSeconds: 60 }),
  };
}
