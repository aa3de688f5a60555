// Provider access settings (declared here, parsed once at boot by core/settings.ts): how every call
// to a provider is timed out and retried, and per provider (templates expanded over the catalog)
// the app's credentials, where its endpoints are, whether it is offered, and its request budget.
import { Type } from 'typebox';
import {
  ConfigError,
  checkHttpUrl,
  customSetting,
  defineProviderSettings,
  defineSettings,
  numberSetting,
  textSetting,
  urlSetting,
} from '../core/settings.ts';
import type { RequestWindow } from '../provider-kit/api.ts';
import { providerRegistry } from '../providers/index.ts';

const nonNegative = (fallback: number, allowZero: boolean, description: string) =>
  numberSetting({
    description,
    default: fallback,
    ...(allowZero ? { minimum: 0 } : { exclusiveMinimum: 0 }),
    problem: `must be a ${allowZero ? 'non-negative' : 'positive'} number`,
  });

export type HttpSettings = {
  timeoutMs: number;
  /** Further attempts after a 5xx, a network error or a short 429. */
  retries: number;
  baseDelayMs: number;
  /** Longest wait (Retry-After, a spent budget window) sat out inside a request. */
  maxWaitSeconds: number;
  /**
   * The most bytes read of one answer (a JSON answer, a file, an error text, one item of a list
   * read item by item): answer-size.ts.
   */
  maxAnswerBytes: number;
};

export const providerHttpSettings = defineSettings({
  id: 'provider-http',
  owner: 'provider-access',
  intro: ['Calls to providers (OAuth and API).'],
  settings: {
    // One parser for the OAuth client and the API client: a bad value stops the boot.
    PROVIDER_HTTP_TIMEOUT_MS: nonNegative(
      10_000,
      false,
      'Timeout for every call to a provider, in milliseconds.',
    ),
    PROVIDER_HTTP_RETRIES: nonNegative(3, true, 'Retries on provider 5xx and network errors.'),
    PROVIDER_HTTP_RETRY_BASE_MS: nonNegative(500, false, 'The first retry backoff, in milliseconds.'),
    PROVIDER_MAX_WAIT_SECONDS: nonNegative(
      10,
      true,
      'The longest Retry-After (or spent budget window) waited out inside a request before answering 503 with Retry-After.',
    ),
    // Every tenant shares one heap: a provider (or whatever answers at its address) sending an
    // endless body must fail its own request, not exhaust the process.
    // 32: one activity of 24 hours recorded every second is about 26 MB of a provider's JSON.
    PROVIDER_HTTP_MAX_ANSWER_MB: nonNegative(
      32,
      false,
      'The largest answer read from a provider, in MB: a whole JSON answer, a file, an error text, or one item of a list read item by item. A larger answer fails that request (and the job that made it), naming the provider and this limit.',
    ),
  },
  build: (v): HttpSettings => ({
    timeoutMs: v.PROVIDER_HTTP_TIMEOUT_MS,
    retries: Math.floor(v.PROVIDER_HTTP_RETRIES),
    baseDelayMs: v.PROVIDER_HTTP_RETRY_BASE_MS,
    maxWaitSeconds: v.PROVIDER_MAX_WAIT_SECONDS,
    maxAnswerBytes: Math.floor(v.PROVIDER_HTTP_MAX_ANSWER_MB * 2 ** 20),
  }),
});

/** `<requests>/<seconds>` pairs, comma-separated (e.g. `600/900,6000/86400`). */
export function parseWindows(raw: string, name: string): RequestWindow[] {
  return raw.split(',').map((part) => {
    const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(part);
    const requests = Number(match?.[1]);
    const seconds = Number(match?.[2]);
    if (!match || requests < 1 || seconds < 1) {
      throw new ConfigError(`${name} must be <requests>/<seconds>[,<requests>/<seconds>…], got "${raw}"`);
    }
    return { requests, seconds };
  });
}

