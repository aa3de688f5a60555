// Dashboard settings, read once from the environment.
import { ConfigError } from '../../core/config.ts';

export type DashboardSettings = {
  /** `OPERATOR_TOKEN`: signs an operator in (every developer, like the CLI); unset = no operator sign-in. */
  operatorToken: string | undefined;
  /** How long a sign-in lasts (`DASHBOARD_SESSION_HOURS`, default 8). */
  sessionTtlMs: number;
};

export function parseDashboardSettings(env: Readonly<Record<string, string | undefined>>): DashboardSettings {
  const token = env.OPERATOR_TOKEN?.trim() || undefined;
  // A short token could be guessed through the sign-in form; refuse to start rather than expose it.
  if (token !== undefined && token.length < 24) {
    throw new ConfigError('OPERATOR_TOKEN must be at least 24 characters (generate: openssl rand -hex 32)');
  }
  const rawHours = env.DASHBOARD_SESSION_HOURS?.trim();
  const hours = rawHours ? Number(rawHours) : 8;
  if (!Number.isFinite(hours) || hours <= 0 || hours > 24 * 30) {
    throw new ConfigError(
      `DASHBOARD_SESSION_HOURS must be a number of hours between 0 and 720, got "${rawHours}"`,
    );
  }
  return { operatorToken: token, sessionTtlMs: Math.round(hours * 3_600_000) };
}
