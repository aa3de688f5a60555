// The limits operators can tune, each `<count>/<seconds>`: the kind of setting every owner of a
// fixed-window limit declares (core/settings.ts reads it).
import { Type } from 'typebox';
import { ConfigError, customSetting, type Setting } from '../../core/settings.ts';
import type { WindowRule } from './windows.ts';

export function parseWindowRule(raw: string | undefined, name: string, fallback: WindowRule): WindowRule {
  const value = raw?.trim();
  if (!value) return fallback;
  const match = /^(\d+)\s*\/\s*(\d+)$/.exec(value);
  const limit = Number(match?.[1]);
  const windowSeconds = Number(match?.[2]);
  if (!match || limit < 1 || windowSeconds < 1 || windowSeconds > 86_400) {
    throw new ConfigError(`${name} must be <count>/<seconds> (seconds at most 86400), got "${value}"`);
  }
  return { limit, windowSeconds };
}

/** A `<count>/<seconds>` setting (seconds at most a day). */
export function windowRuleSetting(fallback: WindowRule, description: string): Setting<WindowRule> {
  return customSetting({
    description,
    schema: Type.String({
      pattern: '^\\d+\\s*/\\s*\\d+$',
      default: `${fallback.limit}/${fallback.windowSeconds}`,
      description,
    }),
    example: `${fallback.limit}/${fallback.windowSeconds}`,
    parse: (raw, name) => parseWindowRule(raw, name, fallback),
  });
}
