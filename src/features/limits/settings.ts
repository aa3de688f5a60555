// The limits operators can tune, read once from the environment: each `<count>/<seconds>`.
import { ConfigError } from '../../core/config.ts';
import type { WindowRule } from './windows.ts';

export function parseWindowRule(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  fallback: WindowRule,
): WindowRule {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const match = /^(\d+)\s*\/\s*(\d+)$/.exec(raw);
  const limit = Number(match?.[1]);
  const windowSeconds = Number(match?.[2]);
  if (!match || limit < 1 || windowSeconds < 1 || windowSeconds > 86_400) {
    throw new ConfigError(`${name} must be <count>/<seconds> (seconds at most 86400), got "${raw}"`);
  }
  return { limit, windowSeconds };
}
