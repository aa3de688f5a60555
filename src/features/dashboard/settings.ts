// Dashboard settings (declared here, parsed once at boot by core/settings.ts).
import {
  defineSettings,
  numberSetting,
  readSettings,
  type RawEnv,
  textSetting,
} from '../../core/settings.ts';

export type DashboardSettings = {
  /** `OPERATOR_TOKEN`: signs an operator in (every developer, like the CLI); unset = no operator sign-in. */
  operatorToken: string | undefined;
  /** How long a sign-in lasts (`DASHBOARD_SESSION_HOURS`, default 8). */
  sessionTtlMs: number;
};

export const dashboardSettings = defineSettings({
  id: 'dashboard',
  owner: 'features/dashboard',
  intro: ['Developer dashboard at /dashboard (developers sign in with their dev-id and an API key).'],
  settings: {
    OPERATOR_TOKEN: textSetting({
      description:
        'Signs an operator in (every developer: create, suspend/resume, limits, keys); unset disables operator sign-in. At least 24 characters: openssl rand -hex 32',
      default: undefined,
      // A short token could be guessed through the sign-in form; refuse to start rather than expose it.
      check: (token) =>
        token.length < 24
          ? 'OPERATOR_TOKEN must be at least 24 characters (generate: openssl rand -hex 32)'
          : null,
    }),
    DASHBOARD_SESSION_HOURS: numberSetting({
      description:
        'How long a dashboard sign-in lasts, in hours (sign-out and revoking its key end it sooner).',
      default: 8,
      exclusiveMinimum: 0,
      maximum: 24 * 30,
      problem: 'must be a number of hours between 0 and 720',
    }),
  },
  build: (v): DashboardSettings => ({
    operatorToken: v.OPERATOR_TOKEN,
    sessionTtlMs: Math.round(v.DASHBOARD_SESSION_HOURS * 3_600_000),
  }),
});

export const parseDashboardSettings = (env: RawEnv): DashboardSettings =>
  readSettings(dashboardSettings, env);
