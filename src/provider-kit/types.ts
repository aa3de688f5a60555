import type { NotificationHooks, ProviderApi, ProviderHttp } from './api.ts';
import type { ProviderDataType, ProviderRuntime } from './basics.ts';
import type { DataSource } from './data-source.ts';
import type { MobileHooks } from './mobile/samples.ts';
import type { RouteHooks } from './routes.ts';

export type { ProviderDataType, ProviderRuntime } from './basics.ts';

/**
 * How an end user connects:
 * - `oauth2`: authorization code; `oauth2_pkce`: the same with an S256 code challenge;
 * - `sdk`: no web flow; a mobile SDK creates the connection (generateAuthToken);
 * - `api_key`: the end user hands over a personal API key on a page Tributary hosts; it is
 *   checked with the connector's `checkApiKey`, sealed like a token, and sent as `apiKey.header`.
 */
export type AuthKind = 'oauth2' | 'oauth2_pkce' | 'sdk' | 'api_key';

/** How a personal API key is sent (authKind `api_key`). */
export type ApiKeyDeclaration = {
  /** The request header that carries the key (e.g. `api-key`); lower case. */
  header: string;
  /** Put before the key in the header (e.g. `Bearer `); none when absent. */
  prefix?: string;
  /** Where the user finds the key, shown on the key page (an https URL). */
  helpUrl?: string;
};

/** Where the token endpoint expects the client credentials. */
export type ClientAuthStyle = 'basic' | 'body';

/** A dotted path into a JSON document, e.g. `athlete.id`. */
export type JsonPath = string;

/** How to revoke a token at the provider, when it allows it. */
export type RevocationDeclaration = {
  /** May contain `{provider_user_id}`. */
  url: string;
  method: 'GET' | 'POST' | 'DELETE';
  /** `bearer`: Authorization header; otherwise the access token in a query or form parameter. */
  token: 'bearer' | { param: string; in: 'query' | 'form' };
  /** Client credentials sent with the revocation, if the provider wants them. */
  clientAuth?: ClientAuthStyle;
};

export type OAuthDeclaration = {
  /** Absolute URL, or a path on Tributary itself for consent pages we host. */
  authorizeUrl: string;
  tokenUrl: string;
  scopes: readonly string[];
  scopeSeparator: ' ' | ',';
  clientAuth: ClientAuthStyle;
  /** Fixed extra parameters for the authorize request (e.g. `approval_prompt`). */
  authorizeParams?: Readonly<Record<string, string>>;
  /** Fixed extra parameters for the token request (e.g. an `action` the endpoint dispatches on). */
  tokenParams?: Readonly<Record<string, string>>;
  /** Fixed extra parameters for a refresh (e.g. a `scope` without which no new refresh token comes). */
  refreshParams?: Readonly<Record<string, string>>;
  /** Where the token fields sit when the provider wraps them (e.g. `body`). */
  tokenResponsePath?: JsonPath;
  /** Authorize parameter that carries the end user's language, if the provider takes one. */
  languageParam?: string;
  /**
   * How the provider's stable account id is found after the code exchange: a field of the token
   * answer, a field of a profile read with the new token, or a claim of the OpenID Connect ID
   * token in the answer (`id_token`; read, not verified: it came straight from the token endpoint
   * over TLS, OIDC Core 3.1.3.7).
   */
  accountId?:
    | { from: 'token'; path: JsonPath }
    | { from: 'userinfo'; url: string; path: JsonPath }
    | { from: 'idToken'; claim: string };
  revoke?: RevocationDeclaration;
};

/**
 * What kind of device a provider's records usually come from. The merged view (features/merge)
 * ranks sources by it when a developer has set no order of its own: a ring before a watch before
 * a band … before the phone, and numbers typed into an app last (docs/merge.md).
 */
export const DEVICE_KINDS = [
  'ring',
  'watch',
  'band',
  'chest_strap',
  'scale',
  'sensor',
  'phone',
  'app',
] as const;
export type DeviceKind = (typeof DEVICE_KINDS)[number];

export type ProviderDeclaration = {
  /**
   * The wire resource id (`MY_PROVIDER`): upper-case letters, digits and underscores. A plain string
   * here because the kit sits below the providers; src/providers/index.ts (generated from the
   * folders) derives the `ProviderId` union from these declarations.
   */
  id: string;
  name: string;
  /** Drawn by Tributary as an SVG: initials on a rounded square of this colour. */
  icon: { initials: string; background: string; foreground?: string };
  authKind: AuthKind;
  /** Absent for `sdk` and `api_key`. */
  oauth?: OAuthDeclaration;
  /** Present exactly for `api_key`. */
  apiKey?: ApiKeyDeclaration;
  /** `deployment`: needs `<ID>_CLIENT_ID`/`<ID>_CLIENT_SECRET`; `none`: works without (SDK, API key, simulated). */
  credentials: 'deployment' | 'none';
  dataTypes: readonly ProviderDataType[];
  writesPlannedWorkouts: boolean;
  /** How far back the provider serves history, in days; null when unlimited or unknown. */
  historyDays: number | null;
  /** Off for providers whose facts are unverified; an operator turns them on with `<ID>_ENABLED=true`. */
  enabledByDefault: boolean;
  /** The device kind its records usually come from; the merged view ranks sources by it. */
  deviceKind: DeviceKind;
};

/** The token endpoint's answer, normalised. */
export type TokenSet = {
  accessToken: string;
  refreshToken: string | null;
  expiresAt: Date | null;
  /** As granted, when the provider says; otherwise null (the requested scopes are assumed). */
  scopes: string[] | null;
  /** The whole (unwrapped) response, for account-id lookup. */
  raw: Record<string, unknown>;
};

/**
 * Code behind a declaration. Everything is optional: a provider that is only declared gets the
 * generic OAuth2 flow. The connector framework will add fetch/refresh/revoke/push hooks here.
 */
export type Connector = {
  /** Replaces the HTTP token exchange (providers whose consent Tributary hosts itself). */
  exchangeCode?(
    input: { code: string; codeVerifier: string | null; redirectUri: string },
    runtime: ProviderRuntime,
  ): Promise<TokenSet & { accountId: string | null }>;
  /**
   * authKind `api_key`: checks a key the user entered (a request with it, through `http`) and
   * names the account it belongs to; throws ProviderDataError `unauthorized` for a refused key.
   */
  checkApiKey?(http: ProviderHttp): Promise<{ accountId: string | null }>;
  /** Reading the provider's data and writing planned workouts (see data-source.ts). */
  data?: DataSource;
  /** A real provider API: limits, rate-limit headers, backfill (connectors/types.ts). */
  api?: ProviderApi;
  /** Push notifications received at /providers/{id}/webhook (connectors/types.ts). */
  notifications?: NotificationHooks;
  /** On-device sources (authKind `sdk`): reading SDK uploads and export files (mobile/samples.ts). */
  mobile?: MobileHooks;
  /** Providers with a course/route API: pushing GPS routes to the user's devices (routes.ts). */
  routes?: RouteHooks;
};

export type Provider = { declaration: ProviderDeclaration; connector?: Connector };