/** What one provider's settings say; `undefined` where the declaration's own value applies. */
export type ProviderSettings = {
  credentials: { clientId: string; clientSecret: string } | null;
  /** `<ID>_ENABLED`, when set. */
  enabled: boolean | undefined;
  /** `<ID>_BASE_URL`, when set. */
  baseUrl: URL | undefined;
  requestWindows: RequestWindow[] | undefined;
  userShare: number | undefined;
  /** The provider's own settings named by its `requestHeaders` (`<ID>_<setting>`), when set. */
  extra: Readonly<Record<string, string | undefined>>;
};

const headerSettingsOf = (providerId: string): string[] => [
  ...new Set(
    Object.values(
      (
        providerRegistry as Readonly<Record<string, (typeof providerRegistry)[keyof typeof providerRegistry]>>
      )[providerId]?.connector?.api?.requestHeaders ?? {},
    ),
  ),
];

export const providerSettings = defineProviderSettings({
  id: 'providers',
  owner: 'provider-access',
  intro: [
    'Per provider id (`tributary providers list` names them). A provider with a client id and',
    'secret is enabled; without, it is listed but not enabled. The operator dashboard can store them',
    'too (encrypted); a variable set here wins over a stored one. The OAuth redirect URI to',
    'register with the provider is PUBLIC_URL/v2/auth/callback/<id>; notifications arrive at',
    'PUBLIC_URL/providers/<id>/webhook (subscriptions: `tributary providers subscribe --provider <id>`).',
  ],
  templates: {
    CLIENT_ID: textSetting({
      description: "The app's client id (set together with the secret).",
      default: undefined,
    }),
    CLIENT_SECRET: textSetting({
      description: "The app's client secret; it also verifies the provider's signed notifications.",
      default: undefined,
    }),
    BASE_URL: urlSetting({
      description:
        'Sends every endpoint of the provider (OAuth and API, whatever their hosts) to one other origin: how local fakes are wired in.',
      default: undefined,
      example: 'http://127.0.0.1:9000',
    }),
    ENABLED: customSetting({
      description: 'true | false: overrides whether the provider is offered at all.',
      schema: Type.Boolean(),
      example: 'true',
      parse: (raw, name) => {
        const value = raw?.trim();
        if (value === undefined || value === '') return undefined;
        if (value !== 'true' && value !== 'false')
          throw new ConfigError(`${name} must be true or false, got "${value}"`);
        return value === 'true';
      },
    }),
    REQUEST_BUDGET: customSetting({
      description:
        "Requests per seconds, app-wide, <requests>/<seconds>[,…] (default: the provider's documented limits; raise it when the provider grants more).",
      schema: Type.String({ pattern: '^\\s*\\d+\\s*/\\s*\\d+\\s*(,\\s*\\d+\\s*/\\s*\\d+\\s*)*$' }),
      example: '600/900,6000/86400',
      parse: (raw, name) => {
        const value = raw?.trim();
        return value ? parseWindows(value, name) : undefined;
      },
    }),
    USER_SHARE: numberSetting({
      description: "The share of each budget window one user may spend (default: the provider's).",
      default: undefined,
      exclusiveMinimum: 0,
      maximum: 1,
      example: '0.25',
      problem: 'must be a number in (0, 1]',
    }),
  },
  extra: headerSettingsOf,
  build: (v, id, extra): ProviderSettings => {
    if ((v.CLIENT_ID === undefined) !== (v.CLIENT_SECRET === undefined)) {
      throw new ConfigError(`${id}_CLIENT_ID and ${id}_CLIENT_SECRET must be set together`);
    }
    return {
      credentials:
        v.CLIENT_ID && v.CLIENT_SECRET ? { clientId: v.CLIENT_ID, clientSecret: v.CLIENT_SECRET } : null,
      enabled: v.ENABLED,
      baseUrl: v.BASE_URL === undefined ? undefined : checkHttpUrl(v.BASE_URL, `${id}_BASE_URL`),
      requestWindows: v.REQUEST_BUDGET,
      userShare: v.USER_SHARE,
      extra,
    };
  },
});
